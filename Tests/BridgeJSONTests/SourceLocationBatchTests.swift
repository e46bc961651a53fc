import BridgeJSON
import Testing

/// `SourceLocation.locate` (one pass) gives what one `init(offset:in:)` per offset gives.
struct SourceLocationBatchTests {
    @Test func agreesWithOneScanPerOffset() {
        var rng = SplitMix64(state: 0xC0FFEE)
        let alphabet: [UInt8] = [0x0A, 0x0D, 0x20, 0x61, 0x7B, 0x22]
        for _ in 0..<200 {
            let bytes = (0..<Int(rng.next() % 300)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            let offsets = (0..<Int(rng.next() % 20)).map { _ in Int(rng.next() % UInt64(bytes.count + 5)) - 2 }
            bytes.withUnsafeBytes { b in
                let batch = SourceLocation.locate(offsets, in: b)
                #expect(batch == offsets.map { SourceLocation(offset: $0, in: b) }, "\(bytes) \(offsets)")
            }
        }
    }
}
