import BridgeHost
import BridgeJSON
import BridgeProtocol

/// Judges a ``Trace`` with the trace oracles: ``Oracle/oneResponse``,
/// ``Oracle/hostOutputRules``, ``Oracle/oneCapturePerSlot``, ``Oracle/capabilityQuery``
/// and ``Oracle/pendingDrains``. The expectations come from PROTOCOL.md and an independent
/// ``CapabilityModel`` of the scenario, never from the host under test.
///
/// With exact timing (in-process) every check is strict. Over the wire a response in
/// flight can cross a request, so the checks that depend on the host's view of time
/// accept both orders where the client cannot tell them apart (documented per check).
public struct TraceChecker: Sendable {
    /// The scenario the host runs, when known (nil: capability and routing checks are off).
    public var model: CapabilityModel?
    /// The host's pending-request limit, when known (``HostLimits/maxPendingRequests``).
    public var pendingLimit: Int?
    /// The oracles to run.
    public var oracles: Set<Oracle>
    /// True: judge by this project's own choices where PROTOCOL.md §7 leaves a choice (for
    /// the reference host, where they are the contract). False: accept every answer §7
    /// allows, so a correct host made by someone else gets no finding (docs/FUZZING.md,
    /// "What the oracles accept").
    public var strict: Bool = true
    /// Replaces the protocol's response timeouts (`--response-timeout`), when set.
    public var responseTimeoutMs: Int64?
    let decoder = EnvelopeDecoder()
    var cache: DecodeCache?

    /// Creates a checker.
    public init(model: CapabilityModel?, pendingLimit: Int?, oracles: Set<Oracle> = Set(Oracle.all)) {
        self.model = model
        self.pendingLimit = pendingLimit
        self.oracles = oracles
    }

    /// A checker that remembers decode results between traces (for one engine's thread).
    func caching() -> TraceChecker {
        var c = self
        c.cache = DecodeCache()
        return c
    }

    func decode(_ bytes: [UInt8], _ direction: Direction) -> DecodeResult {
        cache?.decode(bytes, direction: direction) ?? decoder.decode(bytes, direction: direction)
    }

    struct Open {
        var step: Int
        var action: String
        var sentAtMs: Int64
        var sentIndex: Int
        var deadlineMs: Int64
        /// nil for a routed request; the action an `INVALID_REQUEST` answer must carry otherwise.
        var invalidAnswerAction: String?
        var acknowledged = false
        var capture: Int?
        var expectedCapabilities: [String: JSONValue]?
        var modelAtSend: CapabilityModel?
        var openCountAtSend: Int
        /// Lenient checking: the protocol leaves this request's answer open (§7): any one
        /// final response, or none, is accepted; `group` names its other candidate ids.
        var openEnded = false
        var group: [String] = []
    }

    /// One capture request on a typed slot, for the busy checks.
    struct Capture {
        var slot: SlotKind
        var step: Int
        var id: String
        var sentIndex: Int
        var finalIndex: Int?
        var status: Status?
        var code: ErrorCode?
        var supportedAtSend: Bool?
        var openCountAtSend: Int
        /// When the request was sent and its final answer received (ms, the trace's clock).
        var sentAtMs: Int64 = 0
        var finalAtMs: Int64?

        var isBusy: Bool { status == .error && code == .busy }
        /// Whether the request held the slot: answered, and not BUSY nor unsupported.
        var occupied: Bool { finalIndex != nil && !isBusy && status != .unsupported }
    }

    /// Runs the oracles; `features` collects behaviour features for corpus feedback.
    public func check(_ trace: Trace, features: inout FeatureSink) -> [Violation] {
        var state = CheckState(checker: self, exact: trace.exactTiming)
        for slot in trace.slotsMaybeHeld { state.uncertainSlots[slot] = -1 }
        for (index, event) in trace.events.enumerated() {
            switch event {
            case .toggled(_, let t, _):
                if state.model != nil { t.apply(to: &state.model!) }
                features.add("toggle", t.rawValue)
            case .sent(let step, let bytes, let at):
                state.sent(step: step, bytes: bytes, at: at, index: index, &features)
            case .received(let bytes, let at):
                state.received(bytes: bytes, at: at, index: index, &features)
            }
        }
        state.finish(trace, &features)
        for f in trace.extraFeatures { features.add(raw: f) }
        return state.violations
    }

    /// The deadline of a request for `action` (PROTOCOL.md §2), stretched to the
    /// scenario's scripted latency plus one second when that is longer.
    func deadline(_ action: String, model: CapabilityModel?) -> Int64 {
        if let responseTimeoutMs { return responseTimeoutMs }
        let base: Int64 = action == Action.capabilityQuery.rawValue ? 5_000 : 30_000
        guard let model else { return base }
        return max(base, model.latency(of: action) + 1_000)
    }

    /// Over the wire, how long before a holder's answer was received a second capture
    /// must have been sent to count as overlapping it: an answer in flight for longer is
    /// not plausible, so the host had the second request while the first held the slot.
    static let crossingMarginMs: Int64 = 250

    /// A coarse, stable name for an action in signatures: the known actions, the
    /// scenario's custom ids, else `other`.
    func actionClass(_ action: String) -> String {
        let known: Set<String> = [Action.capabilityQuery.rawValue, Action.documentCapture.rawValue,
                                  Action.selfieCapture.rawValue, Action.nfcRead.rawValue, "invalid"]
        if known.contains(action) { return action }
        if let model, model.custom.contains(where: { $0.id == action }) { return "custom" }
        return "other"
    }
}
