import BridgeArchive
import Foundation
import Testing

/// The built `bridgescope` executable: next to the test bundle (SwiftPM puts both in
/// the same build directory), else `.build/debug/bridgescope` under the package root.
enum BuiltTool {
    static let path: String? = {
        let fm = FileManager.default
        var candidates: [String] = []
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(bundleDir.appendingPathComponent("bridgescope").path)
        candidates.append(bundleDir.deletingLastPathComponent().appendingPathComponent("bridgescope").path)
        candidates.append(Paths.packageRoot + "/.build/debug/bridgescope")
        return candidates.first { fm.isExecutableFile(atPath: $0) }
    }()

    static func launch(_ args: [String], stdin: Pipe? = nil) throws -> (Process, Pipe) {
        guard let path else { throw ToolMissing() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        if let stdin { p.standardInput = stdin }
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        return (p, err)
    }

    struct ToolMissing: Error, CustomStringConvertible {
        var description: String { "the bridgescope executable was not found: run `swift build` first" }
    }
}

@Suite("bridgescope record as a process: crash safety and clean stops", .serialized)
struct RecorderProcessTests {
    static func tapLine(_ i: Int) -> String {
        #"{"t":\#(1_700_000_000_000 + i),"dir":"\#(i % 2 == 0 ? "w2h" : "h2w")","conn":"c\#(i % 2)","msg":{"version":"1.0","correlationId":"id-\#(i)","type":"event","timestamp":\#(1_700_000_000_000 + i),"payload":{"action":"journey.progress","data":{"step":\#(i)}}}}"#
    }

