import BridgeJSON
import BridgeProtocol

/// A handler written as data instead of code: answer after `latencyMs` with the next
/// outcome. The state machine runs it by itself with timers, so a scripted host (every
/// scenario host) runs entirely on a virtual clock with no tasks, which is what lets the
/// fuzzer replay thousands of journeys a second.
public struct ScriptedBehaviour: Sendable, Hashable {
    /// Largest accepted latency: one hour.
    static let maxLatencyMs: Int64 = 3_600_000

    /// Delay between the request and its response, in milliseconds (0 ... ``maxLatencyMs``).
    public var latencyMs: Int64
    /// Responses for successive requests: the n-th request gets `outcomes[n]`, and the last
    /// one repeats once the list is used up (so `[error, success]` is a flaky first try).
    /// Never empty.
    public var outcomes: [BridgeResponse]
    /// For document capture: `success` data chosen by the request's `data.side`
    /// (`front`, `back`, `single`); the outcome's own data otherwise.
    public var successDataBySide: [String: JSONObject]

    /// Creates a behaviour. An empty `outcomes` becomes a single `success` with no data;
    /// the latency is clamped to 0 ... ``maxLatencyMs``.
    public init(latencyMs: Int64, outcomes: [BridgeResponse], successDataBySide: [String: JSONObject] = [:]) {
        self.latencyMs = min(max(0, latencyMs), Self.maxLatencyMs)
        self.outcomes = outcomes.isEmpty ? [.success()] : outcomes
        self.successDataBySide = successDataBySide
    }

    /// One fixed response after `latencyMs`.
    public init(latencyMs: Int64, always response: BridgeResponse) {
        self.init(latencyMs: latencyMs, outcomes: [response])
    }

    /// The response for the `index`-th request (0-based) carrying `request`.
    public func response(index: Int, request: Envelope) -> BridgeResponse {
        var r = outcomes[min(index, outcomes.count - 1)]
        if r.status == .success, let side = request.payload.data?["side"]?.stringValue,
           let data = successDataBySide[side] {
            r.data = data
        }
        return r
    }
}

/// Who serves a slot, custom capability or configuration action.
public enum HandlerKind: Sendable, Hashable {
    /// Code outside the state machine (a closure or a `BridgeCapabilityHandler`): the
    /// machine asks its driver to start it and waits for a completion.
    case external
    /// A ``ScriptedBehaviour`` the machine runs itself with a timer.
    case scripted(ScriptedBehaviour)
}
