import BridgeJSON
import Testing

/// `JSONBytes`, the byte helpers the package's readers share, against the plain
/// definitions: equality at every length (the word paths cover 4 to 16 bytes), the
/// padded little-endian word, literals at the end of the input, and whitespace.
struct JSONBytesTests {
    @Test func equalIsByteEqualityAtEveryLength() {
        let a: [UInt8] = Array(0..<40)
        for k in 0...24 {
            for at in 0..<k {
                var b = Array(a[0..<k])
                #expect(a.withUnsafeBytes { p in b.withUnsafeBytes { JSONBytes.equal(p.baseAddress!, $0.baseAddress!, count: k) } })
                b[at] ^= 0x40
                #expect(!a.withUnsafeBytes { p in b.withUnsafeBytes { JSONBytes.equal(p.baseAddress!, $0.baseAddress!, count: k) } }, "length \(k), byte \(at)")
            }
        }
    }

    @Test func wordsArePaddedLittleEndian() {
        #expect(Array("c1".utf8).withUnsafeBytes { JSONBytes.word($0) } == 0x3163)
        #expect([UInt8]().withUnsafeBytes { JSONBytes.word($0) } == 0)
        #expect(Array("abcdefghij".utf8).withUnsafeBytes { JSONBytes.word($0) } == 0x6867_6665_6463_6261)
    }

    @Test func literalsAndWhitespace() {
        let text = Array(" \t\r\n\"key\"".utf8)
        text.withUnsafeBytes { b in
            var i = 0
            JSONBytes.skipWhitespace(b, &i)
            #expect(i == 4)
            #expect(!JSONBytes.literal(b, &i, "\"key\"x") && i == 4)  // one byte past the end
            #expect(JSONBytes.literal(b, &i, "\"key\"") && i == b.count)
            JSONBytes.skipWhitespace(b, &i)
            #expect(i == b.count)
        }
    }
}
