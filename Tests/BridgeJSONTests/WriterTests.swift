import BridgeJSON
import Testing

/// The writer: compact output, minimal escapes, raw UTF-8, canonical key order, and
/// round trips with the parser.
struct WriterTests {
    @Test func outputIsCompactAndKeepsOrder() throws {
        let v = try value("{ \"b\" : [ 1 , 2.50 , { } , [ ] ] ,\n \"a\" : null , \"c\" : true }")
        #expect(JSONWriter().string(v) == "{\"b\":[1,2.50,{},[]],\"a\":null,\"c\":true}")
    }

    @Test func stringsUseMinimalEscapes() {
        let s = "\"\\/\u{08}\u{0C}\n\r\t\u{0}\u{01}\u{1F}\u{7F} "
        let out = JSONWriter().string(.string(s))
        #expect(out == #""\"\\/\b\f\n\r\t\u0000\u0001\u001f"# + "\u{7F} \"")
    }

    @Test func everyControlCharacterIsEscaped() throws {
        let all = String(decoding: Array(UInt8(0)..<0x20), as: UTF8.self)
        let bytes = JSONWriter().bytes(.string(all))
        #expect(!bytes.contains { $0 < 0x20 })
        #expect(try JSONParser().parse(bytes).value == .string(all))
    }

    @Test func nonASCIIIsWrittenAsRawUTF8() {
        let bytes = JSONWriter().bytes(["é😀\u{10FFFF}\u{2028}"])
        #expect(bytes == [0x5B, 0x22, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0xF4, 0x8F, 0xBF, 0xBF,
                          0xE2, 0x80, 0xA8, 0x22, 0x5D])
    }

    @Test func sortedKeysOrdersByUTF8BytesAtEveryLevel() throws {
        let v = try value("{\"b\":1,\"é\":2,\"a\":{\"z\":1,\"Z\":2,\"\":3},\"A\":[{\"y\":1,\"x\":2}],\"ab\":4,\"a\":5}")
        let sorted = JSONWriter(sortedKeys: true).string(v)
        #expect(sorted == "{\"A\":[{\"x\":2,\"y\":1}],\"a\":{\"\":3,\"Z\":2,\"z\":1},\"a\":5,\"ab\":4,\"b\":1,\"é\":2}")
        // Source order is the default.
        #expect(JSONWriter().string(v).hasPrefix("{\"b\":1,\"é\":2"))
    }

    @Test func sortedKeysIsCanonical() throws {
        let a = try value("{\"x\":1,\"y\":{\"q\":[1,{\"k\":2,\"j\":3}],\"p\":\"s\"}}")
        let b = try value("{ \"y\" : { \"p\" : \"s\", \"q\" : [1, {\"j\":3, \"k\":2}] }, \"x\" : 1 }")
        #expect(a != b)
        let writer = JSONWriter(sortedKeys: true)
        #expect(writer.bytes(a) == writer.bytes(b))
    }

    @Test func duplicatesSurviveSortingInSourceOrder() throws {
        let v = try value("{\"k\":2,\"a\":0,\"k\":1}")
        #expect(JSONWriter(sortedKeys: true).string(v) == "{\"a\":0,\"k\":2,\"k\":1}")
    }

    @Test func writeAppendsToAnExistingBuffer() {
        var out = Array("x=".utf8)
        JSONWriter().write([1, "a"], into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x=[1,\"a\"]")
    }

    @Test(arguments: Fixtures.suiteFiles(prefix: "y_"))
    func roundTripsEveryAcceptedSuiteFile(_ name: String) throws {
        let input = try Fixtures.suiteBytes(name)
        let parsed = try JSONParser().parse(input).value
        for writer in [JSONWriter(), JSONWriter(sortedKeys: true)] {
            let written = writer.bytes(parsed)
            let reparsed = try JSONParser().parse(written).value
            // Sorting reorders members, so only source order must compare equal.
            if !writer.sortedKeys { #expect(reparsed == parsed, "\(name)") }
            // Writing is idempotent: write(parse(write(x))) == write(x).
            #expect(writer.bytes(reparsed) == written, "\(name)")
        }
    }

    @Test func roundTripsTheEnvelope() throws {
        let parsed = try JSONParser().parse(Fixtures.envelope).value
        let written = JSONWriter().bytes(parsed)
        #expect(written.count < Fixtures.envelope.count)
        #expect(try JSONParser().parse(written).value == parsed)
    }

    @Test func valuesBuiltInCodeRoundTrip() throws {
        let v: JSONValue = [
            "version": "1.0", "timestamp": .integer(1_700_000_000_000), "ok": true, "none": nil,
            "list": [1, "two", [], [:]], "text": "tab\there \"quoted\" \u{1F600}",
            "ratio": .number(JSONNumber(0.25)!),
        ]
        #expect(try JSONParser().parse(JSONWriter().bytes(v)).value == v)
    }
}
