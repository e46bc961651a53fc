@testable import BridgeAnalysis
import BridgeProtocol
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

    /// A member's key is `"key": ` after `indent` spaces, whether it is built in the fixed
    /// stack buffer (up to 64 bytes) or in a temporary allocation (longer).
    @Test func memberKeysAreTheSameInEitherBuffer() {
        for indent in 0...80 {
            var s = PrettyJSONStream()
            s.memberKey("acknowledgedMs", indent: indent)
            #expect(String(decoding: s.bytes, as: UTF8.self) == String(repeating: " ", count: indent) + "\"acknowledgedMs\": ", "indent \(indent)")
        }
    }

    /// Records and rule ids are written as arrays on one line.
    @Test func scalarsAndStringsOnOneLine() {
        var s = PrettyJSONStream()
        s.scalars([])
        s.scalars([7, -1, 12_345])
        s.strings([RuleID.lateResponse, RuleID.busyViolation])
        #expect(String(decoding: s.bytes, as: UTF8.self) == #"[][7, -1, 12345]["\#(RuleID.lateResponse.rawValue)", "\#(RuleID.busyViolation.rawValue)"]"#)
    }
}
