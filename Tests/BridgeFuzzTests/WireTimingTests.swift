@testable import BridgeFuzz
import BridgeHost
import Testing

/// Over the wire the checker judges the order of what crossed, not times in
/// milliseconds (issue 39): a host may read its next message late, and capture times vary,
/// so two captures on one slot overlapped only when no order of reads lets one end before
/// the other began: the later one answered (served) before the earlier one.
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

    func ok(_ id: String) -> Trace.Event { .received(bytes: O.response(id, "camera.document.capture", "success"), atMs: 0) }

    @Test func aLaterCaptureServedBeforeTheEarlierOneIsFound() {
        let e: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 1), ok("d2"), ok("d1")]
        #expect(check(e) == ["one-capture-per-slot concurrent-captures camera.document"])
    }

    @Test func aHostThatReadsOneMessageAtATimeIsNotJudgedByMilliseconds() {
        // d2 sent 1 ms after d1, d1 answered 400 ms later and d2 just after: a host that
        // finished d1 before reading d2 (and took 1 ms for d2) answers exactly this.
        let e: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 1),
                                .received(bytes: O.response("d1", "camera.document.capture", "success"), atMs: 400),
                                .received(bytes: O.response("d2", "camera.document.capture", "success"), atMs: 401)]
        #expect(check(e).isEmpty)
    }

    @Test func aMessageAnsweredBeforeTheHostCouldHaveReadItShowsTheOverlap() {
        // d2 was served after d1 ended, so the host read d2 after d1's answer; q1, sent after
        // d2, cannot have been answered before that: the host read d2 while d1 ran.
        let answer = #"{"environment":"web","hostVersion":"1","capabilities":{}}"#
        let e: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 1),
                                .sent(step: 2, bytes: q1, atMs: 2),
                                .received(bytes: O.response("q1", "capability.query", "success", data: answer), atMs: 3),
                                ok("d1"), ok("d2")]
        #expect(check(e) == ["one-capture-per-slot concurrent-captures camera.document"])
        // The same with d2 refused BUSY is what a correct host does.
        let busy: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0), .sent(step: 1, bytes: d2, atMs: 1),
                                   .sent(step: 2, bytes: q1, atMs: 2),
                                   .received(bytes: O.response("d2", "camera.document.capture", "error", code: "BUSY"), atMs: 2),
                                   .received(bytes: O.response("q1", "capability.query", "success", data: answer), atMs: 3), ok("d1")]
        #expect(check(busy).isEmpty)
    }

    @Test func aSlotAnEarlierCaseMayHoldMakesItsBusyUnjudged() {
        let busy: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0),
                                   .received(bytes: O.response("d1", "camera.document.capture", "error", code: "BUSY"), atMs: 1)]
        #expect(check(busy) == ["one-capture-per-slot unjustified-busy camera.document"])
        #expect(check(busy, held: [.document]).isEmpty)
        #expect(check(busy, held: [.selfie]) == ["one-capture-per-slot unjustified-busy camera.document"])
    }

    @Test func aBusyAfterTheHolderWasAnsweredIsUnjustified() {
        // d1's answer was received before d2 was sent: nothing held the slot when the host read d2.
        let e: [Trace.Event] = [.sent(step: 0, bytes: d1, atMs: 0), ok("d1"), .sent(step: 1, bytes: d2, atMs: 5),
                                .received(bytes: O.response("d2", "camera.document.capture", "error", code: "BUSY"), atMs: 6)]
        #expect(check(e) == ["one-capture-per-slot unjustified-busy camera.document"])
    }
}
