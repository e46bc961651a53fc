@testable import BridgeArchive
import Testing

/// Issue 20: one flipped bit used to wipe a single-frame archive, and a flip in a
/// multi-frame archive made `cat` print records that were never recorded (zstd output
/// handed out before the frame's checksum was checked). Now a frame's lines are released
/// only once its checksum is verified; damage costs the frames it touches, nothing more.
@Suite struct BitFlipTests {
    @Test("30 archives with 1-4 random bit flips: no record that was not recorded, loss within the damaged frames")
    func randomBitFlips() throws {
        let (bytes, records) = try DamageTests.largeArchive(records: 3000)
        let (frameOf, starts) = try DamageTests.frameMap(bytes)
        try #require(starts.count > 10)
        let written = Dictionary(uniqueKeysWithValues: records.map { ($0.seq, $0) })
        var rng = SeededRandom(seed: 0xF11B)
        var trials = 0, totalLost = 0
        while trials < 30 {
            var damaged = bytes
            var frames = Set<Int>()
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                // Past the first frame, which holds the header (without it there is no archive).
                let at = starts[1] + Int(rng.next() % UInt64(bytes.count - starts[1]))
                damaged[at] ^= UInt8(1) << UInt8(rng.next() % 8)
                frames.insert(starts.last { $0 <= at }!)
            }
            trials += 1
            let (got, _, findings) = try ArchiveReader(source: MemoryByteSource(damaged)).drain()
            for r in got {
                #expect(written[r.seq] == r, "trial \(trials): record \(r.seq) was never recorded like this")
            }
            // A damaged frame can also hide the magic of the frame after it: count that one too.
            let next = { (start: Int) -> Int? in starts.first { $0 > start } }
            let allowed = frames.union(frames.compactMap(next))
            let bySeq = Set(got.map(\.seq))
            let lost = records.filter { !bySeq.contains($0.seq) }
            for r in lost {
                #expect(allowed.contains(frameOf[r.seq]!), "trial \(trials): record \(r.seq) lost outside the damaged frames \(frames.sorted())")
            }
            totalLost += lost.count
            if got.count < records.count {
                #expect(!findings.isEmpty, "trial \(trials): records lost without a finding")
            }
        }
        #expect(totalLost < records.count * 30 / 2, "lost \(totalLost) records over 30 trials")
    }

    @Test("a flipped bit in a small recording costs one of its frames, not the session")
    func smallRecordingIsSeveralFrames() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("small.bsz")
        let clock = ManualClock()
        let writer = try ArchiveWriter(path: path, header: Sessions.header, clock: clock.clock)
        for i in 0..<40 {
            try writer.append(time: Int64(i), direction: .webToHost, connection: "c", payload: Array("[\(i)]".utf8))
            clock.advance(milliseconds: 50)
            try writer.flushIfDue()
        }
        try writer.finish(endTime: 99)
        let bytes = readFile(path)
        let (_, starts) = try DamageTests.frameMap(bytes)
        #expect(starts.count >= 8, "a 2 s recording at 20 msg/s is \(starts.count) frames")
        var damaged = bytes
        let middle = starts[starts.count / 2]
        damaged[middle + 8] ^= 0x10
        let (got, _, findings) = try ArchiveReader(source: MemoryByteSource(damaged)).drain()
        #expect(got.count >= 30, "only \(got.count) of 40 records survived one flipped bit")
        #expect(!findings.isEmpty)
    }

    /// libzstd checks the checksum at the frame's end and then reports nothing of what
    /// that last call decoded, so salvage gets the lines decoded before it: frames larger
    /// than one output buffer (128 KiB) here.
    @Test("salvage hands out a damaged frame's lines, marked; the default leaves them out")
    func salvageMarksUnverifiedLines() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("salvage.bsz")
        let options = ArchiveWriterOptions(flushPolicy: FlushPolicy(flushBytes: 16 << 10, frameBytes: 512 << 10))
        let records = try Sessions.write(to: path, count: 4000, seed: 7, options: options)
        let bytes = readFile(path)
        let (_, starts) = try DamageTests.frameMap(bytes)
        try #require(starts.count >= 3)
        var damaged = bytes
        // The last bytes of a frame before the next one: its checksum.
        damaged[starts[2] - 1] ^= 0x01
        let plain = try ArchiveReader(source: MemoryByteSource(damaged)).drain()
        let findings = plain.findings.filter { $0.kind == .checksumMismatch }
        #expect(findings.count == 1, "\(plain.findings)")
        #expect(plain.records.count < records.count)
        let reader = try ArchiveReader(source: MemoryByteSource(damaged), salvage: true)
        var unverified = 0, total = 0
        while let (item, line) = reader.nextWithLine() {
            if case .record = item {
                total += 1
                if line?.verified == false { unverified += 1 }
            }
        }
        #expect(unverified > 0, "salvage hands out the lines decoded before the damage was found")
        #expect(total == plain.records.count + unverified)
        #expect(total <= records.count)
        #expect(Array(ArchiveCat.marked(ArchiveLine(number: 2, bytes: Array(#"{"seq":1}"#.utf8), frameOffset: 0, verified: false)))
            == Array(#"{"unverified":true,"seq":1}"#.utf8))
    }
}
