import BridgeHost

/// What crossed between a web side and a host, in the order the web side saw it: the
/// input of ``ExplanationChecker``. Built by the fuzzer from a case's trace, by `replay`
/// from a connection's exchange and by `conform` from a case run.
public struct HostHistory: Sendable {
    /// One observation.
    public enum Event: Sendable {
        /// The web side sent `bytes` (input step `step`) at `atMs`.
        case sent(step: Int, bytes: [UInt8], atMs: Int64)
        /// The host sent `bytes` at `atMs`.
        case received(bytes: [UInt8], atMs: Int64)
    }

    /// The observations, in order.
    public var events: [Event] = []
    /// True when the host read each message the moment it was sent (the in-process host
    /// on a virtual clock); false over a wire, where the host reads a message at some
    /// time after it was sent and an answer in flight can cross the next request.
    public var exactTiming: Bool
    /// The run stopped before the host's time to answer was up: a request without an
    /// answer is not a finding.
    public var cutShort = false
    /// Typed slots something before this history may still hold (an earlier case on the
    /// same host process): a BUSY on them is explained.
    public var heldSlots: Set<SlotKind> = []
    /// The observer stopped waiting at the first final answer to each id (the fuzzer's
    /// black-box targets): where several requests shared an id and fewer final answers
    /// than requests came, the others may still be on their way, so a request under such
    /// an id without an answer is not a finding.
    public var awaitsOneFinalAnswerPerId = false

    /// Creates an empty history.
    public init(exactTiming: Bool) {
        self.exactTiming = exactTiming
    }
}
