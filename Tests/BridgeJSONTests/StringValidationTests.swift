import BridgeJSON
import Testing

/// UTF-8 validation (Unicode table 3-7), escapes, surrogate pairs and control characters,
/// each with its exact error code and offset. Inputs are `["<bytes>"]`: the string's
/// first content byte is at offset 2.
struct StringValidationTests {
    @Test(arguments: [
        ([0xC3, 0xA9], "é"),
        ([0xE2, 0x82, 0xAC], "€"),
        ([0xF0, 0x9F, 0x98, 0x80], "😀"),
        ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
        ([0xEF, 0xBF, 0xBF], "\u{FFFF}"),
        ([0xED, 0x9F, 0xBF], "\u{D7FF}"),
        ([0xEE, 0x80, 0x80], "\u{E000}"),
        ([0x7F], "\u{7F}"),
    ] as [([UInt8], String)])
    func wellFormedUTF8IsAccepted(bytes: [UInt8], expected: String) throws {
        let doc = try JSONParser().parse(stringInArray(bytes))
        #expect(doc.value == .array([.string(expected)]))
    }

    @Test(arguments: [
        // Overlong encodings.
        ([0xC0, 0xAF], "overlong"),
        ([0xC1, 0xBF], "overlong"),
        ([0xE0, 0x80, 0xAF], "overlong"),
        ([0xE0, 0x9F, 0xBF], "overlong"),
        ([0xF0, 0x80, 0x80, 0xAF], "overlong"),
        ([0xF0, 0x8F, 0xBF, 0xBF], "overlong"),
        // UTF-16 surrogates encoded in UTF-8 (CESU-8 style).
        ([0xED, 0xA0, 0x80], "surrogate"),
        ([0xED, 0xBF, 0xBF], "surrogate"),
        ([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], "surrogate"),
        // Above U+10FFFF.
        ([0xF4, 0x90, 0x80, 0x80], "above U+10FFFF"),
        ([0xF5, 0x80, 0x80, 0x80], "above U+10FFFF"),
        ([0xF7, 0xBF, 0xBF, 0xBF], "above U+10FFFF"),
        ([0xF8, 0x88, 0x80, 0x80, 0x80], "never occurs"),
        ([0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], "never occurs"),
        ([0xFF], "never occurs"),
        // Truncated sequences (followed by more text, so not the end of input).
        ([0xC3], "truncated"),
        ([0xE2, 0x82], "truncated"),
        ([0xF0, 0x9F, 0x98], "truncated"),
        ([0xE2, 0x28, 0xA1], "truncated"),
        ([0xC3, 0x41], "truncated"),
        // Stray continuation bytes.
        ([0x80], "stray"),
        ([0xBF], "stray"),
        ([0x61, 0xA9], "stray"),
    ] as [([UInt8], String)])
    func illFormedUTF8IsRejectedAtItsFirstByte(bytes: [UInt8], kind: String) {
        // The bad sequence starts at offset 2, or 3 after a leading ASCII 'a'.
        let at = bytes[0] == 0x61 ? 3 : 2
        expectRejected(stringInArray(bytes), .invalidUTF8, at: at, reasonContains: kind)
    }

    @Test func utf8CutByTheEndOfInputIsUnexpectedEnd() {
        expectRejected([0x22, 0xC3], .unexpectedEnd, at: 2)
        expectRejected([0x22, 0xF0, 0x9F, 0x98], .unexpectedEnd, at: 4)
        // ...but a wrong byte before the end is still invalid UTF-8.
        expectRejected([0x22, 0xF0, 0x41], .invalidUTF8, at: 1)
    }

    @Test func invalidUTF8OutsideStringsIsAnUnexpectedByte() {
        expectRejected([0xC3, 0xA9], .unexpectedByte, at: 0)
        expectRejected([0x5B, 0xFF, 0x5D], .unexpectedByte, at: 1)
    }

    @Test func escapesDecode() throws {
        let text = #"["\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00\uDBFF\uDFFF\u0000"]"#
        let v = try value(text)
        #expect(v == .array([.string("\"\\/\u{08}\u{0C}\n\r\tAé€😀\u{10FFFF}\u{0}")]))
    }

    @Test func escapedAndRawFormsAreTheSameString() throws {
        #expect(try value(#"["\u00e9"]"#) == value("[\"é\"]"))
        #expect(try value(#"["\ud834\udd1e"]"#) == .array(["𝄞"]))
    }

