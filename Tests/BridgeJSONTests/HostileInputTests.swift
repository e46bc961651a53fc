import BridgeJSON
import Testing

/// Truncated, oversized, deeply nested and mutated input: always a clear error with a
/// byte offset inside the input, never a crash or a hang.
struct HostileInputTests {
    @Test func envelopeParses() throws {
        let doc = try JSONParser().parse(Fixtures.envelope)
        #expect(doc.duplicateKeys.isEmpty)
        #expect(doc.value["correlationId"] == "req-7f3a-01")
        #expect(doc.value["payload"]?["data"]?["note"] == "café 😀 déjà vu \"quoted\"\n")
        #expect(doc.value["timestamp"]?.numberValue?.int64 == 1_700_000_000_123)
    }

    @Test func everyTruncationIsUnexpectedEndAtTheCut() {
        let full = Fixtures.envelope
        for cut in 0..<full.count {
            let prefix = Array(full[0..<cut])
            guard let error = parseError(prefix) else {
                Issue.record("prefix of \(cut) bytes parsed")
                continue
            }
            #expect(error.code == (cut == 0 ? .empty : .unexpectedEnd), "cut \(cut): \(error)")
            #expect(error.offset == cut, "cut \(cut): \(error)")
            let loc = BridgeJSON.SourceLocation(offset: error.offset, in: prefix)
            #expect(error.line == loc.line && error.column == loc.column, "cut \(cut): \(error)")
        }
    }

    @Test func everySingleByteMutationIsAnsweredWithinBounds() {
        let full = Fixtures.envelope
        let replacements: [UInt8] = [0x00, 0x0A, 0x22, 0x5C, 0x7B, 0x5B, 0x5D, 0x7D, 0x2C, 0x3A, 0x80, 0xC0, 0xED, 0xFF]
        var rejected = 0
        for k in 0..<full.count {
            for r in replacements where full[k] != r {
                var input = full
                input[k] = r
                if let error = parseError(input) {
                    rejected += 1
                    #expect(error.offset >= 0 && error.offset <= input.count, "byte \(k) -> \(r): \(error)")
                    #expect(error.line >= 1 && error.column >= 1)
                }
            }
        }
        #expect(rejected > full.count * 8, "most single-byte damage must be caught")
    }

