import BridgeModel
import Testing

/// The search is bounded: a history it cannot decide within its limit is undecided, never
/// a violation; hostile histories end in time.
@Suite struct SearchLimitTests {
    typealias H = HistoryBuilder

    /// Twelve requests share one id and their answers come in an order that has no
    /// explanation (one answer too many), so every assignment is tried.
    func ambiguous() -> H {
        var h = H()
        for _ in 0..<12 { h.send("same", "nfc.read") }
        for _ in 0..<13 { h.answer("same", "nfc.read") }
        return h
    }

    @Test func aSmallLimitGivesUndecidedNotAFinding() {
        let v = ambiguous().verdict(limit: 50)
        guard case .undecided = v else { Issue.record("expected undecided, got \(v)"); return }
    }

    @Test func aLargeHistoryWithoutAmbiguityIsLinear() {
        var h = H()
        for i in 0..<3_000 { h.send("n\(i)", "nfc.read"); h.answer("n\(i)", "nfc.read") }
        guard case .explained(let e) = h.verdict() else { Issue.record("expected an explanation"); return }
        #expect(e.steps <= 6_001)
    }

    @Test func garbageIsNeverAnsweredAndNeverBreaksTheSearch() {
        var h = H()
        for line in ["{", "[]", "null", "\u{FEFF}{}", String(repeating: "[", count: 5_000), #"{"type":"event","correlationId":"e"}"#] { h.send(line) }
        #expect(h.verdict().violation == nil)
        h.answer("e", "host.ready")
        #expect(h.signature() == "unsolicited-response")
    }
}