    static func expectedPayload(_ i: Int) -> [UInt8] {
        let line = tapLine(i)
        let start = line.range(of: #""msg":"#)!.upperBound
        return Array(line[start...].dropLast().utf8)
    }

    /// Issue 20: at 100 msg/s a SIGKILL lost 262-273 ms of messages against the 250 ms
    /// promised. A steady stream for 1.5 s, then SIGKILL: every message sent 250 ms or
    /// more before the kill is in the archive. Best of three on a loaded machine (the
    /// recorder's wake-up is the operating system's to give).
    @Test("SIGKILL during a steady stream loses no message older than 250 ms", arguments: [100, 500])
    func steadyStreamLosesAtMost250ms(rate: Int) throws {
        try #require(BuiltTool.path != nil, "\(BuiltTool.ToolMissing())")
        let dir = TemporaryDirectory()
        var failures: [String] = []
        for attempt in 0..<3 {
            let out = dir.file("steady-\(rate)-\(attempt).bsz")
            let stdin = Pipe()
            let (process, _) = try BuiltTool.launch(["record", "-o", out, "--tap", "-"], stdin: stdin)
            usleep(300_000)
            let interval = UInt64(1_000_000_000 / rate)
            let start = DispatchTime.now().uptimeNanoseconds
            var sentAt: [UInt64] = []
            while DispatchTime.now().uptimeNanoseconds - start < 1_500_000_000 {
                let due = start + UInt64(sentAt.count) * interval
                let now = DispatchTime.now().uptimeNanoseconds
                if now < due { usleep(UInt32((due - now) / 1000)) }
                stdin.fileHandleForWriting.write(Data((Self.tapLine(sentAt.count) + "\n").utf8))
                sentAt.append(DispatchTime.now().uptimeNanoseconds)
            }
            let killedAt = DispatchTime.now().uptimeNanoseconds
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? stdin.fileHandleForWriting.close()
            let records = try ArchiveReader(path: out).drain().records
            let mustHave = sentAt.filter { killedAt - $0 >= 250_000_000 }.count
            for (i, r) in records.enumerated() where r.payload != Self.expectedPayload(i) {
                Issue.record("record \(i) is not what was sent")
                break
            }
            if records.count >= mustHave { return }
            failures.append("attempt \(attempt): \(records.count) of \(sentAt.count) recovered; \(mustHave) were sent 250 ms or more before the kill")
        }
        Issue.record("\(rate) msg/s: \(failures.joined(separator: "; "))")
    }

    @Test("SIGKILL mid-stream: every record sent before the last flush is recovered, the tail is reported")
    func sigkill() throws {
        try #require(BuiltTool.path != nil, "\(BuiltTool.ToolMissing())")
        let dir = TemporaryDirectory()
        let out = dir.file("killed.bsz")
        let stdin = Pipe()
        let (process, _) = try BuiltTool.launch(["record", "-o", out, "--tap", "-"], stdin: stdin)
        // About 23 KB: under the 64 KiB rule, so only the 250 ms rule can flush it.
        let first = 100
        stdin.fileHandleForWriting.write(Data((0..<first).map { Self.tapLine($0) + "\n" }.joined().utf8))
        // Wait > 250 ms with no more input; then (on a loaded machine) until the recorder
        // got to it: the records must become readable while the process is still running.
        usleep(400_000)
        var readable = 0
        for _ in 0..<100 where readable < first {
            readable = (try? ArchiveReader(path: out).drain().records.count) ?? 0
            if readable < first { usleep(50_000) }
        }
        #expect(readable == first, "the idle recorder did not flush")
        // A second burst right before the kill may or may not make it.
        stdin.fileHandleForWriting.write(Data((first..<first + 50).map { Self.tapLine($0) + "\n" }.joined().utf8))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        try? stdin.fileHandleForWriting.close()

        let reader = try ArchiveReader(path: out)
        #expect(reader.header.source == "tap:-")
        let (records, events, findings) = reader.drain()
        #expect(events.isEmpty)
        #expect(records.count >= first, "only \(records.count) of \(first) records recovered")
        #expect(records.count <= first + 50)
        for (i, r) in records.enumerated() {
            #expect(r.payload == Self.expectedPayload(i), "record \(i)")
            #expect(r.seq == i + 1)
        }
        #expect(reader.trailer == nil)
        #expect(findings.last?.kind == .missingTrailer)
        // Frames end at every time-driven flush, so the file may end at a frame boundary
        // (only the trailer is missing) or inside the frame the kill cut.
        #expect(findings.allSatisfy { [.truncatedFrame, .partialLine, .missingTrailer].contains($0.kind) }, "\(findings)")
    }

    @Test("SIGTERM finishes the archive cleanly, with its trailer")
    func sigterm() throws {
        try #require(BuiltTool.path != nil, "\(BuiltTool.ToolMissing())")
        let dir = TemporaryDirectory()
        let out = dir.file("term.bsz")
        let stdin = Pipe()
        let (process, _) = try BuiltTool.launch(["record", "-o", out, "--tap", "-"], stdin: stdin)
        stdin.fileHandleForWriting.write(Data((0..<40).map { Self.tapLine($0) + "\n" }.joined().utf8))
        usleep(400_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        try? stdin.fileHandleForWriting.close()
        let reader = try ArchiveReader(path: out)
        let (records, _, findings) = reader.drain()
        #expect(findings.isEmpty, "\(findings)")
        #expect(records.count == 40)
        #expect(reader.trailer?.records == 40)
    }

    @Test("a tap file with bad lines: error events with line numbers, exit status 1; cat reads it back")
    func tapFile() throws {
        try #require(BuiltTool.path != nil, "\(BuiltTool.ToolMissing())")
        let dir = TemporaryDirectory()
        let tap = dir.file("tap.ndjson")
        let out = dir.file("tap.bsz")
        let text = [Self.tapLine(0), "garbage", Self.tapLine(1), #"{"t":1,"dir":"sideways","msg":{}}"#, Self.tapLine(2)]
            .joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: tap))
        let (process, _) = try BuiltTool.launch(["record", "-o", out, "--tap", tap])
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let reader = try ArchiveReader(path: out)
        let (records, events, findings) = reader.drain()
        #expect(findings.isEmpty)
        #expect(records.map(\.payload) == [0, 1, 2].map(Self.expectedPayload))
        #expect(events.map(\.kind) == [.error, .error])
        #expect(events.map(\.line) == [2, 4])
        #expect(reader.trailer?.errors == 2)

        let bin = BuiltTool.path!
        let (status, catOut, _) = try shell("'\(bin)' cat '\(out)'")
        #expect(status == 0)
        #expect(catOut == Data(ArchiveLineReaderTests.lines(of: out).map { $0 + "\n" }.joined().utf8))
        let (_, filtered, _) = try shell("'\(bin)' cat '\(out)' --dir h2w --format jsonl")
        #expect(String(decoding: filtered, as: UTF8.self).split(separator: "\n").count == 3, "header, one record, trailer")
        let (_, pretty, _) = try shell("'\(bin)' cat '\(out)' --format pretty --action journey.progress --type event")
        #expect(String(decoding: pretty, as: UTF8.self).split(separator: "\n").count == 5)
        let (badStatus, _, badErr) = try shell("'\(bin)' cat '\(dir.file("missing.bsz"))'")
        #expect(badStatus == 2)
        #expect(badErr.contains("No such file"))
    }
}
