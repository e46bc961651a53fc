@testable import BridgeJSON
import Testing

/// `JSONValidator` against `JSONParser`, differentially: for every input both must
/// accept, or both reject with the same error (code, offset, line, column, reason).
struct ValidatorTests {
    /// The parser's answer and the validator's, for `input` under `limits`.
    static func answers(_ input: [UInt8], _ limits: JSONLimits = .default) -> (parser: JSONError?, validator: JSONError?) {
        let p: JSONError?
        do { _ = try JSONParser(limits: limits).parse(input); p = nil } catch { p = error }
        let v: JSONError?
        do { try JSONValidator(limits: limits).validate(input); v = nil } catch { v = error }
        return (p, v)
    }

    static func expectSame(_ input: [UInt8], _ limits: JSONLimits = .default, _ what: @autoclosure () -> String,
                           sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        let (p, v) = answers(input, limits)
        #expect(p == v, "\(what()): parser \(p.map { "\($0)" } ?? "accepts"), validator \(v.map { "\($0)" } ?? "accepts")",
                sourceLocation: sourceLocation)
        #expect(JSONValidator(limits: limits).isValid(input) == (p == nil), sourceLocation: sourceLocation)
        return p == nil
    }

    /// Tight limits, so every limit check is reached by small inputs.
    static let tight = JSONLimits(maxInputBytes: 300, maxDepth: 3, maxStringBytes: 12, maxMembers: 4, maxNumberBytes: 6)

    @Test func agreesOnEveryJSONTestSuiteFile() throws {
        let names = Fixtures.suiteFiles(prefix: "")
        #expect(names.count == 318)
        var accepted = 0
        for name in names {
            let input = try Fixtures.suiteBytes(name)
            if Self.expectSame(input, .default, name) { accepted += 1 }
            _ = Self.expectSame(input, Self.tight, "\(name) (tight limits)")
        }
        #expect(accepted == 95 + 10)  // every y_ file and the i_number_ files (docs/JSON.md)
    }

    /// The quick loop (`ParserState.quickValid`, the validator's first try) answers
    /// "valid" only where the parser accepts, on every suite file under default and
    /// tight limits, and it takes the plain ones (compact, no escapes) and the envelope.
    @Test func theQuickLoopTakesOnlyWhatTheParserAccepts() throws {
        var taken = 0
        for name in Fixtures.suiteFiles(prefix: "") {
            let input = try Fixtures.suiteBytes(name)
            for limits in [JSONLimits.default, Self.tight] {
                let quick = input.withUnsafeBytes { ParserState.quickValid($0, limits: limits) }
                if quick {
                    if limits.maxDepth == JSONLimits.default.maxDepth { taken += 1 }
                    #expect(Self.answers(input, limits).parser == nil, "\(name): taken by the quick loop, refused by the parser")
                }
            }
        }
        #expect(taken > 60)
        let plain = #"{"version":"1.0","correlationId":"r-1","type":"response","timestamp":1700000000123,"payload":{"action":"a.b","status":"success","data":{"n":[0,-1.5e-3,2E+2],"t":"déjà vu","f":false,"z":null,"o":{}}}}"#
        #expect(Array(plain.utf8).withUnsafeBytes { ParserState.quickValid($0, limits: .default) })
        #expect(!Fixtures.envelope.withUnsafeBytes { ParserState.quickValid($0, limits: .default) })  // escapes
        #expect(Array(#"{"a":[1,-0.5e+3,true,false,null,{}],"b":"\u0041"}"#.utf8).withUnsafeBytes {
            !ParserState.quickValid($0, limits: .default)  // an escape: the validator decides
        })
    }

    @Test func agreesOnEveryTruncationAndSingleByteChangeOfAnEnvelope() {
        let full = Fixtures.envelope
        let replacements: [UInt8] = [0x00, 0x09, 0x0A, 0x20, 0x22, 0x2C, 0x2D, 0x2E, 0x30, 0x31, 0x3A, 0x45, 0x5B, 0x5C,
                                     0x5D, 0x65, 0x66, 0x6E, 0x74, 0x75, 0x7B, 0x7D, 0x80, 0xBF, 0xC0, 0xE0, 0xED, 0xF4, 0xFF]
        var rejected = 0
        for cut in 0...full.count {
            if !Self.expectSame(Array(full[0..<cut]), .default, "cut at \(cut)") { rejected += 1 }
        }
        #expect(rejected == full.count)
        for k in 0..<full.count {
            for r in replacements where full[k] != r {
                var input = full
                input[k] = r
                _ = Self.expectSame(input, .default, "byte \(k) -> \(r)")
                _ = Self.expectSame(input, Self.tight, "byte \(k) -> \(r) (tight limits)")
            }
        }
    }

    @Test func agreesOnRandomMutationsOfTheAcceptedSuiteFiles() throws {
        var rng = SplitMix64(state: 0x5CA7_7E12)
        var seeds = try Fixtures.suiteFiles(prefix: "y_").map { try Fixtures.suiteBytes($0) }
        seeds.append(Fixtures.envelope)
        let alphabet = Array(#" \t\n\r{}[],:"\/bfnrtu0123456789-+.eE"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xED, 0xA0, 0xF0, 0x9F, 0xFF]
        var accepted = 0, rejected = 0
        for round in 0..<12_000 {
            var input = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = input.isEmpty ? 0 : Int.random(in: 0..<input.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0 where !input.isEmpty: input[at] = alphabet.randomElement(using: &rng)!
                case 1: input.insert(alphabet.randomElement(using: &rng)!, at: at)
                case 2 where !input.isEmpty: input.remove(at: at)
                case 3 where !input.isEmpty:
                    let end = min(input.count, at + Int.random(in: 1...6, using: &rng))
                    input.insert(contentsOf: input[at..<end], at: at)  // duplicate a slice (keys, values, brackets)
                default: input = Array(input.prefix(at))
                }
            }
            let limits = round % 3 == 0 ? Self.tight : .default
            if Self.expectSame(input, limits, "round \(round): \(input)") { accepted += 1 } else { rejected += 1 }
        }
        #expect(accepted > 500 && rejected > 5_000, "accepted \(accepted), rejected \(rejected)")
    }

    @Test func agreesOnLimitsAtTheirEdges() {
        for depth in [62, 63, 64, 65, 66, 1_000, 100_000] {
            _ = Self.expectSame(Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth),
                                .default, "depth \(depth)")
            _ = Self.expectSame(Array(String(repeating: #"{"a":"#, count: depth).utf8) + [0x31]
                                + Array(repeating: UInt8(ascii: "}"), count: depth), .default, "object depth \(depth)")
        }
        for n in 10...14 {
            _ = Self.expectSame(Array(("\"" + String(repeating: "x", count: n) + "\"").utf8), Self.tight, "string \(n)")
            _ = Self.expectSame(Array(("\"" + String(repeating: "\\n", count: n / 2) + "x\"").utf8), Self.tight, "escaped string \(n)")
            _ = Self.expectSame(Array(String(repeating: "9", count: n - 6).utf8), Self.tight, "number \(n - 6)")
            _ = Self.expectSame(Array(("[" + Array(repeating: "1", count: n - 9).joined(separator: ",") + "]").utf8), Self.tight,
                                "array of \(n - 9)")
            _ = Self.expectSame(Array(("{" + (0..<(n - 9)).map { "\"k\($0)\":1" }.joined(separator: ",") + "}").utf8),
                                Self.tight, "object of \(n - 9)")
        }
        _ = Self.expectSame(Array(repeating: 0x20, count: 301), Self.tight, "input over the limit")
        _ = Self.expectSame(Array(repeating: 0x20, count: 300), Self.tight, "whitespace at the limit")
    }

    @Test func acceptsDuplicateKeysLikeTheParser() throws {
        let input = Array(#"{"a":1,"b":{"a":2,"a":3},"a":[{"x":1,"x":1}]}"#.utf8)
        #expect(try JSONParser().parse(input).duplicateKeys.count == 3)
        #expect(throws: Never.self) { try JSONValidator().validate(input) }
    }

    @Test func reportsTheKeyInReasonsThatNameIt() {
        let input = Array(#"{"caf\u00e9" 1}"#.utf8)
        let (p, v) = Self.answers(input)
        #expect(p == v)
        #expect(v?.reason.contains("\"café\"") == true, "\(String(describing: v))")
    }
}
