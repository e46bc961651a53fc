@testable import BridgeAnalysis
import BridgeArchive
import BridgeTestSupport
import Foundation
import Testing

/// Analysis with `readAhead` (what `analyze` does with a core to spare: decompression on
/// one thread, reading and scanning on another, the analysis on the caller's) gives the
/// report of one thread: on every fixture and sample capture as an archive, on a
/// generated session with planted anomalies, on damaged and truncated archives, and on
/// a long archive of large messages handed over in many chunks.
struct PipelinedAnalysisTests {
    /// The report of an archive read on one thread and with read-ahead (both through
    /// `feedAll`: runs of lines, messages scanned where they are read), each checked
    /// against the report of the archive read event by event (`next()`: no runs, no scans
    /// handed on).
    static func bothReports(_ bytes: [UInt8], name: String) throws -> (one: AnalysisReport, pipelined: AnalysisReport) {
        func run(_ readAhead: Bool) throws -> AnalysisReport {
            var source = try ArchiveEventSource(bytes: bytes, name: name, readAhead: readAhead)
            #expect(source.scansAhead == readAhead)
            return try SessionAnalyzer.analyze(&source, name: name)
        }
        var source = try ArchiveEventSource(bytes: bytes, name: name)
        var analyzer = SessionAnalyzer(source: name)
        while let e = try source.next() { analyzer.feed(e) }
        let reference = analyzer.finish()
        let one = try run(false), pipelined = try run(true)
        #expect(one == reference, "\(name): feedAll and next() disagree")
        return (one, pipelined)
    }

    /// `events` written as an archive, its bytes.
    static func archive(_ events: [AnalysisEvent], flushPolicy: FlushPolicy = FlushPolicy()) throws -> [UInt8] {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.bsz").path
        try Archives.write(events, to: path, flushPolicy: flushPolicy)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func everyFixtureAndCaptureGivesTheSameReportPipelined() throws {
        for name in Fixtures.names {
            let bytes = try Self.archive(try Archives.events(ofTapLog: Fixtures.path(name)))
            let r = try Self.bothReports(bytes, name: name)
            #expect(r.one == r.pipelined, "\(name)")
        }
        for name in try EnvelopeFastPathTests.captureNames() {
            let bytes = Array(try Data(contentsOf: CapturesTests.directory.appendingPathComponent(name)))
            let r = try Self.bothReports(bytes, name: name)
            #expect(r.one == r.pipelined, "\(name)")
        }
    }

    /// generate.py's field session (fixed seed), in small frames: many runs, and
    /// damaged copies of it (flipped bits, cut short).
    @Test func generatedAndDamagedSessionsGiveTheSameReportPipelined() throws {
        let script = ProjectPaths.root.appendingPathComponent("tools/bench/analyze/generate.py").path
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--redacted", "--messages", "20000", "--parallel", "8"])
        #expect(result.status == 0)
        var source = TapLogSource(bytes: Array(result.stdout.utf8), name: "generated")
        var events: [AnalysisEvent] = []
        while let e = try source.next() { events.append(e) }
        let bytes = try Self.archive(events, flushPolicy: FlushPolicy(flushBytes: 16 << 10, frameBytes: 64 << 10))
        let r = try Self.bothReports(bytes, name: "generated")
        #expect(r.one == r.pipelined)
        #expect(r.one.summary.messages >= 20_000 && !r.one.findings.isEmpty)
        var inputs = [Array(bytes.prefix(bytes.count / 2)), Array(bytes.prefix(bytes.count - 3))]
        var state: UInt64 = 0x919E
        for _ in 0..<4 {
            var damaged = bytes
            for _ in 0..<2 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                damaged[Int((state >> 33) % UInt64(bytes.count - 200)) + 100] ^= 0x04
            }
            inputs.append(damaged)
        }
        for (n, input) in inputs.enumerated() {
            let d = try Self.bothReports(input, name: "damaged")
            #expect(d.one == d.pipelined, "damaged copy \(n)")
            #expect(d.one.countsBySlug["capture-error", default: 0] + d.one.countsBySlug["capture-gap", default: 0] > 0, "damaged copy \(n)")
        }
    }

    /// Far more message bytes than the chunks in flight hold, in many runs: the reading
    /// thread waits for the analysis, and every record arrives in order.
    @Test func aLongArchiveIsHandedOverInOrder() throws {
        var b = TapBuilder()
        b.hostEvent(0, "host.ready")
        b.request(1, "q", "capability.query")
        b.response(2, "q", "capability.query", data: #"{"environment":"ios","hostVersion":"1","capabilities":{}}"#)
        let image = String(repeating: "QUJD", count: 6_000)
        for i in 0..<1_500 {
            b.request(Int64(10 + 10 * i), "d\(i)", "camera.document.capture", data: #"{"documentType":"passport","side":"front"}"#)
            b.response(Int64(15 + 10 * i), "d\(i)", "camera.document.capture",
                       data: "{\"imageData\":\"\(image)\",\"width\":1,\"height\":1,\"mimeType\":\"image/png\"}")
        }
        b.request(20_000, "last", "nfc.read")
        var source = TapLogSource(bytes: Array(b.lines.joined(separator: "\n").utf8))
        var events: [AnalysisEvent] = []
        while let e = try source.next() { events.append(e) }
        let r = try Self.bothReports(try Self.archive(events), name: "long")
        #expect(r.one == r.pipelined)
        #expect(r.pipelined.summary.messages == 3_004 && r.pipelined.summary.bytes > 36_000_000)
        #expect(r.pipelined.countsBySlug == ["unanswered-request": 1, "journey-incomplete": 1])
        #expect(r.pipelined.findings.first { $0.slug == "unanswered-request" }?.records == [3_004])
    }

    /// What `analyze` runs: one input and two jobs reads ahead; the report is that of one job.
    @Test func oneInputWithTwoJobsReadsAheadAndAgrees() async throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.bsz").path
        try Archives.write(try Archives.events(ofTapLog: Fixtures.path(Fixtures.names[0])), to: path)
        let one = await BatchAnalyzer(jobs: 1).run([path])
        let two = await BatchAnalyzer(jobs: 2).run([path])
        #expect(one.reports == two.reports && two.reports.count == 1)
        let missing = await BatchAnalyzer(jobs: 2).run([dir.appendingPathComponent("nonexistent.bsz").path])
        #expect(missing.failures.first?.error.code == .unreadableInput)
    }
}
