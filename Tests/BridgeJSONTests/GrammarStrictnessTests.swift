import BridgeJSON
import Testing

/// RFC 8259 and nothing more: the common extensions other parsers accept are rejected
/// with the exact code and offset of the first byte that breaks the grammar.
struct GrammarStrictnessTests {
    @Test func byteOrderMarkIsRejected() {
        expectRejected([0xEF, 0xBB, 0xBF, 0x7B, 0x7D], .unexpectedByte, at: 0, reasonContains: "byte-order mark")
        expectRejected([0xFE, 0xFF, 0x00, 0x5B], .unexpectedByte, at: 0, reasonContains: "UTF-16")
        // UTF-16 without a BOM shows up as a NUL byte.
        expectRejected([0x00, 0x5B, 0x00, 0x5D], .unexpectedByte, at: 0, reasonContains: "NUL")
        // A BOM after whitespace or inside an array is no better.
        expectRejected([0x20, 0xEF, 0xBB, 0xBF, 0x31], .unexpectedByte, at: 1)
    }

    @Test func trailingCommasAreRejected() {
        expectRejected("[1,]", .unexpectedByte, at: 3, reasonContains: "trailing comma")
        expectRejected("[1, ]", .unexpectedByte, at: 4, reasonContains: "trailing comma")
        expectRejected("{\"a\":1,}", .unexpectedByte, at: 7, reasonContains: "trailing comma")
        expectRejected("{\"a\":1 , }", .unexpectedByte, at: 9, reasonContains: "trailing comma")
        expectRejected("[1,,2]", .unexpectedByte, at: 3)
        expectRejected("[,1]", .unexpectedByte, at: 1)
        expectRejected("{,}", .unexpectedByte, at: 1)
        expectRejected("[1],", .trailingData, at: 3)
    }

    @Test func commentsAreRejected() {
        expectRejected("/* c */ [1]", .unexpectedByte, at: 0, reasonContains: "comments")
        expectRejected("[1] // c", .trailingData, at: 4, reasonContains: "comments")
        expectRejected("[1 /* c */]", .unexpectedByte, at: 3)
        expectRejected("{\"a\":/**/1}", .unexpectedByte, at: 5, reasonContains: "comments")
        expectRejected("# c\n[1]", .unexpectedByte, at: 0)
    }

    @Test func nonFiniteNumbersAreRejected() {
        expectRejected("[NaN]", .unexpectedByte, at: 1, reasonContains: "NaN")
        expectRejected("[Infinity]", .unexpectedByte, at: 1, reasonContains: "Infinity")
        expectRejected("[-Infinity]", .invalidNumber, at: 2, reasonContains: "Infinity")
        expectRejected("[nan]", .unexpectedByte, at: 2)
        expectRejected("[inf]", .unexpectedByte, at: 1)
    }

    @Test func numberGrammar() {
        expectRejected("[01]", .invalidNumber, at: 1, reasonContains: "leading zeros")
        expectRejected("[-012]", .invalidNumber, at: 2, reasonContains: "leading zeros")
        expectRejected("[00]", .invalidNumber, at: 1)
        expectRejected("[+1]", .unexpectedByte, at: 1, reasonContains: "'+'")
        expectRejected("[.5]", .unexpectedByte, at: 1, reasonContains: "decimal point")
        expectRejected("[1.]", .invalidNumber, at: 3)
        expectRejected("[1.e3]", .invalidNumber, at: 3)
        expectRejected("[1e]", .invalidNumber, at: 3)
        expectRejected("[1e+]", .invalidNumber, at: 4)
        expectRejected("[1.5e+-3]", .invalidNumber, at: 6)
        expectRejected("[-]", .invalidNumber, at: 2)
        expectRejected("[- 1]", .invalidNumber, at: 2)
        expectRejected("[0x1F]", .unexpectedByte, at: 2)
        expectRejected("[1_000]", .unexpectedByte, at: 2)
        expectRejected("-", .unexpectedEnd, at: 1)
        expectRejected("1.", .unexpectedEnd, at: 2)
        expectRejected("1e-", .unexpectedEnd, at: 3)
        for ok in ["0", "-0", "0.0", "-0.0e0", "1E+2", "1e-2", "123.456e789", "-9223372036854775809"] {
            #expect(parseError(Array(ok.utf8)) == nil, "\(ok)")
        }
    }

