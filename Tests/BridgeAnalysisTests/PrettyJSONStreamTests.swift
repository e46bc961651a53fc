@testable import BridgeAnalysis
import Testing

/// The JSON stream's number writers give what `String(_:)` and `Format.ms(micros:)`
/// give, which the tree renderer writes.
struct PrettyJSONStreamTests {
    static let values: [Int64] = [0, 1, -1, 9, 10, 99, 100, 999, 1_000, 1_001, 1_010, 1_100, 12_345, -12_345, 1_000_000,
                                  1_795_000_000_000_065_435, Int64.max, Int64.min + 1, -999, -1_000, 45, -45]

    @Test func integersAreWrittenAsStringWritesThem() {
        for v in Self.values {
            var s = PrettyJSONStream()
            s.decimal(v)
            #expect(String(decoding: s.bytes, as: UTF8.self) == String(v))
        }
    }

    @Test func millisecondsAreWrittenAsFormatWritesThem() {
        for v in Self.values + [nil] {
            var s = PrettyJSONStream()
            s.milliseconds("k", micros: v, indent: 0)
            let expected = "\"k\": " + (v.map { Format.ms(micros: $0) } ?? "null") + ",\n"
            #expect(String(decoding: s.bytes, as: UTF8.self) == expected, "\(String(describing: v))")
        }
    }
}
