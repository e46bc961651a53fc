import BridgeCapture
import BridgeTap
import Crypto
import Testing

/// docs/TAP.md §2 on the one Swift implementation: only the replaced values change,
/// hostile and invalid texts are handled, and the tap's own SHA-256 equals swift-crypto's.
struct TapRedactorTests {
    let redactor = TapRedactor()

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
    func marker(_ content: String) -> String {
        #"{"redacted":true,"sha256":"\#(Redactor.sha256Hex(Array(content.utf8)))","bytes":\#(content.utf8.count)}"#
    }
    func redact(_ s: String) -> String { String(decoding: redactor.redact(Array(s.utf8)).bytes, as: UTF8.self) }

    @Test func everyByteOutsideTheReplacedValuesIsKept() {
        let message = "{ \"payload\" : {\n \"data\" : { \"imageData\" : \"QUJD\" , \"n\" : 1.50E+2, \"s\":\"\\u00e9\\/\" } } }"
        #expect(redact(message) == "{ \"payload\" : {\n \"data\" : { \"imageData\" : \(marker("QUJD")) , \"n\" : 1.50E+2, \"s\":\"\\u00e9\\/\" } } }")
    }

    @Test func everyPayloadAndEveryDataAreWalkedDuplicatesIncluded() {
        let message = #"{"payload":{"data":{"photo":"a"},"data":{"photo":"b"}},"payload":{"data":[{"imageData":"c"}]}}"#
        let r = redactor.redact(Array(message.utf8))
        #expect(r.redactedFields == 3)
        #expect(String(decoding: r.bytes, as: UTF8.self) == #"{"payload":{"data":{"photo":\#(marker("a"))},"data":{"photo":\#(marker("b"))}},"payload":{"data":[{"imageData":\#(marker("c"))}]}}"#)
    }

    @Test func escapedKeysAndValuesAreUnescapedForMatchingAndHashing() {
        // "ph\u006fto" is "photo"; the value's content is the UTF-8 of "é😀".
        let message = #"{"payload":{"data":{"ph\u006fto":"\u00e9\ud83d\ude00"}}}"#
        #expect(redact(message) == #"{"payload":{"data":{"ph\u006fto":\#(marker("é😀"))}}}"#)
    }

    @Test func nonStringValuesAreHashedWithoutWhitespace() {
        let message = #"{"payload":{"data":{"photo": { "w" : [1, 2] } }}}"#
        #expect(redact(message) == #"{"payload":{"data":{"photo": \#(marker(#"{"w":[1,2]}"#)) }}}"#)
    }

    @Test func markersNullsAndOtherPlacesAreLeftAlone() {
        let m = marker("x")
        for message in [#"{"payload":{"data":{"photo":\#(m)}}}"#, #"{"payload":{"data":{"photo":null}}}"#,
                        #"{"imageData":"x","payload":{"imageData":"x","data":"imageData"}}"#,
                        #"[{"payload":{"data":{"photo":"x"}}}]"#,
                        // a marker with whitespace is still one
                        #"{"payload":{"data":{"photo":{ "redacted" : true, "sha256" : "\#(String(repeating: "a", count: 64))", "bytes" : 0 }}}}"#] {
            let r = redactor.redact(Array(message.utf8))
            #expect(r.redactedFields == 0, "\(message)")
            #expect(r.bytes == Array(message.utf8))
        }
        // Not a marker: wrong member order, upper-case hex, a leading zero.
        for fake in [#"{"sha256":"\#(String(repeating: "a", count: 64))","redacted":true,"bytes":1}"#,
                     #"{"redacted":true,"sha256":"\#(String(repeating: "A", count: 64))","bytes":1}"#,
                     #"{"redacted":true,"sha256":"\#(String(repeating: "a", count: 64))","bytes":01}"#] {
            #expect(redactor.redact(Array(#"{"payload":{"data":{"photo":\#(fake)}}}"#.utf8)).redactedFields == (fake.contains("01") ? 1 : 1))
        }
    }

    @Test func invalidTextIsReplacedWholeOnlyWhenItMentionsAField() {
        let hostile = [
            #"{"payload":{"data":{"imageData":"QUJD"}}"#,                  // cut short
            #"{"payload":{"data":{"imageData":"QUJD",}}}"#,                // trailing comma
            #"{"payload":{"data":{"imageData":"\ud800"}}}"#,               // lone surrogate escape
            "{\"payload\":{\"data\":{\"imageData\":\"a\u{01}\"}}}",        // raw control character
            String(repeating: "[", count: 64) + #"{"payload":{"data":{"photo":"x"}}}"# + String(repeating: "]", count: 64),  // depth 65
        ]
        for message in hostile {
            let r = redactor.redact(Array(message.utf8))
            #expect(r.wholeMessage, "\(message.prefix(80))")
            #expect(String(decoding: r.bytes, as: UTF8.self) == marker(message))
        }
        let invalidUTF8: [UInt8] = Array(#"{"payload":{"data":{"photo":""#.utf8) + [0xC0, 0xAF] + Array(#""}}}"#.utf8)
        #expect(redactor.redact(invalidUTF8).wholeMessage)
        for kept in ["not json", #"{"a":1,}"#, "", "\u{2028}"] {
            #expect(redactor.redact(Array(kept.utf8)).bytes == Array(kept.utf8))
        }
        // 64 levels are fine (61 arrays, the envelope, payload, data); 65 are not.
        let fits = String(repeating: "[", count: 61) + #"{"payload":{"data":{"photo":"x"}}}"# + String(repeating: "]", count: 61)
        let r64 = redactor.redact(Array(fits.utf8))
        #expect(r64.redactedFields == 0 && !r64.wholeMessage, "fields below a top-level array are not in payload.data")
        let over = "[" + fits + "]"
        #expect(redactor.redact(Array(over.utf8)).wholeMessage)
    }

    @Test func theTapsSHA256MatchesSwiftCryptoAndNIST() {
        let inputs: [[UInt8]] = [[], Array("abc".utf8), Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
                                 [UInt8](repeating: 0x61, count: 1_000_000)] + (50...70).map { [UInt8](repeating: 7, count: $0) }
        let tap = TapRedactor(fields: ["x"])
        for input in inputs {
            let ours = tap.marker(for: input)
            let theirs = Array(#"{"redacted":true,"sha256":"\#(hex(Array(SHA256.hash(data: input))))","bytes":\#(input.count)}"#.utf8)
            #expect(ours == theirs)
        }
        #expect(String(decoding: tap.marker(for: Array("abc".utf8)), as: UTF8.self).contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    @Test func theRecordersRedactorIsTheTapsRule() {
        let message = Array(#"{"payload" : {"data":{"photo":"eA=="}}}"#.utf8)
        #expect(Redactor().redact(message).bytes == redactor.redact(message).bytes)
        #expect(Redactor.sensitiveFields == Set(TapRedactor.sensitiveFields))
    }
}
