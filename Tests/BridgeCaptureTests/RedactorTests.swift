import BridgeCapture
import BridgePcap
import BridgeProxy
import BridgeJSON
import BridgeProtocol
import Testing

/// Redaction keeps envelopes valid and replaces exactly the sensitive fields.
struct RedactorTests {
    let redactor = Redactor()

    func text(_ r: Redactor.Result) -> String { String(decoding: r.bytes, as: UTF8.self) }

    @Test func selfieResponseFieldsAreReplacedWithDigestAndLength() throws {
        let message = #"{"version":"1.0","correlationId":"c1","type":"response","timestamp":1700000000000,"payload":{"action":"camera.selfie.capture","status":"success","data":{"previewImageData":"QUJD","width":640,"height":480,"mimeType":"image/jpeg","encryptedBlob":"eA==","unencryptedBlob":"eQ=="}}}"#
        let r = redactor.redact(Array(message.utf8))
        #expect(r.redactedFields == 3)
        #expect(!r.wholeMessage)
        let abc = Redactor.sha256Hex(Array("QUJD".utf8))
        #expect(text(r) == #"{"version":"1.0","correlationId":"c1","type":"response","timestamp":1700000000000,"payload":{"action":"camera.selfie.capture","status":"success","data":{"previewImageData":{"redacted":true,"sha256":"\#(abc)","bytes":4},"width":640,"height":480,"mimeType":"image/jpeg","encryptedBlob":{"redacted":true,"sha256":"\#(Redactor.sha256Hex(Array("eA==".utf8)))","bytes":4},"unencryptedBlob":{"redacted":true,"sha256":"\#(Redactor.sha256Hex(Array("eQ==".utf8)))","bytes":4}}}}"#)
        // The result is still a valid envelope.
        let decoded = EnvelopeDecoder().decode(r.bytes)
        #expect(decoded.isValid, "\(decoded.findings)")
    }

    @Test func nestedFieldsAnywhereInDataButNotElsewhere() {
        let message = #"{"type":"response","imageData":"top-level stays","payload":{"imageData":"payload level stays","data":{"pages":[{"imageData":"AAAA"},{"photo":{"nested":"object"}}],"nfc":{"photo":"UFA=","mrz":"P<UTO"},"photo":null}}}"#
        let r = redactor.redact(Array(message.utf8))
        #expect(r.redactedFields == 3)
        let t = text(r)
        #expect(t.contains(#""imageData":"top-level stays""#))
        #expect(t.contains(#""imageData":"payload level stays""#))
        #expect(t.contains(#""mrz":"P<UTO""#))
        #expect(t.contains(#""photo":null"#))
        #expect(t.contains(#""photo":{"redacted":true,"sha256":"\#(Redactor.sha256Hex(Array(#"{"nested":"object"}"#.utf8)))","bytes":19}"#))
        #expect(!t.contains("AAAA") && !t.contains("UFA="))
    }

    @Test func nothingToRedactKeepsTheBytesExactly() {
        for message in [#"{ "version" : "1.0", "payload" : { "data" : { "width" : 1.50 } } }"#, "not json at all", "[1,2]", ""] {
            let r = redactor.redact(Array(message.utf8))
            #expect(r.redactedFields == 0)
            #expect(r.bytes == Array(message.utf8))
        }
    }

    @Test func redactingTwiceChangesNothing() {
        let message = #"{"payload":{"data":{"imageData":"QUJD"}}}"#
        let once = redactor.redact(Array(message.utf8))
        let twice = redactor.redact(once.bytes)
        #expect(twice.redactedFields == 0)
        #expect(twice.bytes == once.bytes)
    }

    @Test func invalidJSONMentioningASensitiveFieldIsReplacedWhole() {
        let message = Array(#"{"payload":{"data":{"imageData":"QUJD"}}"#.utf8)  // one brace short
        let r = redactor.redact(message)
        #expect(r.wholeMessage)
        #expect(text(r) == #"{"redacted":true,"sha256":"\#(Redactor.sha256Hex(message))","bytes":\#(message.count)}"#)
    }

    @Test func numbersAndDuplicateKeysSurvive() {
        let message = #"{"a":1.0e+2,"a":2,"payload":{"data":{"photo":"x","n":-0.0}}}"#
        #expect(text(redactor.redact(Array(message.utf8))) == #"{"a":1.0e+2,"a":2,"payload":{"data":{"photo":{"redacted":true,"sha256":"\#(Redactor.sha256Hex([0x78]))","bytes":1},"n":-0.0}}}"#)
    }
}
