import BridgeArchive
import Testing

@Suite("Flush policy: 64 KiB flushes; frames end after 200 ms or 1 MiB")
struct FlushPolicyTests {
    @Test("the documented defaults")
    func defaults() {
        let p = FlushPolicy()
        #expect(p.flushBytes == 65_536)
        #expect(p.flushInterval == 200_000_000)
        #expect(p.frameBytes == 1_048_576)
        #expect(ArchiveWriterOptions().compressionLevel == 1)
    }

    @Test("a flush is due once 64 KiB wait")
    func bytes() {
        var p = FlushPolicy()
        #expect(p.didWrite(bytes: 65_535, now: 0) == .none)
        #expect(p.didWrite(bytes: 1, now: 0) == .flush)
        p.did(.flush)
        #expect(p.unflushedBytes == 0)
        #expect(p.deadline == nil)
        #expect(p.due(now: 10_000_000_000) == .none, "nothing waits, so nothing is due")
    }

    @Test("the frame ends 200 ms after the oldest waiting line, not after the last one")
    func time() {
        var p = FlushPolicy()
        let ms: UInt64 = 1_000_000
        #expect(p.didWrite(bytes: 10, now: 1000 * ms) == .none)
        #expect(p.deadline == 1200 * ms)
        #expect(p.didWrite(bytes: 10, now: 1150 * ms) == .none)
        #expect(p.deadline == 1200 * ms)
        #expect(p.due(now: 1199 * ms) == .none)
        #expect(p.due(now: 1200 * ms) == .endFrame)
        #expect(p.didWrite(bytes: 10, now: 1300 * ms) == .endFrame, "checked on write too")
        p.did(.endFrame)
        #expect(p.frameFill == 0)
        #expect(p.didWrite(bytes: 10, now: 1301 * ms) == .none)
        #expect(p.deadline == 1501 * ms)
    }

    @Test("the frame ends at the first line boundary after 1 MiB; the flush counter restarts")
    func frames() {
        var p = FlushPolicy()
        var actions: [FlushPolicy.Action] = []
        for _ in 0..<70 {
            let a = p.didWrite(bytes: 64 << 10, now: 0)
            actions.append(a)
            p.did(a)
        }
        #expect(actions.filter { $0 == .endFrame }.count == 4)
        #expect(actions.firstIndex(of: .endFrame) == 15, "16 lines of 64 KiB = 1 MiB")
        #expect(p.frameFill == 6 * (64 << 10))
    }

    @Test("writer: nothing reaches the file until the flush is due by time (injected clock)")
    func writerTime() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("t.bsz")
        let clock = ManualClock()
        let writer = try ArchiveWriter(path: path, header: Sessions.header, clock: clock.clock)
        let afterHeader = readFile(path).count
        #expect(afterHeader == writer.statistics.compressedBytes && afterHeader > 0, "the header is flushed at once")
        try writer.append(time: 1, direction: .webToHost, connection: "c", payload: Array(#"{"a":1}"#.utf8))
        #expect(readFile(path).count == afterHeader, "a small record waits in the compressor")
        #expect(try Self.readable(path) == 0)
        clock.advance(milliseconds: 199)
        try writer.flushIfDue()
        #expect(readFile(path).count == afterHeader)
        clock.advance(milliseconds: 1)
        try writer.flushIfDue()
        #expect(readFile(path).count > afterHeader)
        #expect(try Self.readable(path) == 1)
        #expect(writer.statistics.flushes + writer.statistics.frames == 2, "the header's flush, then a frame end")

        // Checked on write: a record written 300 ms after the oldest waiting one flushes both.
        try writer.append(time: 2, direction: .webToHost, connection: "c", payload: Array("[2]".utf8))
        clock.advance(milliseconds: 300)
        #expect(writer.flushDeadline != nil)
        try writer.append(time: 3, direction: .webToHost, connection: "c", payload: Array("[3]".utf8))
        #expect(try Self.readable(path) == 3)
        #expect(writer.flushDeadline == nil)
    }

    @Test("writer: 64 KiB of records are flushed without any time passing")
    func writerBytes() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("b.bsz")
        let clock = ManualClock()
        let writer = try ArchiveWriter(path: path, header: Sessions.header, clock: clock.clock)
        let payload = Array(#"{"pad":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 1000) + Array(#""}"#.utf8)
        var count = 0
        var flushedAt = 0
        while flushedAt == 0 {
            try writer.append(time: Int64(count), direction: .hostToWeb, connection: "c", payload: payload)
            count += 1
            if writer.statistics.flushes > 1 { flushedAt = count }
            #expect(count < 100)
        }
        let lineBytes = writer.statistics.uncompressedBytes
        #expect(lineBytes >= 65_536 && lineBytes < 65_536 + 1100, "\(lineBytes)")
        #expect(try Self.readable(path) == flushedAt)
    }

    @Test("writer: frames end every frameBytes, at line boundaries, and each frame decodes alone")
    func writerFrames() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("f.bsz")
        let options = ArchiveWriterOptions(flushPolicy: FlushPolicy(frameBytes: 32 << 10))
        try Sessions.write(to: path, count: 1500, options: options)
        let bytes = readFile(path)
        let (_, starts) = try DamageTests.frameMap(bytes)
        let uncompressed = ArchiveLineReaderTests.lines(of: path).reduce(0) { $0 + $1.utf8.count + 1 }
        #expect(starts.count >= uncompressed / (32 << 10), "\(starts.count) frames for \(uncompressed) bytes")
        for (i, start) in starts.enumerated() {
            let end = i + 1 < starts.count ? starts[i + 1] : bytes.count
            let lines = try ArchiveLineReader(source: MemoryByteSource(Array(bytes[start..<end])))
            var findings: [ArchiveFinding] = []
            var count = 0
            while let item = lines.next() {
                switch item {
                case .line: count += 1
                case .finding(let f): findings.append(f)
                }
            }
            #expect(findings.isEmpty, "frame \(i) at \(start): \(findings)")
            #expect(count > 0)
        }
    }

    /// Records readable from the file as it is now.
    static func readable(_ path: String) throws -> Int {
        try ArchiveReader(path: path).drain().records.count
    }
}

@Suite("Writer frames with the default policy")
struct DefaultFrameTests {
    @Test("with defaults, frames end every 1 MiB and finish() ends the last")
    func oneMiB() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("big.bsz")
        let writer = try ArchiveWriter(path: path, header: Sessions.header)
        let payload = Array(#"{"pad":""#.utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: 64 << 10) + Array(#""}"#.utf8)
        for i in 0..<70 {
            try writer.append(time: Int64(i), direction: .webToHost, connection: "c", payload: payload)
        }
        #expect(writer.statistics.frames == 4)
        try writer.finish(endTime: 99)
        #expect(writer.statistics.frames == 5)
        let (_, starts) = try DamageTests.frameMap(readFile(path))
        #expect(starts.count == 5)
        #expect(try ArchiveReader(path: path).drain().records.count == 70)
    }
}