    @Test func randomMutationsNeverEscapeTheErrorContract() {
        var rng = SplitMix64(state: 0xB51D_6E5C)
        let full = Fixtures.envelope
        for _ in 0..<3_000 {
            var input = full
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let k = Int.random(in: 0..<input.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: input[k] = UInt8.random(in: 0...255, using: &rng)
                case 1: input.remove(at: k)
                default: input.insert(input[Int.random(in: 0..<input.count, using: &rng)], at: k)
                }
                if input.isEmpty { break }
            }
            if let error = parseError(input) {
                #expect(error.offset >= 0 && error.offset <= input.count, "\(error)")
            }
        }
    }

    @Test func oversizedInputIsRejectedBeforeParsing() {
        let limits = JSONLimits(maxInputBytes: 16)
        let ok = Array("[1,2,3,4,5,6,7] ".utf8)
        #expect(ok.count == 16)
        #expect(parseError(ok, limits: limits) == nil)
        // One byte over: rejected at the limit, even though the text is valid JSON.
        expectRejected(ok + [0x20], .inputTooLarge, at: 16, limits: limits, reasonContains: "17 bytes")
        // Rejected before the grammar is looked at: garbage gets the same answer.
        expectRejected([UInt8](repeating: 0xFF, count: 17), .inputTooLarge, at: 16, limits: limits)
    }

    @Test func defaultInputLimitIs16MiB() {
        #expect(JSONLimits.default.maxInputBytes == 16 << 20)
        var input = [UInt8](repeating: 0x20, count: 16 << 20)
        input[0] = UInt8(ascii: "0")
        #expect(parseError(input) == nil)
        input.append(0x20)
        let error = parseError(input)
        #expect(error?.code == .inputTooLarge)
        #expect(error?.offset == 16 << 20)
    }

    @Test func depth64IsAcceptedAnd65Rejected() throws {
        #expect(JSONLimits.default.maxDepth == 64)
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(parseError(Array(ok.utf8)) == nil)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        expectRejected(deep, .tooDeep, at: 64, reasonContains: "64")
        // Objects count the same way; the 65th '{' is the one reported.
        let objects = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        expectRejected(objects, .tooDeep, at: 64 * 5)
        let mixed = String(repeating: "[{\"a\":", count: 33) + "1" + String(repeating: "}]", count: 33)
        expectRejected(mixed, .tooDeep, at: 32 * 6)
    }

    @Test func depthLimitIsConfigurable() {
        let limits = JSONLimits(maxDepth: 2)
        #expect(parseError(Array("[[1]]".utf8), limits: limits) == nil)
        expectRejected("[[[1]]]", .tooDeep, at: 2, limits: limits)
        // Scalars are not nesting: depth 0 parses under any limit.
        #expect(parseError(Array("1".utf8), limits: JSONLimits(maxDepth: 0)) == nil)
        expectRejected("[]", .tooDeep, at: 0, limits: JSONLimits(maxDepth: 0))
    }

    @Test func hundredThousandOpenBracketsAreRejectedAtTheLimit() {
        let input = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        expectRejected(input, .tooDeep, at: 64)
        let braces = Array(String(repeating: "{\"\":", count: 100_000).utf8)
        expectRejected(braces, .tooDeep, at: 64 * 4)
    }

    @Test func stringsOverTheLimit() {
        let limits = JSONLimits(maxStringBytes: 8)
        #expect(parseError(Array("[\"12345678\"]".utf8), limits: limits) == nil)
        expectRejected("[\"123456789\"]", .stringTooLong, at: 1, limits: limits, reasonContains: "9 bytes")
        // Escapes count as written (encoded bytes between the quotes).
        #expect(parseError(Array("[\"abcdef\\n\"]".utf8), limits: limits) == nil)
        expectRejected("[\"abcdefg\\n\"]", .stringTooLong, at: 1, limits: limits)
        expectRejected("[\"\\u00e9\\u00e9\"]", .stringTooLong, at: 1, limits: limits)
        // Keys are strings too.
        expectRejected("{\"123456789\":1}", .stringTooLong, at: 1, limits: limits)
        // A huge unterminated string ends as unexpected-end, wherever the limit stands.
        let open = [UInt8(ascii: "\"")] + [UInt8](repeating: UInt8(ascii: "a"), count: 100)
        expectRejected(open, .unexpectedEnd, at: 101, limits: limits)
    }

    @Test func tooManyMembers() {
        let limits = JSONLimits(maxMembers: 3)
        #expect(parseError(Array("[1,2,3]".utf8), limits: limits) == nil)
        #expect(parseError(Array("{\"a\":1,\"b\":2,\"c\":3}".utf8), limits: limits) == nil)
        expectRejected("[1,2,3,4]", .tooManyMembers, at: 0, limits: limits, reasonContains: "3")
        expectRejected("{\"a\":1,\"b\":2,\"c\":3,\"d\":4}", .tooManyMembers, at: 0, limits: limits)
        expectRejected("[0,[1,2,3,4]]", .tooManyMembers, at: 3, limits: limits)
        // The limit is per container, not per document.
        #expect(parseError(Array("[[1,2,3],[1,2,3],[1,2,3]]".utf8), limits: limits) == nil)
    }

    @Test func numbersOverTheLimit() {
        let limits = JSONLimits(maxNumberBytes: 5)
        #expect(parseError(Array("[12345]".utf8), limits: limits) == nil)
        #expect(parseError(Array("[-1234]".utf8), limits: limits) == nil)
        expectRejected("[123456]", .numberTooLong, at: 1, limits: limits, reasonContains: "6 characters")
        expectRejected("[1.2345]", .numberTooLong, at: 1, limits: limits)
        expectRejected("{\"t\":1e+100}", .numberTooLong, at: 5, limits: limits)
        #expect(JSONLimits.default.maxNumberBytes == 1024)
        let long = String(repeating: "9", count: 1025)
        expectRejected(long, .numberTooLong, at: 0)
        #expect(parseError(Array(String(repeating: "9", count: 1024).utf8)) == nil)
    }

    @Test func errorsDescribeThemselvesLikeADiagnostic() {
        let error = parseError(Array("{\n  \"a\": tru\n}".utf8))
        #expect(error?.code == .unexpectedByte)
        #expect(error?.description.hasPrefix("2:11 (byte 12): ") == true, "\(String(describing: error))")
    }
}
