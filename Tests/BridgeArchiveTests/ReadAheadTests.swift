@testable import BridgeArchive
import Dispatch
import Synchronization
import Foundation
import Testing

/// Decompression on a thread of its own (`readAhead`, what `cat`, `export` and
/// `analyze` use with a core to spare) hands out exactly the items of the reader that
/// decompresses on its own thread: on intact, truncated, bit-flipped, salvaged and
/// over-long input, with small rings that wrap often, and with a source that fails.
/// It does not hold back a live stream, and a reader dropped early lets its thread
/// and source go.
@Suite struct ReadAheadTests {
    static func items(_ source: any ArchiveByteSource, ring: (batchBytes: Int, slots: Int)?, shared: Bool = true,
                      salvage: Bool = false, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes,
                      maxHeldBytes: Int = 64 << 20) throws -> (items: [ArchiveLineReader.Item], offset: Int) {
        let reader = try ArchiveLineReader(source: source, maxLineBytes: maxLineBytes, maxWindowLog: 24, salvage: salvage,
                                           maxHeldBytes: maxHeldBytes, sharedLines: shared, ring: ring)
        #expect(reader.readAhead == (ring != nil))
        var out: [ArchiveLineReader.Item] = []
        while let item = reader.next() { out.append(item) }
        return (out, reader.compressedOffset)
    }

