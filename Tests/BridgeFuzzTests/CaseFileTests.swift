import BridgeTestSupport
import BridgeFuzz
import BridgeJSON
import Testing

@Suite struct CaseFileTests {
    @Test func stepsRoundTripThroughTheFileFormat() {
        let input = FuzzInput([
            FuzzStep(message: bytes(#"{"version":"1.0","correlationId":"a","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read"}}"#)),
            FuzzStep(delayMs: 250, message: bytes(#"  {"a" : 1}  "#)),              // whitespace: kept as text
            FuzzStep(message: bytes("{\"a\":\"x\ny\"}")),                            // raw newline: text
            FuzzStep(message: [0xFF, 0x00, 0x7B]),                                   // not UTF-8: base64
            FuzzStep(message: []),                                                   // empty: text ""
            FuzzStep(delayMs: 5, .toggle(.documentDisable)),
            FuzzStep(message: bytes(#"{"a":1,"a":2}"#)),                             // duplicate keys stay raw
            FuzzStep(message: bytes(#"[1e309,-0,"\u0000"]"#)),
        ])
        let header = JSONObject([.init(key: "oracle", value: "one-response"), .init(key: "signature", value: "x")])
        let file = FuzzCase(header: header, input: input)
        let again = FuzzCase.parse(file.serialized())
        #expect(again.input == input)
        #expect(again.oracle == .oneResponse)
        #expect(again.signature == "x")
        let lines = String(decoding: file.serialized(), as: UTF8.self).split(separator: "\n")
        #expect(lines[1].hasPrefix(#"{"msg":{"version""#))
        #expect(lines[2].hasPrefix(#"{"delayMs":250,"text":"#))
        #expect(lines[4].hasPrefix(#"{"b64":"#))
    }

    @Test func aPlainEnvelopeFileIsACase() {
        let text = """
        {"version":"1.0","correlationId":"q","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}
        not json

        {"delayMs":"x","msg":1}
        """
        let c = FuzzCase.parse(bytes(text))
        #expect(c.header == nil)
        #expect(c.input.steps.count == 3)
        #expect(c.input.messages[1] == bytes("not json"))
        #expect(c.input.messages[2] == bytes(#"{"delayMs":"x","msg":1}"#))  // not a valid step: a message
    }

    @Test func binaryFormRoundTripsAndRejectsTruncation() {
        let input = FuzzInput([FuzzStep(delayMs: -1, message: [1, 2, 3]), FuzzStep(delayMs: 7, .toggle(.selfieDisable))])
        let b = input.binary()
        #expect(FuzzInput(binary: b) == input)
        for cut in 0..<b.count { #expect(FuzzInput(binary: Array(b[..<cut])) == nil) }
    }

    @Test func seedArchiveReadsTapLogsAndEnvelopeFiles() throws {
        let tap = """
        {"t":1700000000000,"dir":"h2w","conn":"c1","msg":{"a":1}}
        {"t":1700000000100,"dir":"w2h","conn":"c1","msg":{"version":"1.0"}}
        {"t":1700000000400,"dir":"w2h","conn":"c1","text":"raw"}
        {"t":1700000000000000000,"dir":"w2h","conn":"c2","b64":"/w=="}
        """
        let cases = try SeedArchive.load(write(tap))
        #expect(cases.count == 2)
        #expect(cases[0].messages == [bytes(#"{"version":"1.0"}"#), bytes("raw")])
        #expect(cases[0].steps[1].delayMs == 300)
        #expect(cases[1].messages == [[0xFF]])
        let sample = try SeedArchive.load(Corpus.root.deletingLastPathComponent().appendingPathComponent("captures/sample-passport.jsonl").path)
        #expect(sample.count == 1)
        #expect(sample[0].messages.count == 6)  // requests and web events; responses and host events dropped
        #expect(throws: FuzzError.self) { try SeedArchive.load("/nonexistent.bsz") }
        // A recorded session archive: the web side's messages, exact bytes, recorded gaps.
        let bsz = try SeedArchive.load(Corpus.root.deletingLastPathComponent().appendingPathComponent("captures/happy-passport.bsz").path)
        #expect(bsz.count >= 1)
        let messages = bsz.flatMap(\.messages)
        #expect(messages.contains { String(decoding: $0, as: UTF8.self).contains("\"capability.query\"") })
        #expect(!messages.contains { String(decoding: $0, as: UTF8.self).contains("\"type\":\"response\"") })
    }

    func write(_ text: String) throws -> String {
        let path = TestScratch.temporaryPath + "bridgescope-seed-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

import Foundation