    @Test func literals() throws {
        #expect(try value("[true,false,null]") == [true, false, nil])
        expectRejected("[tru]", .unexpectedByte, at: 4, reasonContains: "'true'")
        expectRejected("[True]", .unexpectedByte, at: 1)
        expectRejected("[nul]", .unexpectedByte, at: 4)
        expectRejected("[nulll]", .unexpectedByte, at: 5)
        expectRejected("[undefined]", .unexpectedByte, at: 1)
        expectRejected("fals", .unexpectedEnd, at: 4)
    }

    @Test func structure() {
        expectRejected("", .empty, at: 0)
        expectRejected(" \t\r\n", .empty, at: 4, line: 2, column: 1)
        expectRejected("1 2", .trailingData, at: 2)
        expectRejected("{} {}", .trailingData, at: 3)
        expectRejected("[1 2]", .unexpectedByte, at: 3, reasonContains: "expected ',' or ']'")
        expectRejected("{\"a\" 1}", .unexpectedByte, at: 5, reasonContains: "expected ':'")
        expectRejected("{\"a\":1 \"b\":2}", .unexpectedByte, at: 7, reasonContains: "expected ',' or '}'")
        expectRejected("{1:2}", .unexpectedByte, at: 1, reasonContains: "string key")
        expectRejected("{'a':1}", .unexpectedByte, at: 1, reasonContains: "string key")
        expectRejected("['a']", .unexpectedByte, at: 1, reasonContains: "double quotes")
        expectRejected("{\"a\"}", .unexpectedByte, at: 4)
        expectRejected("{\"a\":}", .unexpectedByte, at: 5)
        expectRejected("[1}", .unexpectedByte, at: 2)
        expectRejected("{\"a\":1]", .unexpectedByte, at: 6)
        expectRejected("]", .unexpectedByte, at: 0)
        expectRejected("[", .unexpectedEnd, at: 1)
        expectRejected("{\"a\"", .unexpectedEnd, at: 4)
        expectRejected("{\"a\":", .unexpectedEnd, at: 5)
        expectRejected("{\"a\":1", .unexpectedEnd, at: 6)
    }

    @Test func onlyTheFourJSONWhitespaceBytesAreWhitespace() throws {
        #expect(try value(" \t\n\r[ \t\n\r1 \t\n\r] \t\n\r") == [1])
        expectRejected("[\u{0C}1]", .unexpectedByte, at: 1)   // form feed
        expectRejected("[\u{0B}1]", .unexpectedByte, at: 1)   // vertical tab
        expectRejected("[\u{A0}1]", .unexpectedByte, at: 1)   // no-break space (C2 A0)
        expectRejected("[\u{2028}1]", .unexpectedByte, at: 1) // line separator
        expectRejected("[1]\u{0}", .trailingData, at: 3)
    }

    @Test func topLevelScalarsAreJSONTexts() throws {
        #expect(try value("\"a\"") == "a")
        #expect(try value(" 12 ") == 12)
        #expect(try value("null") == nil)
    }

    @Test func allEntryPointsAgree() throws {
        let text = "{\"a\":[1,\"é\",null]}"
        let bytes = Array(text.utf8)
        let expected = try JSONParser().parse(bytes)
        #expect(try JSONParser().parse(text) == expected)
        #expect(try JSONParser().parse(bytes: bytes[...]) == expected)
        #expect(try JSONParser().parse(bytes: AnyCollection(bytes)) == expected)
        #expect(try bytes.withUnsafeBytes { try JSONParser().parse($0) } == expected)
        #expect(try JSONParser().value(bytes) == expected.value)
        // A slice that does not start at index 0 still reports offsets from its start.
        let padded = Array("xx[1,]".utf8)
        let error = #expect(throws: JSONError.self) { try JSONParser().parse(bytes: padded[2...]) }
        #expect(error?.offset == 3)
    }
}
