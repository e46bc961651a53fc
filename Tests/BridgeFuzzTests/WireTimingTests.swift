@testable import BridgeFuzz
import BridgeHost
import Testing

/// Over the wire a slow host is not a wrong one (issue 22): the crossing margin of
/// `one-capture-per-slot` grows with how slowly the host answered what needs no work, and
/// a slot an earlier case of the same process may still hold makes a BUSY unjudged.
@Suite struct WireTimingTests {
    typealias O = OracleTests
    let d1 = O.request("d1", "camera.document.capture"), d2 = O.request("d2", "camera.document.capture")
    let q1 = O.request("q1", "capability.query")

    func check(_ events: [Trace.Event], model: CapabilityModel? = nil, held: Set<SlotKind> = []) -> [String] {
        var t = Trace(exactTiming: false)
        t.events = events
        t.slotsMaybeHeld = held
        var sink = FeatureSink()
        return TraceChecker(model: model, pendingLimit: nil).check(t, features: &sink).map(\.key).sorted()
    }

    /// d2 sent at 1 ms, d1's answer read at 400 ms, then d2's success: 399 ms apart.
    func served(afterQueryAnsweredAt queryMs: Int64?) -> [Trace.Event] {
        var e: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 1)]
        if let queryMs {
            e += [.sent(step: 2, bytes: q1, atMs: 2),
                  .received(bytes: O.response("q1", "capability.query", "success", data: #"{"capabilities":{}}"#), atMs: queryMs)]
        }
        return e + [.received(bytes: O.response("d1", "camera.document.capture", "success"), atMs: 400),
                    .received(bytes: O.response("d2", "camera.document.capture", "success"), atMs: 401)]
    }

    @Test func aHostThatAnswersAtOnceAndServesTwoCapturesIsFound() {
        #expect(check(served(afterQueryAnsweredAt: nil)) == ["one-capture-per-slot concurrent-captures camera.document"])
        #expect(check(served(afterQueryAnsweredAt: 5)) == ["one-capture-per-slot concurrent-captures camera.document"])
    }

    @Test func aHostSlowToReadItsInputIsGivenThatMuchMore() {
        // The query took 300 ms to answer: the host read its input that late, so d1's
        // answer 399 ms after d2 was sent may have been written before it read d2.
        #expect(check(served(afterQueryAnsweredAt: 302)).filter { $0.contains("concurrent") }.isEmpty)
    }

    @Test func withTheScenarioKnownEveryAnswerMeasuresTheLag() {
        // Instant captures (latency 0): d1 itself answered 400 ms late, so the host lags.
        var scenario = Scenario.default
        scenario.document.latencyMs = 0
        #expect(check(served(afterQueryAnsweredAt: nil), model: CapabilityModel(scenario)).filter { $0.contains("concurrent") }.isEmpty)
    }

    @Test func aSlotAnEarlierCaseMayHoldMakesItsBusyUnjudged() {
        let busy: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0),
                                   .received(bytes: O.response("d1", "camera.document.capture", "error", code: "BUSY"), atMs: 1)]
        #expect(check(busy) == ["one-capture-per-slot unjustified-busy camera.document"])
        #expect(check(busy, held: [.document]).isEmpty)
        #expect(check(busy, held: [.selfie]) == ["one-capture-per-slot unjustified-busy camera.document"])
    }
}
