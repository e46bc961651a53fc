@_spi(Testing) import BridgeArchive
import Testing

@Suite("Damaged archives: every complete line is recovered, the damage is reported")
struct DamageTests {
    /// A small archive flushed after every record; returns the bytes, the records and
    /// the file size after each record's flush (the point from which it is readable).
    static func smallArchive() throws -> (bytes: [UInt8], records: [ArchiveRecord], readableAt: [Int], headerAt: Int) {
        let dir = TemporaryDirectory()
        let path = dir.file("small.bsz")
        var readableAt: [Int] = []
        var headerAt = 0
        var first = true
        let records = try Sessions.write(to: path, count: 12, flushEach: true) { w in
            if first { first = false }
            readableAt.append(w.statistics.compressedBytes)
        }
        // The header is flushed by the initializer; its size is where record 1's data starts.
        let probe = dir.file("probe.bsz")
        let w = try ArchiveWriter(path: probe, header: Sessions.header)
        headerAt = w.statistics.compressedBytes
        return (readFile(path), records, readableAt, headerAt)
    }

    @Test("truncated at every offset: no crash, the records before the cut come back exact, the loss is reported")
    func truncateEverywhere() throws {
        let (bytes, records, readableAt, headerAt) = try Self.smallArchive()
        #expect(bytes.count > 1000 && bytes.count < 20_000)
        var previous = 0
        for cut in 0...bytes.count {
            let prefix = Array(bytes[0..<cut])
            let reader: ArchiveReader
            do {
                reader = try ArchiveReader(source: MemoryByteSource(prefix))
            } catch {
                // Only a cut inside the header's own flush may make the file unreadable.
                #expect(cut < headerAt, "cut \(cut): \(error)")
                #expect(error.code == .notAnArchive, "cut \(cut): \(error)")
                continue
            }
            let (got, _, findings) = reader.drain()
            let mustHave = readableAt.filter { $0 <= cut }.count
            #expect(got.count >= mustHave, "cut \(cut): \(got.count) records, expected at least \(mustHave)")
            #expect(got.count >= previous || cut == bytes.count, "cut \(cut): fewer records than a shorter cut")
            #expect(Array(records.prefix(got.count)) == got, "cut \(cut): recovered records differ")
            if cut < bytes.count {
                #expect(!findings.isEmpty, "cut \(cut): the loss was not reported")
                #expect(findings.contains { $0.kind == .missingTrailer } == (reader.trailer == nil), "cut \(cut)")
                #expect(findings.allSatisfy { $0.lastSequence == got.last?.seq ?? 0 || $0.kind == .missingTrailer },
                        "cut \(cut): \(findings)")
            } else {
                #expect(findings.isEmpty, "\(findings)")
                #expect(got == records)
            }
            previous = got.count
        }
    }

    @Test("a truncated tail is reported with its compressed offset and the last good seq")
    func truncatedTailFinding() throws {
        let (bytes, records, readableAt, _) = try Self.smallArchive()
        let cut = readableAt[5] + 3
        let reader = try ArchiveReader(source: MemoryByteSource(Array(bytes[0..<cut])))
        let (got, _, findings) = reader.drain()
        #expect(got == Array(records.prefix(6)))
        let truncated = try #require(findings.first { $0.kind == .truncatedFrame })
        #expect(truncated.compressedOffset == cut)
        #expect(truncated.lastSequence == 6)
        #expect(findings.last?.kind == .missingTrailer)
    }

    /// A multi-frame archive (frames of 64 KiB of lines) of random-ish content.
    static func largeArchive(records: Int) throws -> (bytes: [UInt8], records: [ArchiveRecord]) {
        let dir = TemporaryDirectory()
        let path = dir.file("large.bsz")
        let options = ArchiveWriterOptions(flushPolicy: FlushPolicy(flushBytes: 16 << 10, frameBytes: 64 << 10))
        let written = try Sessions.write(to: path, count: records, seed: 7, options: options)
        return (readFile(path), written)
    }

    /// seq → offset of the frame its line ended in, and the frame starts, from a clean read.
    static func frameMap(_ bytes: [UInt8]) throws -> (frameOf: [Int: Int], starts: [Int]) {
        let reader = try ArchiveReader(source: MemoryByteSource(bytes))
        var frameOf: [Int: Int] = [:]
        while let (item, line) = reader.nextWithLine() {
            if case .record(let r) = item, let line { frameOf[r.seq] = line.frameOffset }
        }
        return (frameOf, Array(Set(frameOf.values)).sorted())
    }

    @Test("bytes flipped at random offsets of a large archive: no crash or hang, intact frames fully recovered, no silent damage")
    func randomFlips() throws {
        let (bytes, records) = try Self.largeArchive(records: 6000)
        #expect(bytes.count > 300_000, "archive is \(bytes.count) bytes")
        let (frameOf, starts) = try Self.frameMap(bytes)
        #expect(starts.count > 10)
        var rng = SeededRandom(seed: 0xB52F)
        for trial in 0..<12 {
            var damaged = bytes
            let flips = 1 + Int(rng.next() % 3)
            var firstFlip = Int.max
            for _ in 0..<flips {
                let at = Int(rng.next() % UInt64(bytes.count))
                damaged[at] ^= UInt8(1 + rng.next() % 255)
                firstFlip = min(firstFlip, at)
            }
            let reader: ArchiveReader
            do {
                reader = try ArchiveReader(source: MemoryByteSource(damaged))
            } catch {
                #expect(firstFlip < starts[1], "trial \(trial): only damage in the first frame may hide the header: \(error)")
                continue
            }
            let (got, _, findings) = reader.drain()
            let bySeq = Dictionary(got.map { ($0.seq, $0) }, uniquingKeysWith: { a, _ in a })
            // Every record in a frame that ends before the first flipped byte is back, exact.
            let nextStart = { (start: Int) -> Int in starts.first { $0 > start } ?? bytes.count }
            for r in records where nextStart(frameOf[r.seq]!) <= firstFlip {
                #expect(bySeq[r.seq] == r, "trial \(trial): record \(r.seq) before the damage at \(firstFlip) not recovered")
            }
            // Damage is never silent: either everything is identical, or there is a finding.
            if findings.isEmpty {
                #expect(got == records, "trial \(trial): records changed without a finding (flip at \(firstFlip))")
            }
        }
    }

    @Test("corruption inside one frame: reading resumes at the next frame")
    func resumeAfterCorruptFrame() throws {
        let (bytes, records) = try Self.largeArchive(records: 3000)
        let (frameOf, starts) = try Self.frameMap(bytes)
        try #require(starts.count >= 5)
        // Overwrite the middle of frame 3's compressed data with garbage.
        var damaged = bytes
        let from = starts[2] + (starts[3] - starts[2]) / 3
        for i in from..<from + 64 { damaged[i] = UInt8(truncatingIfNeeded: i &* 31) }
        let reader = try ArchiveReader(source: MemoryByteSource(damaged))
        let (got, _, findings) = reader.drain()
        let kinds = Set(findings.map(\.kind))
        #expect(kinds.contains(.corruptData) || kinds.contains(.checksumMismatch), "\(findings)")
        let gotSeqs = Set(got.map(\.seq))
        for r in records where frameOf[r.seq]! >= starts[3] {
            #expect(gotSeqs.contains(r.seq), "record \(r.seq) of a later frame was not recovered")
        }
        for r in records where frameOf[r.seq]! < starts[2] {
            #expect(got.first { $0.seq == r.seq } == r)
        }
        #expect(reader.trailer != nil)
        #expect(kinds.contains(.countMismatch) || got.count == records.count)
    }

    @Test("not an archive, empty, garbage: a clear error, never a crash")
    func notArchives() {
        let inputs: [(String, [UInt8])] = [
            ("empty", []),
            ("plain text", Array("hello\n".utf8)),
            ("zstd magic then garbage", [0x28, 0xB5, 0x2F, 0xFD, 0xFF, 0xFF, 0xFF]),
            ("a zstd frame of something else", ArchiveTesting.compressLines(["{\"hello\":1}"])),
            ("a zstd frame of not-JSON", ArchiveTesting.compressLines(["PK\u{3}\u{4}"])),
        ]
        for (name, bytes) in inputs {
            #expect(throws: ArchiveError.self, "\(name)") { try ArchiveReader(source: MemoryByteSource(bytes)) }
            do {
                _ = try ArchiveReader(source: MemoryByteSource(bytes))
            } catch {
                #expect(error.code == .notAnArchive, "\(name): \(error)")
            }
        }
    }
}
