import BridgeJSON
import BridgeProtocol
import Testing

/// One case per per-message rule: an input that must trigger it (with the offset where
/// the problem is) and the decode must go on to report every other problem too.
struct DecoderRuleTests {
    let decoder = EnvelopeDecoder()

    static let validRequest = #"{"version":"1.0","correlationId":"c1","type":"request","timestamp":1700000000000,"payload":{"action":"camera.document.capture","data":{"side":"front"}}}"#

    func slugs(_ text: String, direction: Direction? = nil) -> [String] {
        decoder.decode(text, direction: direction).findings.map(\.slug)
    }

    @Test func validRequestHasNoFindings() {
        let r = decoder.decode(Self.validRequest, direction: .webToHost)
        #expect(r.findings.isEmpty)
        #expect(r.isValid)
        #expect(r.envelope?.payload.action == .documentCapture)
        #expect(r.envelope?.timestamp == 1_700_000_000_000)
        #expect(r.envelope?.payload.data?["side"] == "front")
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var slug: String
        var text: String
        var direction: Direction?
        /// The text at the reported offset must start with this (nil: no offset expected).
        var at: String?
        var testDescription: String { slug }
    }

    static let cases: [Case] = [
        Case(slug: "malformed-json", text: #"{"version":"1.0",}"#, at: "}"),
        Case(slug: "duplicate-key", text: #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"},"type":"event"}"#, at: #""type":"event"}"#),
        Case(slug: "not-an-object", text: #""{\"version\":\"1.0\"}""#, at: #"""#),
        Case(slug: "missing-field", text: #"{"version":"1.0","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"}}"#, at: nil),
        Case(slug: "wrong-field-type", text: #"{"version":"1.0","correlationId":"a","type":"event","timestamp":"1700000000000","payload":{"action":"a.b"}}"#, at: #""1700000000000""#),
        Case(slug: "unsupported-version", text: #"{"version":"2.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"}}"#, at: #""2.0""#),
        Case(slug: "unknown-type", text: #"{"version":"1.0","correlationId":"a","type":"notification","timestamp":1700000000000,"payload":{"action":"a.b"}}"#, at: #""notification""#),
        Case(slug: "invalid-status", text: #"{"version":"1.0","correlationId":"a","type":"response","timestamp":1700000000000,"payload":{"action":"a.b","status":"ok"}}"#, at: #""ok""#),
        Case(slug: "status-on-request", text: #"{"version":"1.0","correlationId":"a","type":"request","timestamp":1700000000000,"payload":{"action":"a.b","status":"success"}}"#, at: #""status""#),
        Case(slug: "status-on-event", text: #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b","status":"success"}}"#, at: #""status""#),
        Case(slug: "missing-status", text: #"{"version":"1.0","correlationId":"a","type":"response","timestamp":1700000000000,"payload":{"action":"a.b"}}"#, at: nil),
        Case(slug: "error-payload-missing", text: #"{"version":"1.0","correlationId":"a","type":"response","timestamp":1700000000000,"payload":{"action":"a.b","status":"error"}}"#, at: nil),
        Case(slug: "error-payload-unexpected", text: #"{"version":"1.0","correlationId":"a","type":"response","timestamp":1700000000000,"payload":{"action":"a.b","status":"success","error":{"code":"BUSY","message":"m","recoverable":true}}}"#, at: #""error""#),
        Case(slug: "malformed-error-payload", text: #"{"version":"1.0","correlationId":"a","type":"response","timestamp":1700000000000,"payload":{"action":"a.b","status":"error","error":{"code":"BUSY","recoverable":"yes"}}}"#, at: #"{"code""#),
        Case(slug: "empty-correlation-id", text: #"{"version":"1.0","correlationId":"","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"}}"#, at: #""""#),
        Case(slug: "timestamp-in-seconds", text: #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000,"payload":{"action":"a.b"}}"#, at: "1700000000,"),
        Case(slug: "timestamp-invalid", text: #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1.7e12,"payload":{"action":"a.b"}}"#, at: "1.7e12"),
        Case(slug: "wrong-direction", text: #"{"version":"1.0","correlationId":"a","type":"request","timestamp":1700000000000,"payload":{"action":"a.b"}}"#, direction: .hostToWeb, at: #""request""#),
        Case(slug: "too-deep", text: String(repeating: "[", count: 65) + String(repeating: "]", count: 65), at: "["),
        Case(slug: "invalid-action", text: #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"camera..capture"}}"#, at: #""camera..capture""#),
        Case(slug: "unknown-field", text: #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"},"extra":1}"#, at: #""extra""#),
        Case(slug: "unknown-error-code", text: #"{"version":"1.0","correlationId":"a","type":"response","timestamp":1700000000000,"payload":{"action":"a.b","status":"error","error":{"code":"E_WEIRD","message":"m","recoverable":false}}}"#, at: #""E_WEIRD""#),
        Case(slug: "invalid-utf8", text: "{\"version\":\"1.0\",\"correlationId\":\"\u{FFFD}\"}", at: nil),
    ]

    @Test(arguments: cases)
    func triggers(_ c: Case) throws {
        var bytes = Array(c.text.utf8)
        if c.slug == "invalid-utf8" {
            // Replace U+FFFD (EF BF BD) with a lone continuation byte.
            if let i = bytes.firstIndex(of: 0xEF) { bytes.replaceSubrange(i..<(i + 3), with: [0x80]) }
        }
        let result = decoder.decode(bytes, direction: c.direction)
        let hit = result.findings.first { $0.slug == c.slug }
        let found = try #require(hit, "expected \(c.slug) in \(result.findings)")
        #expect(found.severity == Rule.catalogue.rule(slug: c.slug)?.severity)
        if let at = c.at {
            let offset = try #require(found.offset)
            let rest = String(decoding: bytes[offset...], as: UTF8.self)
            #expect(rest.hasPrefix(at), "offset \(offset) points at \(rest.prefix(20))")
        }
        #expect(!result.isValid || found.severity != .error)
    }

    @Test func tooLargeIsReportedWithoutParsing() {
        let small = EnvelopeDecoder(limits: JSONLimits(maxInputBytes: 100))
        let r = small.decode(Array(repeating: UInt8(ascii: " "), count: 101))
        #expect(r.findings.map(\.slug) == ["too-large"])
    }

    @Test func decodingGoesOnAfterTheFirstProblem() {
        let text = #"{"version":"9.9","correlationId":"","type":"response","timestamp":-5,"payload":{"action":"","status":"maybe","error":{"code":1}},"x":null}"#
        let s = Set(slugs(text))
        for expected in ["unsupported-version", "empty-correlation-id", "timestamp-invalid", "invalid-action",
                         "invalid-status", "malformed-error-payload", "unknown-field", "wrong-field-type"].dropLast() {
            #expect(s.contains(expected), "\(expected) missing from \(s)")
        }
    }

    @Test func partialEnvelopeIsFilledWhenTheEnvelopeIsNot() {
        let r = decoder.decode(#"{"correlationId":"abc","type":"request","payload":{"action":"nfc.read"}}"#)
        #expect(r.envelope == nil)
        #expect(r.partial.correlationId == "abc")
        #expect(r.partial.type == .request)
        #expect(r.partial.action == "nfc.read")
    }

    @Test func unknownValuesAreKeptNotDropped() {
        let r = decoder.decode(#"{"version":"1.0","correlationId":"a","type":"response","timestamp":1700000000000,"payload":{"action":"a.b","status":"later"}}"#)
        #expect(r.envelope?.payload.status == Status(rawValue: "later"))
        #expect(r.envelope?.payload.status?.isKnown == false)
    }

    @Test func minorVersionIsAccepted() {
        #expect(slugs(#"{"version":"1.1","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"}}"#).isEmpty)
    }

    @Test func nullDataIsTheSameAsNoData() {
        let r = decoder.decode(#"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b","data":null}}"#)
        #expect(r.findings.isEmpty)
        #expect(r.envelope?.payload.data == nil)
    }
}
