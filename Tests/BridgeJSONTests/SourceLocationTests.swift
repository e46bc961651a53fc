import BridgeJSON
import Testing

/// Line and column of a byte offset, for LF, CR and CRLF line ends.
struct SourceLocationTests {
    func location(_ text: String, _ offset: Int) -> (Int, Int) {
        let loc = BridgeJSON.SourceLocation(offset: offset, in: Array(text.utf8))
        return (loc.line, loc.column)
    }

    @Test func lineFeed() {
        #expect(location("ab\ncd", 0) == (1, 1))
        #expect(location("ab\ncd", 2) == (1, 3))  // the LF is the last byte of line 1
        #expect(location("ab\ncd", 3) == (2, 1))
        #expect(location("ab\ncd", 4) == (2, 2))
        #expect(location("a\n\nb", 3) == (3, 1))
    }

    @Test func carriageReturn() {
        #expect(location("ab\rcd", 2) == (1, 3))
        #expect(location("ab\rcd", 3) == (2, 1))
        #expect(location("a\r\rb", 3) == (3, 1))
    }

    @Test func crlfCountsAsOneLineEnd() {
        #expect(location("ab\r\ncd", 2) == (1, 3))  // CR
        #expect(location("ab\r\ncd", 3) == (1, 4))  // LF of the same line end
        #expect(location("ab\r\ncd", 4) == (2, 1))
        #expect(location("a\r\n\r\nb", 5) == (3, 1))
        #expect(location("a\n\r\nb", 4) == (3, 1))   // LF, then CRLF
        #expect(location("a\r\r\nb", 4) == (3, 1))   // CR, then CRLF
    }

    @Test func offsetsAreClampedToTheBuffer() {
        #expect(location("ab", -5) == (1, 1))
        #expect(location("ab", 2) == (1, 3))    // end of input
        #expect(location("ab", 99) == (1, 3))
        #expect(location("a\n", 2) == (2, 1))
        #expect(location("", 0) == (1, 1))
    }

    @Test func columnsCountBytes() {
        #expect(location("é\u{1F600}x", 6) == (1, 7))
    }

    @Test func parserErrorsUseTheSameLocations() {
        // The same error ("trailing comma") after each kind of line end.
        expectRejected("{\n  \"a\": [1,\n   2,]\n}", .unexpectedByte, at: 18, line: 3, column: 6)
        expectRejected("{\r\n  \"a\": [1,\r\n   2,]\r\n}", .unexpectedByte, at: 20, line: 3, column: 6)
        expectRejected("{\r  \"a\": [1,\r   2,]\r}", .unexpectedByte, at: 18, line: 3, column: 6)
        // An error at the end of input after a final line end is on the next line.
        expectRejected("[1,\r\n", .unexpectedEnd, at: 5, line: 2, column: 1)
    }
}