    /// A source that fails after `failAt` bytes.
    struct FailingSource: ArchiveByteSource {
        let name = "<failing>"
        var bytes: [UInt8]
        var failAt: Int
        var offset = 0

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
            guard offset < failAt else { throw ArchiveError(.io, path: name, "device gone") }
            let n = min(buffer.count, failAt - offset, 7_000)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
            offset += n
            return n
        }
    }

    static let rings: [(batchBytes: Int, slots: Int)?] = [nil, (0, 2), (ArchiveReadAhead.batchBytes, ArchiveReadAhead.slotCount)]

    @Test("read-ahead and the plain reader agree on intact, damaged, truncated, salvaged and over-long input")
    func sameItems() throws {
        let (bytes, _) = try DamageTests.largeArchive(records: 3000)
        var inputs: [[UInt8]] = [bytes, Array(bytes.prefix(bytes.count / 2)), Array(bytes.prefix(bytes.count - 7)), [], [1, 2, 3],
                                 Array(bytes.prefix(20_000)) + [UInt8](repeating: 0x28, count: 5_000) + Array(bytes.dropFirst(20_000))]
        inputs += bitFlippedCopies(of: bytes, count: 5, seed: 0xAEAD)
        // (salvage, line limit, hold limit, shared lines)
        let settings: [(Bool, Int, Int, Bool)] = [
            (false, BridgeArchiveFormat.maxLineBytes, 64 << 20, true), (true, BridgeArchiveFormat.maxLineBytes, 64 << 20, true),
            (false, 120, 64 << 20, true), (true, BridgeArchiveFormat.maxLineBytes, 2_000, true),
            (false, BridgeArchiveFormat.maxLineBytes, 64 << 20, false), (true, 120, 2_000, false),
        ]
        for (n, input) in inputs.enumerated() {
            for (salvage, limit, held, shared) in settings {
                let base = try Self.items(MemoryByteSource(input), ring: nil, shared: shared, salvage: salvage,
                                          maxLineBytes: limit, maxHeldBytes: held)
                for ring in Self.rings.dropFirst() {
                    let ahead = try Self.items(MemoryByteSource(input), ring: ring, shared: shared, salvage: salvage,
                                               maxLineBytes: limit, maxHeldBytes: held)
                    #expect(base.items == ahead.items, "input \(n), salvage \(salvage), limit \(limit), held \(held), ring \(ring!)")
                    #expect(base.offset == ahead.offset, "input \(n)")
                }
            }
        }
    }

    /// An archive of `lines` records whose lines are about `lineBytes` long.
    static func linesArchive(lines: Int, lineBytes: Int) throws -> [UInt8] {
        let dir = TemporaryDirectory()
        let path = dir.file("lines.bsz")
        let options = ArchiveWriterOptions(flushPolicy: FlushPolicy(flushBytes: 16 << 10, frameBytes: 64 << 10))
        let writer = try ArchiveWriter(path: path, header: Sessions.header, options: options)
        for n in 0..<lines {
            let payload = Array(#"{"n":\#(n),"pad":""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: max(0, lineBytes - 120))
                + Array(#""}"#.utf8)
            try writer.append(time: Sessions.header.startTime + Int64(n), direction: .webToHost, connection: "c1", payload: payload)
        }
        _ = try writer.finish()
        return readFile(path)
    }

    @Test("read-ahead for long lines: started after the decision bytes only where lines are long, the same items either way")
    func forLongLines() throws {
        let long = try Self.linesArchive(lines: 400, lineBytes: 3_000)
        let short = try Self.linesArchive(lines: 6_000, lineBytes: 200)
        let (damaged, _) = try DamageTests.largeArchive(records: 3000)
        var flipped = long
        flipped[long.count / 2] ^= 0x40
        for (name, input, starts) in [("long", long, true), ("short", short, false), ("long, bit flipped", flipped, true),
                                      ("long, truncated", Array(long.prefix(long.count * 2 / 3)), true),
                                      ("archive", damaged, false)] {
            for shared in [true, false] {
                let base = try Self.items(MemoryByteSource(input), ring: nil, shared: shared)
                let reader = try ArchiveLineReader(source: MemoryByteSource(input), maxLineBytes: BridgeArchiveFormat.maxLineBytes,
                                                   maxWindowLog: 24, salvage: false, maxHeldBytes: 64 << 20, sharedLines: shared,
                                                   ring: (0, 2), deferred: true, decisionBytes: 100_000)
                #expect(!reader.readAhead, "\(name): not before the decision")
                var items: [ArchiveLineReader.Item] = []
                while let item = reader.next() { items.append(item) }
                #expect(reader.readAhead == starts, "\(name)")
                #expect(items == base.items, "\(name), shared \(shared)")
                #expect(reader.compressedOffset == base.offset, "\(name)")
            }
        }
    }

    @Test("a source that fails, in a frame or while looking for the next one: the same findings with and without read-ahead")
    func failingSource() throws {
        let (bytes, _) = try DamageTests.largeArchive(records: 2000)
        var flipped = bytes
        flipped[bytes.count / 3] ^= 0x10
        for input in [bytes, flipped] {
            for failAt in [0, 5, 30_000, bytes.count / 3 + 100, bytes.count - 10] {
                let base = try Self.items(FailingSource(bytes: input, failAt: failAt), ring: nil)
                let ahead = try Self.items(FailingSource(bytes: input, failAt: failAt), ring: (0, 2))
                #expect(base.items == ahead.items, "fail at \(failAt)")
                #expect(base.offset == ahead.offset)
                guard case .finding(let last)? = base.items.last else {
                    Issue.record("no finding at the end (fail at \(failAt))")
                    continue
                }
                #expect(base.items.contains { if case .finding(let f) = $0 { f.message.contains("device gone") } else { false } },
                        "fail at \(failAt): \(last.message)")
            }
        }
    }

    /// Serves `bytes` up to `pause`, then blocks until `resume` is signalled.
    final class PausingSource: ArchiveByteSource, @unchecked Sendable {
        let name = "<pausing>"
        let bytes: [UInt8]
        let pause: Int
        var offset = 0
        let resume = DispatchSemaphore(value: 0)

        init(_ bytes: [UInt8], pause: Int) {
            self.bytes = bytes
            self.pause = pause
        }

        deinit {
            resume.signal()
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
            if offset == pause { resume.wait() }
            let end = offset < pause ? pause : bytes.count
            let n = min(buffer.count, end - offset)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
            offset += n
            return n
        }
    }

    @Test("a live stream is not held back: the lines of the frames already written come out while the source waits")
    func liveStream() throws {
        let (bytes, _) = try DamageTests.largeArchive(records: 3000)
        let (_, starts) = try DamageTests.frameMap(bytes)
        let pause = starts[starts.count / 2]
        let source = PausingSource(bytes, pause: pause)
        let reader = try ArchiveLineReader(source: source, readAhead: .on)
        #expect(reader.readAhead)
        // Every line of the frames before the pause is handed out while the source blocks.
        let base = try Self.items(MemoryByteSource(Array(bytes.prefix(pause))), ring: nil)
        let before = base.items.filter { if case .line = $0 { true } else { false } }
        for expected in before {
            #expect(reader.next() == expected)
        }
        source.resume.signal()
        var rest: [ArchiveLineReader.Item] = []
        while let item = reader.next() { rest.append(item) }
        let whole = try Self.items(MemoryByteSource(bytes), ring: nil)
        #expect(before + rest == whole.items)
    }

    /// A flag set from another thread.
    final class Flag: Sendable {
        let value = Mutex(false)
    }

    /// Says when it is freed.
    final class WatchedSource: ArchiveByteSource {
        let name = "<watched>"
        var inner: MemoryByteSource
        let gone: Flag

        init(_ bytes: [UInt8], gone: Flag) {
            inner = MemoryByteSource(bytes)
            self.gone = gone
        }

        deinit {
            gone.value.withLock { $0 = true }
        }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
            try inner.read(into: buffer)
        }
    }

    @Test("a reader dropped after a few lines lets its thread end and its source go")
    func droppedEarly() async throws {
        let (bytes, _) = try DamageTests.largeArchive(records: 3000)
        let gone = Flag()
        do {
            let reader = try ArchiveLineReader(source: WatchedSource(bytes, gone: gone), readAhead: .on)
            for _ in 0..<10 { _ = reader.next() }
        }
        for _ in 0..<3_000 where !gone.value.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(gone.value.withLock { $0 })
    }

    @Test("cat prints the same bytes and findings with read-ahead: intact, damaged, cut short, salvaged, pretty")
    func catAgrees() throws {
        let (bytes, _) = try DamageTests.largeArchive(records: 3000)
        var flipped = bytes
        flipped[bytes.count / 3] ^= 0x08
        let dir = TemporaryDirectory()
        for (n, input) in [bytes, flipped, Array(bytes.prefix(bytes.count * 3 / 4))].enumerated() {
            let archive = dir.file("in\(n).bsz")
            #expect(FileManager.default.createFile(atPath: archive, contents: Data(input)))
            for (format, salvage) in [(ArchiveCat.Format.jsonl, false), (.jsonl, true), (.pretty, false)] {
                var outputs: [[UInt8]] = [], findings: [[ArchiveFinding]] = []
                for readAhead in [false, true] {
                    let out = dir.file("out\(n)-\(readAhead)")
                    let fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                    #expect(fd >= 0)
                    findings.append(try ArchiveCat(format: format, salvage: salvage, readAhead: readAhead).run(path: archive, to: fd))
                    close(fd)
                    outputs.append(readFile(out))
                }
                #expect(outputs[0] == outputs[1], "input \(n), \(format), salvage \(salvage)")
                #expect(findings[0] == findings[1])
                #expect(outputs[0].count > 100_000)
                if n > 0 { #expect(!findings[0].isEmpty) }
            }
        }
    }
}