    @Test func unknownEscapesAreRejected() {
        expectRejected(#"["\x"]"#, .invalidEscape, at: 2, reasonContains: "\\x")
        expectRejected(#"["\a"]"#, .invalidEscape, at: 2)
        expectRejected(#"["\U0041"]"#, .invalidEscape, at: 2)
        expectRejected(#"["\'"]"#, .invalidEscape, at: 2)
        expectRejected(#"["\u12G4"]"#, .invalidEscape, at: 6)
        expectRejected(#"["\u12"]"#, .invalidEscape, at: 6)
        expectRejected("[\"\\\u{E9}\"]", .invalidEscape, at: 2)
    }

    @Test func loneSurrogateEscapesAreRejected() {
        // A low surrogate first.
        expectRejected(#"["\uDD1E"]"#, .loneSurrogate, at: 2, reasonContains: "low surrogate")
        expectRejected(#"["\uDC00\uD800"]"#, .loneSurrogate, at: 2)
        // A high surrogate not followed by an escape.
        expectRejected(#"["\uD834"]"#, .loneSurrogate, at: 2, reasonContains: "high surrogate")
        expectRejected(#"["\uD834x"]"#, .loneSurrogate, at: 2)
        expectRejected(#"["\uD834\n"]"#, .loneSurrogate, at: 2)
        // A high surrogate followed by something other than a low surrogate.
        expectRejected(#"["\uD834\u0041"]"#, .loneSurrogate, at: 8, reasonContains: "\\u0041")
        expectRejected(#"["\uD834\uD834"]"#, .loneSurrogate, at: 8)
        // In a key as well.
        expectRejected(#"{"\uDFAA":0}"#, .loneSurrogate, at: 2)
    }

    @Test func surrogateEscapesCutByTheEndOfInput() {
        expectRejected(#"["\uD834"#, .unexpectedEnd, at: 8)
        expectRejected(#"["\uD834\"#, .unexpectedEnd, at: 9)
        expectRejected(#"["\uD834\u"#, .unexpectedEnd, at: 10)
        expectRejected(#"["\uD834\uDD"#, .unexpectedEnd, at: 12)
        expectRejected(#"["\u00"#, .unexpectedEnd, at: 6)
        expectRejected(#"["\"#, .unexpectedEnd, at: 3)
    }

    @Test(arguments: Array(UInt8(0)..<0x20))
    func rawControlCharactersAreRejected(_ c: UInt8) {
        expectRejected(stringInArray([0x61, c, 0x62]), .controlCharacter, at: 3, reasonContains: "control character")
        // Also after an escape (the slow path).
        expectRejected(stringInArray([0x5C, 0x6E, c]), .controlCharacter, at: 4)
        // And as a key.
        expectRejected([0x7B, 0x22, c, 0x22, 0x3A, 0x31, 0x7D], .controlCharacter, at: 2)
    }

    @Test func rawNewlineIsTheLastByteOfItsLine() {
        // The newline itself is the offending byte: it is the last byte of line 1.
        expectRejected("[\"a\nb\"]", .controlCharacter, at: 3, line: 1, column: 4)
    }

    /// Long strings are scanned eight bytes at a time: every kind of special byte must be
    /// found at every position of a word, in the plain and in the escaped path.
    @Test func specialBytesAreFoundAtEveryPositionOfLongStrings() throws {
        let length = 40
        for p in 0..<length {
            for escapedPrefix in [false, true] {
                let prefix: [UInt8] = escapedPrefix ? Array(#"\t"#.utf8) : []
                let base = 2 + prefix.count  // offset of the first filler byte
                func input(_ special: [UInt8]) -> [UInt8] {
                    var body = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    body.replaceSubrange(p..<(p + 1), with: special)
                    return stringInArray(prefix + body)
                }
                expectRejected(input([0x01]), .controlCharacter, at: base + p)
                expectRejected(input([0x1F]), .controlCharacter, at: base + p)
                expectRejected(input([0x80]), .invalidUTF8, at: base + p)
                expectRejected(input([0xFF]), .invalidUTF8, at: base + p)
                expectRejected(input([0xC3, 0x28]), .invalidUTF8, at: base + p)
                expectRejected(input([0x5C, 0x71]), .invalidEscape, at: base + p)
                let expectedText = (escapedPrefix ? "\t" : "") + String(repeating: "a", count: p) + "é"
                    + String(repeating: "a", count: length - p - 1)
                #expect(try JSONParser().parse(input([0xC3, 0xA9])).value == .array([.string(expectedText)]))
                let quoted = (escapedPrefix ? "\t" : "") + String(repeating: "a", count: p) + "\""
                    + String(repeating: "a", count: length - p - 1)
                #expect(try JSONParser().parse(input([0x5C, 0x22])).value == .array([.string(quoted)]))
                // A closing quote at p ends the string there; the rest is then out of place.
                let cut = input([0x22])
                let error = parseError(cut)
                #expect(error?.code == .unexpectedByte && error?.offset == base + p + 1, "\(String(describing: error))")
            }
        }
    }

    @Test func longPlainAndEscapedStringsDecode() throws {
        let text = String(repeating: "0123456789abcdef", count: 1000)
        #expect(try value("[\"\(text)\"]") == .array([.string(text)]))
        let escaped = String(repeating: "x\\n0123456789", count: 100)
        let decoded = String(repeating: "x\n0123456789", count: 100)
        #expect(try value("[\"\(escaped)\"]") == .array([.string(decoded)]))
    }
}
