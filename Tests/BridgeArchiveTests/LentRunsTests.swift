@_spi(Testing) @testable import BridgeArchive
import Testing

/// Runs lent out (``ArchiveLineReader/lendsRuns``, as ``ArchivePipeline`` reads): a run a
/// consumer keeps keeps its bytes while the reader goes on, whether it was handed back
/// or not, on intact, bit-flipped, truncated and one-big-frame archives; the lines are
/// those of a reader that lends nothing; and buffers handed back are used again rather
/// than new ones made for every frame.
@Suite struct LentRunsTests {
    /// Every plain record line's text, read with lending on: runs at even positions are
    /// handed back at the next run (as the pipeline does), the others kept to the end
    /// and only read then. Also how many different buffers the runs came from.
    static func lent(_ input: [UInt8], handBackAll: Bool = false) throws -> (texts: [String], buffers: Int) {
        let reader = try ArchiveReader(source: MemoryByteSource(input), sharedLines: true)
        reader.lines.lendsRuns = true
        var kept: [(run: ArraySlice<UInt8>, lines: [ArchiveReader.PlainLine], position: Int)] = []
        var texts: [Int: [String]] = [:]
        var toHandBack: [ArraySlice<UInt8>] = []
        var buffers = Set<UInt>()
        var position = 0
        func read(_ run: ArraySlice<UInt8>, _ lines: [ArchiveReader.PlainLine]) -> [String] {
            lines.map { String(decoding: run[(run.startIndex + $0.range.lowerBound)..<(run.startIndex + $0.range.upperBound)], as: UTF8.self) }
        }
        while try reader.nextReading(plain: { (run, lines) throws(ArchiveError) in
            if lines.isEmpty { return }
            for back in toHandBack { reader.lines.recycle(back) }
            toHandBack = []
            buffers.insert(run.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) - UInt(run.startIndex) })
            if handBackAll || position % 2 == 0 {
                texts[position] = read(run, lines)
                toHandBack.append(run)
            } else {
                kept.append((run, lines, position))
            }
            position += 1
        }) != nil {}
        for k in kept { texts[k.position] = read(k.run, k.lines) }
        return ((0..<position).flatMap { texts[$0]! }, buffers.count)
    }

    /// The same lines read by a reader that lends nothing.
    static func plain(_ input: [UInt8]) throws -> [String] {
        let reader = try ArchiveReader(source: MemoryByteSource(input), sharedLines: true)
        var texts: [String] = []
        while try reader.nextReading(plain: { (run, lines) throws(ArchiveError) in
            for l in lines {
                texts.append(String(decoding: run[(run.startIndex + l.range.lowerBound)..<(run.startIndex + l.range.upperBound)], as: UTF8.self))
            }
        }) != nil {}
        return texts
    }

    @Test("runs kept or handed back keep their bytes; the lines are a non-lending reader's")
    func keptRunsKeepTheirBytes() throws {
        let (large, _) = try DamageTests.largeArchive(records: 3000)
        var flipped = large
        flipped[large.count / 2] ^= 0x20
        let big = ArchiveTesting.compressLines([PlainRunTests.header] + (1...12_000).map {
            PlainRunTests.record($0, "c\($0 % 3)", id: String(repeating: "x", count: 40 + $0 % 200))
        })
        for input in [large, flipped, Array(large.prefix(large.count * 2 / 3)), big] {
            let expected = try Self.plain(input)
            #expect(expected.count > 1_000)
            #expect(try Self.lent(input).texts == expected)
            #expect(try Self.lent(input, handBackAll: true).texts == expected)
        }
    }

    @Test("buffers whose runs came back are used again")
    func buffersGoRound() throws {
        let (large, _) = try DamageTests.largeArchive(records: 20_000)
        let (texts, buffers) = try Self.lent(large, handBackAll: true)
        #expect(texts.count == 20_000)
        // Runs handed back one run late: two or three buffers go round, not one per run.
        #expect(buffers <= 4, "\(buffers) buffers")
        let (_, keptBuffers) = try Self.lent(large)
        // Half the runs kept: their buffers cannot be used again.
        #expect(keptBuffers > buffers)
    }
}
