import BridgeHost

/// What happened when a target ran one case, in the order the fuzzer saw it: messages
/// sent to the host, messages received from it, toggles applied. Oracles judge traces,
/// so the same checks run against the in-process host and a host over the wire.
public struct Trace: Sendable {
    /// One observation.
    public enum Event: Sendable {
        /// The fuzzer sent input step `step` (a message) at `atMs`.
        case sent(step: Int, bytes: [UInt8], atMs: Int64)
        /// The host sent `bytes` at `atMs`.
        case received(bytes: [UInt8], atMs: Int64)
        /// Input step `step` (a toggle) was applied at `atMs`.
        case toggled(step: Int, ScenarioToggle, atMs: Int64)
    }

    /// The observations, in order.
    public var events: [Event] = []
    /// Whether the timing is exact (in-process, virtual clock) or only ordered (over the
    /// wire, where a response in flight can cross a request).
    public var exactTiming: Bool
    /// Requests left pending once the web side went quiet (in-process only).
    public var pendingAfterQuiet: Int?
    /// Timers left once the web side went quiet (in-process only).
    public var timersAfterQuiet: Int?
    /// The virtual time the host needed to go quiet, when it never did within
    /// ``FuzzLimits/quietLimitMs`` (in-process only).
    var neverQuiet = false
    /// A crash or disconnection seen over the wire (black-box targets).
    var targetFailure: String?
    /// The run's time ran out during the case: it was stopped, and requests left without
    /// an answer are not findings.
    var cutShort = false
    /// Over the wire: typed slots an earlier case run by the same host process may still
    /// hold (a capture it sent has no final answer yet): a BUSY there is not judged.
    var slotsMaybeHeld: Set<SlotKind> = []
    /// Behaviour features beyond the messages (host log event codes), for corpus feedback.
    var extraFeatures: [UInt64] = []

    /// Creates an empty trace.
    public init(exactTiming: Bool) {
        self.exactTiming = exactTiming
    }

    /// Number of host messages received.
    public var receivedCount: Int {
        events.reduce(0) { if case .received = $1 { return $0 + 1 } else { return $0 } }
    }
}
