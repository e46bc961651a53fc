import BridgeFuzz
import BridgeTestSupport
import Foundation
import Testing

/// The known differences between BridgeJSON and JSONSerialization, measured: every
/// JSONTestSuite file and a set of hand-written probes either agree or fall under a
/// documented difference (docs/FUZZING.md §"Known differences").
@Suite struct JSONAgreementTests {
    @Test func everyJSONTestSuiteFileAgreesOrIsAKnownDifference() throws {
        let suite = try ProjectPaths.fixture("JSONTestSuite/test_parsing")
        let names = try ProjectPaths.fixtureNames(in: "JSONTestSuite/test_parsing")
        #expect(names.count > 300)
        var byDifference: [String: [String]] = [:]
        for name in names {
            let data = try Data(contentsOf: suite.appendingPathComponent(name))
            let v = JSONAgreement.verdict([UInt8](data))
            if !v.agree {
                byDifference[v.explanation?.rawValue ?? "UNEXPLAINED", default: []].append(name)
            }
        }
        if ProcessInfo.processInfo.environment["BRIDGESCOPE_PRINT_AGREEMENT"] != nil {
            for (k, v) in byDifference.sorted(by: { $0.key < $1.key }) { print("\(k) \(v.count): \(v.joined(separator: " "))") }
        }
        #expect(byDifference["UNEXPLAINED"] == nil, "\(byDifference["UNEXPLAINED"] ?? [])")
    }

    /// Measured verdicts (BridgeJSON, JSONSerialization) that docs/FUZZING.md lists.
    @Test(arguments: [
        // Known differences.
        ("[1,]", "trailing-comma"), ("{\"a\":1,}", "trailing-comma"),
        (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nesting-limit"),
        (String(repeating: "[", count: 512) + String(repeating: "]", count: 512), "nesting-limit"),
        ("[1e309]", "number-range"), ("[1.7976931348623157e309]", "number-range"),
        ("\u{FEFF}[1]", "encoding-detection"),
        ("[0.\(String(repeating: "0", count: 1030))1]", "bridgejson-limits"),
        // Both reject.
        ("[\"\\ud800\"]", "agree"), ("[\"\\udc00\"]", "agree"), ("[\"a\u{0000}b\"]", "agree"), ("[1]\u{0000}", "agree"),
        (String(repeating: "[", count: 513) + String(repeating: "]", count: 513), "agree"),
        ("[01]", "agree"), ("[NaN]", "agree"), ("/**/[1]", "agree"), ("[\"\\x41\"]", "agree"), ("{a:1}", "agree"),
        // Both accept.
        ("{\"a\":1,\"a\":2}", "agree"), ("[123456789012345678901234567890]", "agree"), ("[1e-400]", "agree"),
        ("[-0]", "agree"), ("[\"\\u0000\"]", "agree"), ("[\"\u{FEFF}\"]", "agree"),
    ])
    func probe(_ text: String, _ expected: String) {
        let v = JSONAgreement.verdict(Array(text.utf8))
        #expect((v.agree ? "agree" : v.explanation?.rawValue ?? "UNEXPLAINED") == expected,
                "\(text.prefix(40)): BridgeJSON \(v.bridge.map { "\($0.code)" } ?? "accepts"), JSONSerialization \(v.foundationAccepted ? "accepts" : "rejects")")
    }

    @Test func invalidUTF8IsRejectedByBoth() {
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let v = JSONAgreement.verdict([0x5B, 0x22] + bad + [0x22, 0x5D])
            #expect(v.agree && v.bridge?.code == .invalidUTF8)
        }
    }
}
