import BridgeJSON
import Testing

/// `JSONMemberScanner` against `JSONParser`: a true answer is a promise that the parser
/// accepts the bytes with no duplicate key, and the recorded members are the parser's.
struct MemberScannerTests {
    /// Whether the parser accepts `input` with no duplicate key.
    static func plain(_ input: [UInt8], _ limits: JSONLimits = .default) -> Bool {
        guard let doc = try? JSONParser(limits: limits).parse(input) else { return false }
        return doc.duplicateKeys.isEmpty
    }

    /// Checks the promise on `input`; returns the scanner's answer.
    @discardableResult
    static func check(_ input: [UInt8], _ limits: JSONLimits = .default, _ what: @autoclosure () -> String,
                      sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        var scanner = JSONMemberScanner(limits: limits, recordedDepth: 3)
        let answer = input.withUnsafeBytes { scanner.scan($0) }
        if answer {
            #expect(plain(input, limits), "\(what()): the scanner accepted what the parser does not", sourceLocation: sourceLocation)
            // Every recorded top-level member is the parser's, in order, value bytes included.
            if case .object(let o)? = try? JSONParser(limits: limits).parse(input).value {
                let top = scanner.members.filter { $0.parent == -1 }
                #expect(top.map { String(decoding: input[$0.key], as: UTF8.self) } == o.members.map(\.key), sourceLocation: sourceLocation)
                for (span, member) in zip(top, o.members) {
                    let reparsed = try? JSONParser(limits: limits).parse(Array(input[span.value])).value
                    #expect(reparsed == member.value, "\(what()): value of \(member.key)", sourceLocation: sourceLocation)
                }
            }
        }
        return answer
    }

    @Test func neverAcceptsWhatTheParserRejectsInJSONTestSuite() throws {
        var accepted = 0
        for name in Fixtures.suiteFiles(prefix: "") {
            let input = try Fixtures.suiteBytes(name)
            if Self.check(input, .default, name) { accepted += 1 }
            Self.check(input, ValidatorTests.tight, "\(name) (tight limits)")
        }
        #expect(accepted >= 80)  // the y_ files, less those with escaped keys or deep nesting
    }

    @Test func acceptsAPlainEnvelopeAndRecordsItsLevels() {
        var scanner = JSONMemberScanner(recordedDepth: 2)
        let ok = Fixtures.envelope.withUnsafeBytes { scanner.scan($0) }
        #expect(ok)
        let payload = scanner.members.firstIndex { String(decoding: Fixtures.envelope[$0.key], as: UTF8.self) == "payload" && $0.parent == -1 }
        #expect(payload != nil)
        #expect(scanner.members.contains { $0.parent == payload })
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"x":{"b":[{"c":1,"c":1}]}}"#, #"[{"k":1,"k":1}]"#,  // duplicates, at any depth
        #"{"\u0061":1}"#,  // an escaped key: not decided
        #"{"a":1,}"#, #"[1,]"#, #"{"a" 1}"#, #"{"a":01}"#, #"{"a":"\x"}"#, "{\"a\":\"\u{01}\"}", "", " ", "{} x",
    ])
    func declines(_ text: String) {
        var scanner = JSONMemberScanner()
        #expect(!Array(text.utf8).withUnsafeBytes { scanner.scan($0) }, "\(text)")
        #expect(scanner.members.isEmpty)
    }

    @Test func declinesNestingPastItsRecursionDepthAndLargeObjects() {
        var scanner = JSONMemberScanner(limits: JSONLimits(maxDepth: 1000))
        let deep = Array((String(repeating: "[", count: 30) + String(repeating: "]", count: 30)).utf8)
        #expect(!deep.withUnsafeBytes { scanner.scan($0) })
        #expect(JSONValidator(limits: JSONLimits(maxDepth: 1000)).isValid(deep))
        let wide = Array(("{" + (0..<65).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
        #expect(!wide.withUnsafeBytes { scanner.scan($0) })
    }

    /// Every truncation and many one-byte changes of an envelope: never a wrong "yes".
    @Test func mutatedEnvelopesNeverGetAWrongYes() {
        var rng = SplitMix64(state: 21)
        let specials: [UInt8] = Array(#"{}[]",:\ 0x-1e.u"#.utf8) + [0xFF, 0x00, 0x09, 0xC3]
        var accepted = 0
        for n in 0..<Fixtures.envelope.count { Self.check(Array(Fixtures.envelope[..<n]), .default, "truncated at \(n)") }
        for _ in 0..<5_000 {
            var bytes = Fixtures.envelope
            for _ in 0...(rng.next() % 3) {
                let at = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[at] = specials[Int(rng.next() % UInt64(specials.count))]
                case 1: bytes.insert(specials[Int(rng.next() % UInt64(specials.count))], at: at)
                default: bytes.remove(at: at)
                }
            }
            if Self.check(bytes, .default, String(decoding: bytes, as: UTF8.self)) { accepted += 1 }
            Self.check(bytes, ValidatorTests.tight, "tight")
        }
        #expect(accepted > 100)
    }
}
