@testable import BridgeFuzz
import Foundation
import Testing

/// What a WebView case records (``WebSocketTarget/Recorder``): a page's bridge tells what
/// crossed only after the fact, so a host's answer often comes before its send is
/// recorded. Two ways such answers were lost, and the case waited 30 s for them; through
/// `webkit:` on the reference host, a false `one-response` finding (2026-11-29).
@Suite struct PageRecorderTests {
    func request(_ id: String, _ action: String = "nfc.read") -> [UInt8] {
        Array(#"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":1700000000000,"payload":{"action":"\#(action)"}}"#.utf8)
    }
    func answer(_ id: String, _ code: String = "INVALID_REQUEST") -> [UInt8] {
        Array(#"{"version":"1.0","correlationId":"\#(id)","type":"response","timestamp":1700000000000,"payload":{"action":"nfc.read","status":"error","error":{"code":"\#(code)","message":"m","recoverable":false}}}"#.utf8)
    }
    let deadline: (String) -> ContinuousClock.Instant = { _ in .now + .seconds(30) }

    /// Two requests under one id, both answered before either send is recorded: two early
    /// answers, one for each send (kept as a set, the second send waited for its deadline).
    @Test func twoEarlyAnswersUnderOneIdStandForTwoSends() {
        let r = WebSocketTarget.Recorder()
        let a = r.reserve(atMs: 0, sending: request("n-1"))
        let b = r.reserve(atMs: 0, sending: request("n-1"))
        r.received(answer("n-1"), atMs: 1)
        r.received(answer("n-1"), atMs: 2)
        r.sent(request("n-1"), step: 0, atMs: 0, at: a, deadline: deadline)
        r.sent(request("n-1"), step: 1, atMs: 0, at: b, deadline: deadline)
        #expect(!r.stillWaiting(at: .now))
    }

    /// An id the freshening leaves alone (not plain: U+200B) that an earlier case of the
    /// same page sent too: its answer, come before the send is recorded, is this case's
    /// (it was dropped as the earlier case's leftover).
    @Test func anEarlyAnswerToAnIdAnEarlierCaseSentIsThisCases() {
        let r = WebSocketTarget.Recorder()
        r.stale = ["\u{200B}"]
        let slot = r.reserve(atMs: 0, sending: request("\u{200B}"))
        r.received(answer("\u{200B}"), atMs: 1)
        r.sent(request("\u{200B}"), step: 0, atMs: 0, at: slot, deadline: deadline)
        #expect(!r.stillWaiting(at: .now))
        let received = r.events.filter { if case .received(let b, _) = $0 { return !b.isEmpty } else { return false } }
        #expect(received.count == 1, "the answer is in the trace")
    }

    /// An answer to an earlier case's id that this case did not send stays a leftover.
    @Test func aLeftoverIsNotRecorded() {
        let r = WebSocketTarget.Recorder()
        r.stale = ["old~1"]
        let slot = r.reserve(atMs: 0, sending: request("new~2"))
        r.received(answer("old~1"), atMs: 1)
        r.sent(request("new~2"), step: 0, atMs: 0, at: slot, deadline: deadline)
        #expect(r.stillWaiting(at: .now), "new~2 is still owed")
        #expect(r.events.count == 1, "only the send")
    }
}

extension PageRecorderTests {
    /// A request sent while another under its id was still in flight is optional (the
    /// host may ignore it, §7), even when the first one's answer came before the second
    /// send was recorded; a send that did not happen leaves nothing in flight.
    @Test func aRequestSentWhileItsIdWasInFlightIsOptional() {
        let r = WebSocketTarget.Recorder()
        let a = r.reserve(atMs: 0, sending: request("k-4", "camera.document.capture"))
        let b = r.reserve(atMs: 0, sending: request("k-4", "camera.document.capture"))
        r.sent(request("k-4", "camera.document.capture"), step: 0, atMs: 0, at: a, deadline: deadline)
        r.received(answer("k-4", "OK"), atMs: 5)
        r.sent(request("k-4", "camera.document.capture"), step: 1, atMs: 0, at: b, deadline: deadline)
        #expect(!r.stillWaiting(at: .now), "the second k-4 went while the first was open: the host may ignore it")

        let notSent = r.reserve(atMs: 6, sending: request("k-5"))
        r.unreserve(notSent)
        let c = r.reserve(atMs: 7, sending: request("k-5"))
        r.sent(request("k-5"), step: 3, atMs: 7, at: c, deadline: deadline)
        #expect(r.stillWaiting(at: .now), "k-5 was not open when it went: it is owed")
    }
}

extension PageRecorderTests {
    /// A send that is not a request (`"type":"Request"`) does not take the early answer
    /// of the request under the same id sent after it.
    @Test func aNonRequestDoesNotTakeTheNextRequestsEarlyAnswer() {
        let r = WebSocketTarget.Recorder()
        let notRequest = Array(#"{"version":"1.0","correlationId":"d-1","type":"Request","timestamp":1700000000000,"payload":{"action":"nfc.read"}}"#.utf8)
        let a = r.reserve(atMs: 0, sending: notRequest)
        let b = r.reserve(atMs: 0, sending: request("d-1"))
        r.received(answer("d-1"), atMs: 1)
        r.sent(notRequest, step: 0, atMs: 0, at: a, deadline: deadline)
        r.sent(request("d-1"), step: 1, atMs: 0, at: b, deadline: deadline)
        #expect(!r.stillWaiting(at: .now), "the answer came for the request")
    }
}
