@testable import BridgeAnalysis
import BridgeJSON
import Testing

/// How the two sides' records of a message are compared (``CrossingComparison``) and how
/// a two-sided connection id is read (``BridgeSide``).
struct CrossingComparisonTests {
    func differences(_ web: String, _ native: String) throws -> CrossingComparison {
        CrossingComparison(web: try JSONParser().parse(web).value, native: try JSONParser().parse(native).value)
    }

    @Test func memberOrderAloneIsNeverADifference() throws {
        #expect(try differences(#"{"a":1,"b":{"x":[1,{"p":true,"q":null}],"y":"s"}}"#,
                                #"{"b":{"y":"s","x":[1,{"q":null,"p":true}]},"a":1}"#).isEmpty)
    }

    @Test(arguments: [
        ("1", "1.0"), ("1", "1e0"), ("100", "1E2"), ("-0", "0"), ("0.1", "0.10000000000000001"),
        ("1.5", "15e-1"), ("9007199254740992", "9007199254740992.0"),
    ])
    func numbersCompareByValue(_ a: String, _ b: String) throws {
        #expect(try differences(#"{"n":\#(a)}"#, #"{"n":\#(b)}"#).isEmpty, "\(a) vs \(b)")
    }

    @Test(arguments: [
        ("12345678901234567890", "12345678901234567000"), ("9007199254740993", "9007199254740992"),
        ("0.1", "0.2"), ("1", "-1"), ("1", "\"1\""), ("true", "1"), ("null", "0"), ("{}", "[]"),
    ])
    func differentValuesAreNamedWithBoth(_ a: String, _ b: String) throws {
        let c = try differences(#"{"payload":{"data":{"n":\#(a)}}}"#, #"{"payload":{"data":{"n":\#(b)}}}"#)
        #expect(c.listed == ["payload.data.n: \(a) on the web side, \(b) on the native side"])
    }

    @Test func stringsCompareByteForByte() throws {
        // é precomposed and decomposed are different JSON strings.
        let c = try differences(#"{"s":"\u00e9"}"#, #"{"s":"e\u0301"}"#)
        #expect(c.total == 1)
        #expect(try differences(#"{"s":"\u00e9"}"#, #"{"s":"é"}"#).isEmpty)
    }

    @Test func missingAndAddedMembersAndElements() throws {
        let c = try differences(#"{"a":1,"b":[1,2,3],"d":{"e":1}}"#, #"{"b":[1,2],"c":true,"d":{}}"#)
        #expect(c.listed == [
            "a: 1 on the web side, missing on the native side",
            "b[2]: 3 on the web side, missing on the native side",
            "d.e: 1 on the web side, missing on the native side",
            "c: missing on the web side, true on the native side",
        ])
        let longer = try differences(#"[1]"#, #"[1,{"x":2}]"#)
        #expect(longer.listed == [#"[1]: missing on the web side, {"x":2} on the native side"#])
    }

    @Test func aDuplicateKeyPairsInOrder() throws {
        #expect(try differences(#"{"a":1,"a":2}"#, #"{"a":1,"a":2}"#).isEmpty)
        let c = try differences(#"{"a":1,"a":2}"#, #"{"a":1}"#)
        #expect(c.listed == ["a: 2 on the web side, missing on the native side"])
        let d = try differences(#"{"a":1}"#, #"{"a":1,"a":3}"#)
        #expect(d.listed == ["a: missing on the web side, 3 on the native side"])
    }

    @Test func pathsQuoteNamesThatAreNotIdentifiers() throws {
        let c = try differences(#"{"a b":{"1x":{"ok_$":1}},"\"":2}"#, #"{"a b":{"1x":{"ok_$":0}},"\"":3}"#)
        #expect(c.listed == [#"["a b"]["1x"].ok_$: 1 on the web side, 0 on the native side"#,
                             #"["\""]: 2 on the web side, 3 on the native side"#])
        let top = try differences("1", "2")
        #expect(top.listed == ["the message: 1 on the web side, 2 on the native side"])
    }

    @Test func longValuesAreCutAndManyDifferencesCounted() throws {
        let big = String(repeating: "é", count: 100)
        let c = try differences(#"{"s":"\#(big)"}"#, #"{"s":"x"}"#)
        let shown = try #require(c.listed.first)
        #expect(shown.hasPrefix("s: \"éé") && shown.contains("… on the web side"))
        #expect(shown.utf8.count < 200)
        let many = try differences("[" + (0..<20).map(String.init).joined(separator: ",") + "]",
                                   "[" + (0..<20).map { String($0 + 1) }.joined(separator: ",") + "]")
        #expect(many.total == 20 && many.listed.count == CrossingComparison.maxListed)
    }

    @Test func messagesThatAreNotJSONCompareAsBytes() {
        let same = CrossingComparison(webBytes: Array("not json".utf8), nativeBytes: Array("not json".utf8), webValue: nil, nativeValue: nil)
        #expect(same.isEmpty)
        let other = CrossingComparison(webBytes: Array("{bad".utf8), nativeBytes: Array("[1]".utf8), webValue: nil, nativeValue: .array([1]))
        #expect(other.listed == ["the message: {bad (not JSON) on the web side, [1] on the native side"])
    }

    @Test func twoSidedConnectionIds() {
        #expect(BridgeSide.split("x@web")! == ("x", .web))
        #expect(BridgeSide.split("t1.f2.d3@native")! == ("t1.f2.d3", .native))
        #expect(BridgeSide.split("a@web@native")! == ("a@web", .native))
        for plain in ["@web", "@native", "web", "x@Web", "x@nativ", "x@web ", "c1", "", "é@webé"] {
            #expect(BridgeSide.split(plain) == nil, "\(plain)")
        }
        for (name, sided) in [("x@web", true), ("x@native", true), ("@web", false), ("x@webs", false), ("c1", false)] {
            let bytes = Array(name.utf8)
            #expect(bytes.withUnsafeBytes { BridgeSide.isSided($0) } == sided, "\(name)")
        }
    }
}
