@_spi(Testing) import BridgeArchive
import Testing

@Suite("Frame index: seek points without decompressing")
struct FrameIndexTests {
    @Test("the index lists the frames the writer ended, and reading can start at any of them")
    func seek() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("f.bsz")
        let options = ArchiveWriterOptions(flushPolicy: FlushPolicy(flushBytes: 8 << 10, frameBytes: 32 << 10))
        let written = try Sessions.write(to: path, count: 1200, options: options)
        let bytes = readFile(path)
        let (frames, problem) = try ArchiveFrameIndex.scan(path: path)
        #expect(problem == nil)
        #expect(frames == ArchiveFrameIndex.scan(bytes: bytes).frames)
        let (_, starts) = try DamageTests.frameMap(bytes)
        #expect(frames.map(\.offset) == starts)
        #expect(frames.reduce(0) { $0 + $1.length } == bytes.count)

        // Start at the fourth frame: its first line is a whole record line.
        let lines = try ArchiveLineReader(source: FileByteSource(path: path, offset: frames[3].offset))
        guard case .line(let first)? = lines.next() else { Issue.record("no line"); return }
        let entry = try ArchiveLineDecoder().decode(first.bytes)
        guard case .record(let r) = entry else { Issue.record("not a record: \(entry)"); return }
        #expect(written[r.seq - 1] == r)
    }

    @Test("truncated and foreign bytes stop the walk with a reason; skippable frames are listed")
    func problems() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("s.bsz")
        try Sessions.write(to: path, count: 20)
        let bytes = readFile(path)
        let cut = ArchiveFrameIndex.scan(bytes: Array(bytes.dropLast(3)))
        #expect(cut.frames.isEmpty)
        #expect(cut.problem?.contains("truncated") == true)
        let skippable: [UInt8] = [0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3]
        let mixed = ArchiveFrameIndex.scan(bytes: skippable + bytes + [0x00, 0x01, 0x02, 0x03])
        #expect(mixed.frames.map(\.isSkippable) == [true, false])
        #expect(mixed.problem == "no zstd frame magic number at byte \(11 + bytes.count)")
        // zstd itself skips skippable frames: the archive still reads.
        #expect(try ArchiveReader(source: MemoryByteSource(skippable + bytes)).drain().records.count == 20)
    }
}
