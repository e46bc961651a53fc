@testable import BridgeFuzz
import BridgeTestSupport
import Foundation
import Testing

/// A black-box target waits for every request object's final answer, counted per request,
/// not per id: a request reusing an id still in use, rejected BUSY at once, leaves the
/// first one owed (the third host's false unjustified-busy on a loaded CI machine); one
/// the host ignores (§7) does not hold the case to its deadline.
@Suite struct AnswerWaitsTests {
    let later = ContinuousClock.now + .seconds(60)

    @Test func aRequestUnderAnOpenIdIsOptionalAndItsRejectionLeavesTheFirstOwed() {
        var w = AnswerWaits()
        w.add(["x"], deadline: later)
        w.add(["x"], deadline: later)
        #expect(!w.nothingOwed && w.entries.map(\.optional) == [false, true])
        do { let r = w.answered("x", rejection: true); #expect(r) }
        #expect(!w.nothingOwed && w.contains("x"), "the rejection was the second's: the first is still owed")
        do { let r = w.answered("x"); #expect(r) }
        #expect(w.nothingOwed && !w.contains("x"))
        let third = w.answered("x")
        #expect(!third, "a third answer settles nothing")
    }

    /// §7: a host may ignore a request whose id is open (the reference host does). One
    /// answer ends the wait; the ignored request does not hold the case to its deadline.
    @Test func oneAnswerEndsTheWaitWhenTheHostIgnoresTheReusedId() {
        var w = AnswerWaits()
        w.add(["n-1"], deadline: later)
        w.add(["n-1"], deadline: later)
        w.add(["n-1", "other"], deadline: later)
        do { let r = w.answered("n-1"); #expect(r) }
        #expect(w.nothingOwed, "only optional requests are left")
        #expect(w.contains("n-1") && w.entries.count == 2)
        w.add(["n-1"], deadline: later)
        #expect(w.nothingOwed, "still open under n-1: optional too")
        w.add(["fresh"], deadline: later)
        #expect(!w.nothingOwed)
    }

    /// An id reused after its answer came is a new request, waited for as any other.
    @Test func anIdReusedAfterItsAnswerIsWaitedFor() {
        var w = AnswerWaits()
        w.add(["x"], deadline: later)
        _ = w.answered("x")
        w.add(["x"], deadline: later)
        #expect(!w.nothingOwed)
        do { let r = w.answered("x", rejection: true); #expect(r) }
        #expect(w.nothingOwed, "no optional one under x: the rejection answers the request")
    }

    @Test func anAnswerToAnyIdOfARequestObjectWithDuplicateKeysSettlesIt() {
        var w = AnswerWaits()
        w.add(["a", "b"], deadline: later)
        w.add(["b"], deadline: later)
        do { let r = w.answered("a"); #expect(r) }
        #expect(w.contains("b") && !w.contains("a"))
        do { let r = w.answered("b"); #expect(r) }
        #expect(w.nothingOwed)
    }

    @Test func expiryDropsOnlyWhatIsDue() {
        var w = AnswerWaits()
        let now = ContinuousClock.now
        w.add(["old"], deadline: now - .milliseconds(1))
        w.add(["new"], deadline: later)
        do { let r = w.expire(at: now); #expect(r) }
        #expect(!w.contains("old") && w.contains("new"))
        do { let r = w.expire(at: now); #expect(!r) }
        w.add([], deadline: later)
        #expect(w.entries.count == 1, "a request object without an id is not waited for")
    }

    /// The node host (written apart from bridgescope) answers a second request under an
    /// open id BUSY at once and the first one some 150 ms later: the case ends only after
    /// that answer, in a kept process (3 ms settle) as in a fresh one.
    @Test(.enabled(if: RequiredTools.nodeEnabled, "node is not installed"))
    func aCaseWaitsForTheFirstRequestWhenTheSecondUnderItsIdIsRejected() async {
        let node = RequiredTools.node ?? "node"
        let host = ProjectPaths.root.appendingPathComponent("tools/hosts/node/bridge_host.js").path
        let target = StdioTarget(command: "env BRIDGE_HOST_MODE=concurrent \(node) \(host)", scenario: nil)
        func request(_ action: String) -> FuzzStep {
            FuzzStep(message: Array(#"{"version":"1.0","correlationId":"reused","type":"request","timestamp":1700000000000,"payload":{"action":"\#(action)","data":{}}}"#.utf8))
        }
        let trace = await target.run(FuzzInput([request("nfc.read"), request("camera.selfie.capture")]))
        let answers = trace.events.compactMap { e -> String? in
            guard case .received(let bytes, _) = e else { return nil }
            let s = String(decoding: bytes, as: UTF8.self)
            return s.contains(#""type":"response""#) ? s : nil
        }
        #expect(answers.count == 2, "\(answers)")
        #expect(answers.contains { $0.contains("BUSY") } && answers.contains { $0.contains(#""status":"success""#) }, "\(answers)")
    }
}

/// The reference host ignores a request under an open id (its §7 choice): a case with
/// three requests under `n-1` (corpus/seeds/duplicate-id-in-flight.jsonl) ends after the
/// one answer, long before the ignored requests' 30 s deadline.
@Suite struct ReusedOpenIdTests {
    @Test func aCaseWithAnIgnoredReusedIdEndsAfterTheAnswer() async throws {
        func request(_ action: String) -> FuzzStep {
            FuzzStep(delayMs: 10, message: Array(#"{"version":"1.0","correlationId":"n-1","type":"request","timestamp":1700000000000,"payload":{"action":"\#(action)"}}"#.utf8))
        }
        let target = StdioTarget(command: "\(ProjectPaths.binary.path) host --stdio", scenario: nil)
        // 20 s: the run's own bound, well short of the ignored requests' 30 s deadline.
        let trace = await target.run(FuzzInput([request("nfc.read"), request("nfc.read"), request("capability.query")]),
                                     until: ContinuousClock.now + .seconds(20))
        let answers = trace.events.filter {
            if case .received(let b, _) = $0 { return String(decoding: b, as: UTF8.self).contains(#""type":"response""#) }
            return false
        }
        let cutShort = trace.cutShort
        #expect(answers.count == 1)
        #expect(!cutShort, "the case waited for a request the host may ignore (PROTOCOL.md §7)")
    }
}
