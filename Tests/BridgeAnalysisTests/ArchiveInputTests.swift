import BridgeAnalysis
@_spi(Testing) import BridgeArchive
import BridgeJSON
import BridgeProtocol
import BridgeTestSupport
import Foundation
import Testing

/// Session archives (`.bsz`) as analyzer input: records, events and reader findings
/// mapped to analysis events; damaged archives analysed as far as they can be read.
struct ArchiveInputTests {
    /// A session with every kind of message: 4 requests, a late and a missing answer.
    static func session() -> [String] {
        var b = TapBuilder()
        b.hostEvent(0, "host.ready")
        b.request(10, "q1", "capability.query")
        b.response(20, "q1", "capability.query", data: #"{"environment":"ios","hostVersion":"1.0.0","capabilities":{}}"#)
        b.request(30, "d1", "camera.document.capture", data: #"{"documentType":"id_card","side":"front"}"#)
        b.response(130, "d1", "camera.document.capture", data: #"{"imageData":"AAAA","width":1,"height":1,"mimeType":"image/png"}"#)
        b.request(140, "n1", "nfc.read")
        b.lines.append(#"{"t":1763830000150,"dir":"h2w","conn":"c1","msg":{"version":"1.0","correlationId":"n1","type":"response","timestamp":1763830000150,"payload":{"action":"nfc.read","status":"bogus"}}}"#)
        b.request(160, "s1", "camera.selfie.capture")
        return b.lines
    }

    static func events(_ lines: [String]) throws -> [AnalysisEvent] {
        var source = TapLogSource(bytes: Array(lines.joined(separator: "\n").utf8), name: "memory")
        var out: [AnalysisEvent] = []
        while let e = try source.next() { out.append(e) }
        return out
    }

    @Test(arguments: Fixtures.names)
    func everyFixtureGivesTheSameFindingsFromAnArchive(_ name: String) throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.bsz").path
        let tap = try Fixtures.analyze(name)
        try Archives.write(Archives.events(ofTapLog: Fixtures.path(name)), to: path)
        let archive = try Archives.analyze(path)
        #expect(archive.countsBySlug == tap.countsBySlug)
        #expect(archive.summary.messages == tap.summary.messages)
        #expect(archive.summary.captureEvents == tap.summary.captureEvents)
        #expect(archive.connections.map(\.outcome) == tap.connections.map(\.outcome))
    }

    @Test func recordNumbersAreSequenceNumbersAndOffsetsStayInsideTheMessage() throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.bsz").path
        let tapEvents = try Self.events(Self.session())
        try Archives.write(tapEvents, to: path)
        let events = try Archives.events(ofArchive: path)
        #expect(events.map(\.record) == Array(1...tapEvents.count))
        for (a, t) in zip(events, tapEvents) {
            guard case .message(let seq, let time, let dir, let conn, let bytes, _) = a,
                  case .message(_, let tt, let td, let tc, let tb, _) = t else {
                Issue.record("not a message: \(a)")
                continue
            }
            #expect(seq == a.record)
            #expect(time == tt && dir == td && conn == tc && Array(bytes) == Array(tb))
        }
        let report = try Archives.analyze(path)
        let invalid = try #require(report.findings.first { $0.slug == "invalid-status" })
        #expect(invalid.records == [7])
        let tapInvalid = try #require(Fixtures.analyze(text: Self.session().joined(separator: "\n")).findings.first { $0.slug == "invalid-status" })
        #expect(invalid.offset == tapInvalid.offset && invalid.offset != nil)
        let unanswered = report.findings.filter { $0.slug == "unanswered-request" }
        #expect(unanswered.map(\.records) == [[8]])
        #expect(report.countsBySlug["capture-error"] == nil)
    }

    @Test func captureEventsBecomeCaptureFindingsAndJourneySteps() throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.bsz").path
        let t0: Int64 = 1_763_830_000_000_000_000
        let w = try ArchiveWriter(path: path, header: ArchiveHeader(source: "pcap:lo", startTime: t0, toolVersion: "test"))
        try w.append(ArchiveEvent(time: t0, kind: .open, connection: "c1"))
        try w.append(time: t0 + 1, direction: .webToHost, connection: "c1",
                     payload: Array(#"{"version":"1.0","correlationId":"e1","type":"event","timestamp":1763830000000,"payload":{"action":"journey.started"}}"#.utf8))
        try w.append(ArchiveEvent(time: t0 + 2, kind: .gap, connection: "c1", direction: .hostToWeb, bytes: 1200))
        try w.append(ArchiveEvent(time: t0 + 3, kind: .drop, count: 7))
        try w.append(ArchiveEvent(time: t0 + 4, kind: .error, line: 12, reason: "not valid JSON"))
        try w.append(ArchiveEvent(time: t0 + 5, kind: ArchiveEvent.Kind(rawValue: "pause"), connection: "c1"))
        try w.append(ArchiveEvent(time: t0 + 6, kind: .close, connection: "c1"))
        try w.finish(endTime: t0 + 7)

        let report = try Archives.analyze(path)
        #expect(report.countsBySlug == ["capture-gap": 2, "capture-error": 1, "journey-incomplete": 1])
        let gap = try #require(report.findings.first { $0.slug == "capture-gap" })
        #expect(gap.records == [3] && gap.message.contains("1200 bytes") && gap.connection == "c1")
        let error = try #require(report.findings.first { $0.slug == "capture-error" })
        #expect(error.records == [5] && error.message == "tap line 12: not valid JSON")
        let steps = try #require(report.connections.first).steps.map(\.action)
        #expect(steps == ["connection.open", "journey.started", "capture.gap", "capture.pause", "connection.close"])
    }

    @Test func truncatedArchiveIsACaptureErrorAndWhatWasReadIsAnalysed() throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.bsz").path
        var b = TapBuilder()
        b.hostEvent(0, "host.ready")
        b.request(1, "q0", "capability.query")
        b.response(2, "q0", "capability.query", data: #"{"environment":"ios","hostVersion":"1","capabilities":{}}"#)
        for i in 0..<300 {
            b.request(Int64(10 + 20 * i), "n\(i)", "nfc.read", data: "{\"n\":\(i),\"pad\":\"\(String(repeating: "x", count: 200 + i))\"}")
            b.response(Int64(20 + 20 * i), "n\(i)", "nfc.read", data: #"{"chipRead":true}"#)
        }
        let all = try Self.events(b.lines)
        // Small flushes, so a cut leaves many complete lines before it.
        try Archives.write(all, to: path, flushPolicy: FlushPolicy(flushBytes: 2048, frameBytes: 64 << 10))
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try Archives.analyze(path).countsBySlug == ["journey-incomplete": 1])

        var previous = 0
        for fraction in [0.2, 0.5, 0.9, 0.999] {
            let cut = Int(Double(whole.count) * fraction)
            let cutPath = dir.appendingPathComponent("cut-\(cut).bsz").path
            try whole.prefix(cut).write(to: URL(fileURLWithPath: cutPath))
            let report = try Archives.analyze(cutPath)
            let errors = report.findings.filter { $0.slug == "capture-error" }
            #expect(errors.contains { $0.message.contains("truncated-frame") }, "cut at \(cut): \(errors)")
            #expect(!errors.contains { $0.message.contains("missing-trailer") })
            #expect(report.summary.messages > previous && report.summary.messages < all.count, "cut at \(cut)")
            previous = report.summary.messages
            // The records read are the first ones, in order; the damage comes after them.
            let lastRecord = report.connections.first?.steps.last?.records.last ?? 0
            #expect(errors.allSatisfy { ($0.records.first ?? 0) > lastRecord })
            #expect(report.countsBySlug["unanswered-request", default: 0] <= 1)
        }
    }

    @Test func corruptFrameIsReportedAndReadingResumesAtTheNextFrame() throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.bsz").path
        var b = TapBuilder()
        for i in 0..<400 {
            b.webEvent(Int64(i), "journey.progress", data: "{\"step\":\(i),\"pad\":\"\(String(repeating: "y", count: 100 + i % 50))\"}")
        }
        b.webEvent(500, "journey.complete", data: #"{"status":"success"}"#)
        try Archives.write(try Self.events(b.lines), to: path, flushPolicy: FlushPolicy(flushBytes: 1024, frameBytes: 8 << 10))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let middle = bytes.count / 2
        for i in middle..<(middle + 64) { bytes[i] ^= 0x5A }
        let bad = dir.appendingPathComponent("bad.bsz").path
        try Data(bytes).write(to: URL(fileURLWithPath: bad))

        let report = try Archives.analyze(bad)
        let errors = report.findings.filter { $0.slug == "capture-error" }
        #expect(errors.contains { $0.message.contains("corrupt-data") || $0.message.contains("checksum-mismatch") }, "\(errors)")
        #expect(report.countsBySlug["capture-gap", default: 0] >= 1)  // lines lost: the seq jumps
        #expect(report.summary.messages > 200 && report.summary.messages < 401)
        // The frames after the damage were read: the journey's end is there.
        #expect(report.connections.first?.outcome.state == "complete")
    }

    @Test func sequenceGapIsACaptureGapNamingTheLostRecord() throws {
        let lines = [
            #"{"bridgescope":"session","formatVersion":1,"source":"test","host":null,"filter":null,"startTime":1,"toolVersion":"t"}"#,
            #"{"seq":1,"t":1763830000000000000,"dir":"w2h","conn":"c1","msg":{"version":"1.0","correlationId":"a","type":"event","timestamp":1763830000000,"payload":{"action":"journey.started"}}}"#,
            #"{"seq":4,"t":1763830000100000000,"dir":"w2h","conn":"c1","msg":{"version":"1.0","correlationId":"b","type":"event","timestamp":1763830000100,"payload":{"action":"journey.complete","data":{"status":"success"}}}}"#,
            #"{"seq":5,"t":1763830000200000000,"dir":"sideways","conn":"c1","text":"?"}"#,
            #"{"bridgescope":"trailer","records":3,"events":0,"bytes":0,"drops":0,"gaps":0,"gapBytes":0,"errors":0,"endTime":2}"#,
        ]
        var source = try ArchiveEventSource(bytes: ArchiveTesting.compressLines(lines))
        let report = try SessionAnalyzer.analyze(&source, name: "memory")
        let gap = try #require(report.findings.first { $0.slug == "capture-gap" })
        #expect(gap.records == [2])
        #expect(gap.message.contains("sequence-gap") && gap.message.contains("2 lines missing"))
        let errors = report.findings.filter { $0.slug == "capture-error" }
        #expect(errors.contains { $0.records == [5] && $0.message.contains("\"sideways\"") })
        #expect(errors.contains { $0.message.contains("count-mismatch") })
        #expect(report.connections.first?.outcome.state == "complete")
    }

    @Test func whatIsNotAnArchiveIsRefusedSayingWhatItIs() throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases: [(String, [UInt8], String)] = [
            ("empty.bsz", [], "empty"),
            ("text.bsz", Array("{\"x\":1}\n".utf8), "not a session archive or a tap log"),
            ("noheader.bsz", ArchiveTesting.compressLines([#"{"seq":1}"#]), "header"),
            ("future.bsz", ArchiveTesting.compressLines([#"{"bridgescope":"session","formatVersion":99,"source":"x","startTime":1,"toolVersion":"t"}"#]), "version 99"),
        ]
        for (name, bytes, mention) in cases {
            let path = dir.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                _ = try SessionInput.open(path)
                Issue.record("\(name) opened")
            } catch {
                #expect(error.code == (name == "noheader.bsz" || name == "future.bsz" ? .unreadableInput : .unsupportedInput))
                #expect(error.message.hasPrefix(path) && error.message.contains(mention), "\(error.message)")
            }
        }
    }

    @Test func archivesInADirectoryAreFoundBesideTapLogs() async throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Archives.write(Self.events(Self.session()), to: dir.appendingPathComponent("b.bsz").path)
        try Data(Self.session().joined(separator: "\n").utf8).write(to: dir.appendingPathComponent("a.ndjson"))
        try Data().write(to: dir.appendingPathComponent("notes.txt"))
        let found = try SessionInput.expand([dir.path])
        #expect(found.inputs.map { ($0 as NSString).lastPathComponent } == ["a.ndjson", "b.bsz"])
        #expect(found.skipped.map { ($0.path as NSString).lastPathComponent } == ["notes.txt"])
        let batch = await BatchAnalyzer(jobs: 2).run(found.inputs)
        #expect(batch.failures.isEmpty)
        #expect(batch.reports.count == 2)
        #expect(batch.reports[0].countsBySlug == batch.reports[1].countsBySlug)
    }
}
