@testable import BridgeArchive
import Testing

/// `ArchiveLineReader(sharedLines: true)` (what `cat` and `export --jsonl` read with)
/// hands out the same items as the reader with an array per line: on an intact
/// archive, on archives with flipped bits and cut short (with and without salvage),
/// and with a line limit that skips long lines.
@Suite struct SharedLinesTests {
    static func items(_ bytes: [UInt8], shared: Bool, salvage: Bool = false, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes) throws -> [ArchiveLineReader.Item] {
        let reader = try ArchiveLineReader(source: MemoryByteSource(bytes), maxLineBytes: maxLineBytes, salvage: salvage, sharedLines: shared)
        var out: [ArchiveLineReader.Item] = []
        while let item = reader.next() { out.append(item) }
        return out
    }

    @Test("shared and unshared lines agree on intact, damaged, truncated and over-long input")
    func sameItems() throws {
        let (bytes, _) = try DamageTests.largeArchive(records: 3000)
        var inputs: [[UInt8]] = [bytes, Array(bytes.prefix(bytes.count / 2)), Array(bytes.prefix(bytes.count - 7))]
        inputs += bitFlippedCopies(of: bytes, count: 12, seed: 0x5EA1)
        for (n, input) in inputs.enumerated() {
            for salvage in [false, true] {
                for limit in [BridgeArchiveFormat.maxLineBytes, 120] {
                    let plain = try Self.items(input, shared: false, salvage: salvage, maxLineBytes: limit)
                    let shared = try Self.items(input, shared: true, salvage: salvage, maxLineBytes: limit)
                    #expect(plain == shared, "input \(n), salvage \(salvage), limit \(limit)")
                    #expect(!plain.isEmpty)
                }
            }
        }
    }

    @Test("a line kept by the consumer stays intact when the buffer is reused")
    func keptLinesStayIntact() throws {
        let (bytes, _) = try DamageTests.largeArchive(records: 3000)
        let plain = try Self.items(bytes, shared: false)
        let shared = try Self.items(bytes, shared: true)  // every line kept while reading on
        #expect(plain == shared)
        if case .line(let l)? = shared.last { #expect(!l.slice.isEmpty) }
    }
}
