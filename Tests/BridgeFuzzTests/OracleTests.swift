import BridgeFuzz
import BridgeHost
import BridgeJSON
import BridgeProtocol
import Testing

/// Each trace oracle catches what it names, on hand-made traces (so the oracles are
/// tested apart from any host).
@Suite struct OracleTests {
    static let t0: Int64 = 1_700_000_000_000

    static func request(_ id: String, _ action: String, type: String = "request") -> [UInt8] {
        bytes(#"{"version":"1.0","correlationId":"\#(id)","type":"\#(type)","timestamp":1700000000000,"payload":{"action":"\#(action)"}}"#)
    }

    static func response(_ id: String, _ action: String, _ status: String, code: String? = nil, data: String? = nil) -> [UInt8] {
        var payload = #""action":"\#(action)""#
        if let data { payload += #","data":\#(data)"# }
        payload += #","status":"\#(status)""#
        if let code { payload += #","error":{"code":"\#(code)","message":"m","recoverable":true}"# }
        return bytes(#"{"version":"1.0","correlationId":"\#(id)","type":"response","timestamp":1700000000000,"payload":{\#(payload)}}"#)
    }

    func check(_ events: [Trace.Event], exact: Bool = true, pending: Int? = 0, model: CapabilityModel? = CapabilityModel(.default)) -> [Violation] {
        var t = Trace(exactTiming: exact)
        t.events = events
        t.pendingAfterQuiet = exact ? pending : nil
        t.timersAfterQuiet = exact ? 0 : nil
        var sink = FeatureSink()
        return TraceChecker(model: model, pendingLimit: 1000).check(t, features: &sink)
    }

    func signatures(_ v: [Violation]) -> [String] { v.map(\.key).sorted() }

    @Test func aCleanExchangePasses() {
        let v = check([.sent(step: 0, bytes: Self.request("n", "nfc.read"), atMs: 0),
                       .received(bytes: Self.response("n", "nfc.read", "success"), atMs: 100)])
        #expect(v.isEmpty)
    }

    @Test func missingSecondAndUnsolicitedResponses() {
        #expect(signatures(check([.sent(step: 0, bytes: Self.request("n", "nfc.read"), atMs: 0)])) == ["one-response no-final-response nfc.read"])
        let twice = check([.sent(step: 0, bytes: Self.request("n", "nfc.read"), atMs: 0),
                           .received(bytes: Self.response("n", "nfc.read", "success"), atMs: 1),
                           .received(bytes: Self.response("n", "nfc.read", "cancelled"), atMs: 2)])
        #expect(signatures(twice) == ["one-response second-final-response nfc.read"])
        #expect(signatures(check([.received(bytes: Self.response("z", "nfc.read", "success"), atMs: 1)])) == ["one-response unsolicited-response"])
    }

    @Test func lateWrongActionAndInvalidRequestRules() {
        let late = check([.sent(step: 0, bytes: Self.request("q", "capability.query"), atMs: 0),
                          .received(bytes: Self.response("q", "capability.query", "success",
                                                         data: #"{"environment":"ios","hostVersion":"1.0.0","capabilities":{"camera.document":{"supported":true,"version":"1.0","permissionState":"granted"},"camera.selfie":{"supported":true,"version":"1.0","permissionState":"granted"},"nfc.read":{"supported":true,"version":"1.0"}}}"#),
                                    atMs: 5_001)])
        #expect(signatures(late) == ["one-response late-response capability.query"])
        let wrong = check([.sent(step: 0, bytes: Self.request("n", "nfc.read"), atMs: 0),
                           .received(bytes: Self.response("n", "nfc.write", "success"), atMs: 1)])
        #expect(signatures(wrong).contains("one-response wrong-action nfc.read"))
        // type request, non-empty id, broken otherwise: INVALID_REQUEST with action "invalid".
        let invalid = bytes(#"{"correlationId":"x","type":"request","payload":{"action":"bad action"}}"#)
        #expect(check([.sent(step: 0, bytes: invalid, atMs: 0),
                       .received(bytes: Self.response("x", "invalid", "error", code: "INVALID_REQUEST"), atMs: 0)]).isEmpty)
        #expect(signatures(check([.sent(step: 0, bytes: invalid, atMs: 0),
                                  .received(bytes: Self.response("x", "invalid", "error", code: "BUSY"), atMs: 0)]))
                == ["one-response invalid-request-answer"])
        // Garbage is never answered.
        #expect(check([.sent(step: 0, bytes: bytes("{"), atMs: 0)]).isEmpty)
    }

    @Test func busySemantics() {
        let d1 = Self.request("d1", "camera.document.capture"), d2 = Self.request("d2", "camera.document.capture")
        let ok = check([.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 0),
                        .received(bytes: Self.response("d2", "camera.document.capture", "error", code: "BUSY"), atMs: 0),
                        .received(bytes: Self.response("d1", "camera.document.capture", "success"), atMs: 100)])
        #expect(ok.isEmpty)
        let concurrent = check([.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 0),
                                .received(bytes: Self.response("d1", "camera.document.capture", "success"), atMs: 100),
                                .received(bytes: Self.response("d2", "camera.document.capture", "success"), atMs: 100)])
        #expect(signatures(concurrent) == ["one-capture-per-slot concurrent-captures camera.document"])
        let unjustified = check([.sent(step: 0, bytes: d1, atMs: 0),
                                 .received(bytes: Self.response("d1", "camera.document.capture", "error", code: "BUSY"), atMs: 0)])
        #expect(signatures(unjustified) == ["one-capture-per-slot unjustified-busy camera.document"])
        // Over the wire, a response in flight may cross the next request: only order counts.
        let crossed = check([.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 99),
                             .received(bytes: Self.response("d1", "camera.document.capture", "success"), atMs: 100),
                             .received(bytes: Self.response("d2", "camera.document.capture", "success"), atMs: 200)], exact: false)
        #expect(crossed.isEmpty)
    }

    @Test func capabilityAnswerAndRoutingFollowTheModelAndToggles() {
        let answer = #"{"environment":"ios","hostVersion":"1.0.0","capabilities":{"camera.document":{"supported":true,"version":"1.0","permissionState":"granted"},"camera.selfie":{"supported":true,"version":"1.0","permissionState":"granted"},"nfc.read":{"supported":true,"version":"1.0"}}}"#
        let q = Self.request("q", "capability.query")
        #expect(check([.sent(step: 0, bytes: q, atMs: 0), .received(bytes: Self.response("q", "capability.query", "success", data: answer), atMs: 0)]).isEmpty)
        // After disabling the document slot the same answer is wrong.
        let stale = check([.toggled(step: 0, .documentDisable, atMs: 0), .sent(step: 1, bytes: q, atMs: 0),
                           .received(bytes: Self.response("q", "capability.query", "success", data: answer), atMs: 0)])
        #expect(signatures(stale) == ["capability-query wrong-capability camera.document"])
        // A disabled slot answers unsupported CAPABILITY_UNAVAILABLE.
        let d = Self.request("d", "camera.document.capture")
        let served = check([.toggled(step: 0, .documentDisable, atMs: 0), .sent(step: 1, bytes: d, atMs: 0),
                            .received(bytes: Self.response("d", "camera.document.capture", "success"), atMs: 100)])
        #expect(signatures(served) == ["capability-query unsupported-slot-answer camera.document"])
        // Nobody handles x.y: unsupported UNSUPPORTED_ACTION.
        let x = Self.request("x", "x.y")
        #expect(signatures(check([.sent(step: 0, bytes: x, atMs: 0), .received(bytes: Self.response("x", "x.y", "success"), atMs: 0)]))
                == ["capability-query unknown-action-answer"])
    }

    @Test func hostOutputRulesAndPendingDrain() {
        let bad = bytes(#"{"version":"1.0","correlationId":"e","type":"event","timestamp":1700000000000,"payload":{"action":"host.ready","status":"success"}}"#)
        let v = check([.received(bytes: bad, atMs: 0)])
        #expect(v.count == 1 && v[0].oracle == .hostOutputRules && v[0].signature.hasPrefix("rules "))
        #expect(check([.received(bytes: bad.dropLast() + bytes("\n}"), atMs: 0)]).contains { $0.signature == "raw-newline" })
        #expect(signatures(check([], pending: 3)) == ["pending-drains pending-left"])
    }

    @Test func messageOraclesHoldForTheSeeds() {
        for url in Corpus.files("seeds") {
            for m in Corpus.load(url).input.messages {
                #expect(MessageOracles().check(m).isEmpty, "\(url.lastPathComponent): \(String(decoding: m.prefix(80), as: UTF8.self))")
            }
        }
    }
}
