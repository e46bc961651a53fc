import BridgeHost
import BridgeJSON
import BridgeModel
import BridgeProtocol

/// Judges a ``Trace`` with the trace oracles. The protocol oracles
/// (``Oracle/oneResponse``, ``Oracle/oneCapturePerSlot``, ``Oracle/capabilityQuery``)
/// are one question put to BridgeModel's ``ExplanationChecker``: could *some* legal host
/// have produced this trace? A violation is reported only when no explanation exists, and
/// it names the obligation every explanation breaks. ``Oracle/hostOutputRules`` (each
/// message the host wrote) and the target's own observations (crash, hang, pending
/// state) are judged directly.
///
/// The expectations come from PROTOCOL.md and an independent ``CapabilityModel`` of the
/// scenario, never from the host under test. ``strict`` narrows the model to this
/// project's own §7 choices; it is not separate code.
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

    /// Runs the oracles; `features` collects behaviour features for corpus feedback.
    public func check(_ trace: Trace, features: inout FeatureSink) -> [Violation] {
        judge(trace, features: &features).violations
    }

    /// What the oracles concluded about one trace, with the model's explanation.
    public struct Judgement: Sendable {
        /// The violations, in the order found.
        public var violations: [Violation]
        /// The legal explanation the model found, if it found one.
        public var explanation: Explanation?
        /// Why the model could not decide, if it could not.
        public var undecided: String?
    }

    /// Runs the oracles and keeps the model's explanation (for `conform`).
    public func judge(_ trace: Trace) -> Judgement {
        var sink = FeatureSink()
        return judge(trace, features: &sink)
    }

    func judge(_ trace: Trace, features: inout FeatureSink) -> Judgement {
        var explanation: Explanation?
        var undecided: String?
        var violations: [Violation] = []
        var seen: Set<String> = []
        func fail(_ v: Violation) {
            guard oracles.contains(v.oracle), seen.insert(v.key).inserted else { return }
            violations.append(v)
        }
        var history = HostHistory(exactTiming: trace.exactTiming)
        history.cutShort = trace.cutShort
        history.heldSlots = trace.slotsMaybeHeld
        var models: [Int: CapabilityModel] = [:]
        var current = model
        for event in trace.events {
            switch event {
            case .toggled(_, let t, _):
                if current != nil { t.apply(to: &current!) }
                features.add("toggle", t.rawValue)
            case .sent(let step, let bytes, let at):
                if let current { models[history.events.count] = current }
                history.events.append(.sent(step: step, bytes: bytes, atMs: at))
                sentFeatures(bytes, &features)
            case .received(let bytes, let at):
                history.events.append(.received(bytes: bytes, atMs: at))
                for v in outputViolations(bytes, &features) { fail(v) }
            }
        }
        // A crash first: what it leaves unanswered follows from it.
        if let failure = trace.targetFailure, !trace.cutShort {
            fail(Violation(.crash, signature: "target-failed", failure))
        }
        history.awaitsOneFinalAnswerPerId = !trace.exactTiming
        if !oracles.isDisjoint(with: [.oneResponse, .oneCapturePerSlot, .capabilityQuery]) {
            switch ExplanationChecker(model: hostModel(models)).check(history) {
            case .violated(let v): fail(Violation(v))
            case .undecided(let why): features.add("model", "undecided"); undecided = why
            case .explained(let e):
                explanation = e
                for c in e.distinctChoices { features.add("choice", c.rawValue) }
            }
        }
        if trace.neverQuiet {
            fail(Violation(.pendingDrains, signature: "never-quiet", "the host still had timers \(FuzzLimits.quietLimitMs) ms after the last step"))
        }
        if let p = trace.pendingAfterQuiet, p > 0 {
            fail(Violation(.pendingDrains, signature: "pending-left", "\(p) request(s) still pending after the web side went quiet"))
        }
        if let t = trace.timersAfterQuiet, t > 0 {
            fail(Violation(.pendingDrains, signature: "timers-left", "\(t) timer(s) still scheduled after the web side went quiet"))
        }
        for f in trace.extraFeatures { features.add(raw: f) }
        return Judgement(violations: violations, explanation: explanation, undecided: undecided)
    }

    /// The model this checker puts to ``ExplanationChecker``: strict or lenient, the
    /// deadlines when timing is exact, and the scenario's routing when it is known.
    func hostModel(_ models: [Int: CapabilityModel]) -> HostModel {
        var m = HostModel(strict: strict, pendingLimit: pendingLimit)
        let checker = self
        m.deadline = { action in checker.deadline(action, model: checker.model) }
        if let model {
            m.customActions = Set(model.custom.map(\.id))
            m.configuration = { request, sentAt, openCount, response in
                guard let at = models[sentAt] else { return nil }
                return checker.routing(request, model: at, openCount: openCount, response: response)
            }
        }
        return m
    }

    /// The deadline of a request for `action` (PROTOCOL.md §2), stretched to the
    /// scenario's scripted latency plus one second when that is longer.
    func deadline(_ action: String, model: CapabilityModel?) -> Int64 {
        if let responseTimeoutMs { return responseTimeoutMs }
        let base: Int64 = action == Action.capabilityQuery.rawValue ? 5_000 : 30_000
        guard let model else { return base }
        return max(base, model.latency(of: action) + 1_000)
    }

    /// A coarse, stable name for an action in signatures: the known actions, the
    /// scenario's custom ids, else `other`.
    func actionClass(_ action: String) -> String {
        ReportText.actionClass(action) { id in model?.custom.contains { $0.id == id } ?? false }
    }
}
