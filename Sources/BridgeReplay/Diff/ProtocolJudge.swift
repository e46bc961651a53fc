import BridgeModel

/// Judges what a replay's target answered by the protocol itself, not by the recording:
/// the exchange goes to BridgeModel's ``ExplanationChecker``, and a history no legal
/// host could have produced becomes a `protocol-violation` divergence naming the broken
/// obligation. Against another host the model is lenient (every choice PROTOCOL.md §7
/// leaves open is legal); against the in-process reference host it is strict.
struct ProtocolJudge: Sendable {
    let strict: Bool
    let exactTiming: Bool

    func judge(_ exchange: Exchange, connection: String, cut: Bool) -> Divergence? {
        var history = HostHistory(exactTiming: exactTiming)
        history.cutShort = cut
        var step = 0
        for (sent, timed) in exchange.timeline {
            let ms = timed.time / 1_000_000
            if sent {
                history.events.append(.sent(step: step, bytes: timed.message.bytes, atMs: ms))
                step += 1
            } else {
                history.events.append(.received(bytes: timed.message.bytes, atMs: ms))
            }
        }
        guard case .violated(let v) = ExplanationChecker(model: HostModel(strict: strict)).check(history) else { return nil }
        return Divergence(connection: connection, kind: .protocolViolation, expected: "PROTOCOL.md \(v.obligation.section): \(v.obligation.sentence)",
                          actual: v.signature, message: v.description)
    }
}
