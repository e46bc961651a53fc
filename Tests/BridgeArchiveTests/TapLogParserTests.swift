import BridgeArchive
import Testing

@Suite("Tap log parser")
struct TapLogParserTests {
    static func parseAll(_ text: String, chunks: [Int]? = nil, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes) -> [TapLogParser.Entry] {
        var parser = TapLogParser(maxLineBytes: maxLineBytes)
        let bytes = Array(text.utf8)
        var out: [TapLogParser.Entry] = []
        if let chunks {
            var i = 0, k = 0
            while i < bytes.count {
                let n = min(max(1, chunks[k % chunks.count]), bytes.count - i)
                out += parser.feed(Array(bytes[i..<i + n]))
                i += n
                k += 1
            }
        } else {
            out += parser.feed(bytes)
        }
        return out + parser.finish()
    }

    static func messages(_ entries: [TapLogParser.Entry]) -> [TapMessage] {
        entries.compactMap { if case .message(let m) = $0 { return m } else { return nil } }
    }

    static func errors(_ entries: [TapLogParser.Entry]) -> [TapLineError] {
        entries.compactMap { if case .error(let e) = $0 { return e } else { return nil } }
    }

    @Test("msg bytes are kept verbatim, whitespace and key order included")
    func verbatim() {
        let line = #"{"t":1700000000000, "msg" : { "b" : 1, "a" :[1.50 ,2e3] } , "dir":"w2h","conn":"c9"}"#
        let m = Self.messages(Self.parseAll(line + "\n"))
        #expect(m.count == 1)
        #expect(String(decoding: m[0].payload, as: UTF8.self) == #"{ "b" : 1, "a" :[1.50 ,2e3] }"#)
        #expect(m[0].connection == "c9")
        #expect(m[0].direction == .webToHost)
        #expect(m[0].line == 1)
    }

    @Test("msg as the last member, and scalar msg values")
    func lastMember() {
        let text = """
        {"t":1,"dir":"h2w","msg":{"a":"}"}   }
        {"t":1,"dir":"h2w","msg":"a string"}
        {"t":1,"dir":"h2w","msg":-0.5e+2}
        """
        let m = Self.messages(Self.parseAll(text))
        #expect(m.map { String(decoding: $0.payload, as: UTF8.self) } == [#"{"a":"}"}"#, #""a string""#, "-0.5e+2"])
    }

    @Test("t: milliseconds below 10^15, nanoseconds from 10^15")
    func timeUnits() {
        let text = """
        {"t":1700000000123,"dir":"w2h","msg":{}}
        {"t":1700000000123456789,"dir":"w2h","msg":{}}
        {"t":999999999999999,"dir":"w2h","msg":{}}
        {"t":1000000000000000,"dir":"w2h","msg":{}}
        {"t":0,"dir":"w2h","msg":{}}
        """
        let entries = Self.parseAll(text)
        #expect(Self.messages(entries).map(\.time) == [1_700_000_000_123_000_000, 1_700_000_000_123_456_789,
                                                    1_000_000_000_000_000, 0])
        // 999,999,999,999,999 is below the threshold, so milliseconds, and does not fit
        // in 64-bit nanoseconds: rejected, not silently wrapped.
        #expect(Self.errors(entries).map(\.line) == [3])
    }

    @Test("text and b64 payloads")
    func textAndBase64() {
        let text = #"""
        {"t":5,"dir":"h2w","text":"raw\nline \u00e9"}
        {"t":5,"dir":"h2w","b64":"/wAB"}
        """#
        let m = Self.messages(Self.parseAll(text))
        #expect(m.count == 2)
        #expect(m[0].payload == Array("raw\nline é".utf8))
        #expect(m[1].payload == [0xFF, 0x00, 0x01])
        #expect(m[0].connection == nil)
    }

    @Test("malformed lines become errors with their line numbers and parsing goes on")
    func malformed() {
        let text = """
        {"t":1,"dir":"w2h","msg":{"ok":1}}
        not json
        {"dir":"w2h","msg":{}}
        {"t":1.5,"dir":"w2h","msg":{}}
        {"t":-3,"dir":"w2h","msg":{}}
        {"t":"1","dir":"w2h","msg":{}}
        {"t":1,"dir":"up","msg":{}}
        {"t":1,"msg":{}}
        {"t":1,"dir":"w2h"}
        {"t":1,"dir":"w2h","msg":{},"text":"x"}
        {"t":1,"dir":"w2h","conn":7,"msg":{}}
        {"t":1,"t":2,"dir":"w2h","msg":{}}
        [1,2,3]
        {"t":1,"dir":"w2h","b64":"not base64!"}
        {"t":9999999999999,"dir":"w2h","msg":{}}
        {"t":1,"dir":"w2h","msg":{"unterminated":

        {"t":2,"dir":"h2w","msg":{"ok":2}}
        """
        let entries = Self.parseAll(text)
        let errors = Self.errors(entries)
        #expect(errors.map(\.line) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16])
        #expect(Self.messages(entries).map(\.line) == [1, 18])
        #expect(errors[0].reason.contains("not valid JSON"))
        #expect(errors[1].reason.contains("missing \"t\""))
        #expect(errors[2].reason.contains("integer"))
        #expect(errors[5].reason.contains("\"dir\" must be"))
        #expect(errors[8].reason.contains("more than one"))
        #expect(errors[10].reason.contains("appears twice"))
        #expect(errors[13].reason.contains("2262"))
    }

    @Test("feeding in any chunking gives the same entries as feeding at once", arguments: [[1], [2], [3, 7], [64], [1000]])
    func chunking(_ chunks: [Int]) {
        let text = """
        {"t":1,"dir":"w2h","msg":{"a":"é🇫🇷"}}\r
        garbage

        {"t":2,"dir":"h2w","text":"x"}
        {"t":3,"dir":"h2w","msg":[1,2]}
        """
        #expect(Self.parseAll(text, chunks: chunks) == Self.parseAll(text))
        #expect(Self.messages(Self.parseAll(text)).count == 3)
        #expect(Self.errors(Self.parseAll(text)).map(\.line) == [2])
    }

    @Test("a line over the limit is skipped without buffering and reported, then parsing goes on")
    func overlong() {
        let long = #"{"t":1,"dir":"w2h","msg":""# + String(repeating: "x", count: 500) + #""}"#
        let text = #"{"t":1,"dir":"w2h","msg":1}"# + "\n" + long + "\n" + #"{"t":2,"dir":"w2h","msg":2}"# + "\n" + long
        for chunks in [[1], [7], [4096]] {
            let entries = Self.parseAll(text, chunks: chunks, maxLineBytes: 100)
            #expect(Self.errors(entries).map(\.line) == [2, 4])
            #expect(Self.messages(entries).map(\.line) == [1, 3])
        }
    }

    @Test("CRLF line ends and a last line without newline")
    func lineEnds() {
        let m = Self.messages(Self.parseAll("{\"t\":1,\"dir\":\"w2h\",\"msg\":{}}\r\n{\"t\":2,\"dir\":\"w2h\",\"msg\":[]}"))
        #expect(m.map { String(decoding: $0.payload, as: UTF8.self) } == ["{}", "[]"])
    }
}
