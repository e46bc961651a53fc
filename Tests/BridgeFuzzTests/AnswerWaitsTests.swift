@testable import BridgeFuzz
import BridgeTestSupport
import Foundation
import Testing

/// A black-box target waits for every request object's final answer, counted per request,
/// not per id: a request reusing an id still in use, rejected BUSY at once, leaves the
/// first one owed (the third host's false unjustified-busy on a loaded CI machine).
@Suite struct AnswerWaitsTests {
    let later = ContinuousClock.now + .seconds(60)

    @Test func twoRequestsUnderOneIdOweTwoAnswers() {
        var w = AnswerWaits()
        w.add(["x"], deadline: later)
        w.add(["x"], deadline: later)
        do { let r = w.answered("x"); #expect(r) }
        #expect(!w.isEmpty && w.contains("x"))
        do { let r = w.answered("x"); #expect(r) }
        #expect(w.isEmpty && !w.contains("x"))
        let third = w.answered("x")
        #expect(!third, "a third answer settles nothing")
    }

    @Test func anAnswerToAnyIdOfARequestObjectWithDuplicateKeysSettlesIt() {
        var w = AnswerWaits()
        w.add(["a", "b"], deadline: later)
        w.add(["b"], deadline: later)
        do { let r = w.answered("a"); #expect(r) }
        #expect(w.contains("b") && !w.contains("a"))
        do { let r = w.answered("b"); #expect(r) }
        #expect(w.isEmpty)
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
