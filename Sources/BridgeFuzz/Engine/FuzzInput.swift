/// One fuzz case: what the web side does, step by step. Each step waits `delayMs` of
/// (virtual, in-process) time, then delivers one message to the host or changes the host's
/// configuration mid-flight (in-process targets only).
public struct FuzzInput: Sendable, Hashable {
    /// The steps, in order.
    public var steps: [FuzzStep]

    /// Creates an input.
    public init(_ steps: [FuzzStep] = []) {
        self.steps = steps
    }

    /// An input of messages delivered with no delay between them.
    public init(messages: [[UInt8]]) {
        self.steps = messages.map { FuzzStep(message: $0) }
    }

    /// The messages only, in order.
    public var messages: [[UInt8]] {
        steps.compactMap { if case .message(let m) = $0.kind { return m } else { return nil } }
    }

    /// Total bytes of all messages (the size limits of ``FuzzLimits`` apply to it).
    public var byteCount: Int {
        steps.reduce(0) { n, s in
            if case .message(let m) = s.kind { return n + m.count }
            return n + 1
        }
    }

    /// Total virtual time the steps wait.
    var totalDelayMs: Int64 { steps.reduce(0) { $0 &+ $1.delayMs } }

    /// The input without toggles (what a black-box target can be sent).
    var withoutToggles: FuzzInput {
        FuzzInput(steps.filter { if case .toggle = $0.kind { return false } else { return true } })
    }
}

/// One step of a ``FuzzInput``.
public struct FuzzStep: Sendable, Hashable {
    /// What the step does.
    public enum Kind: Sendable, Hashable {
        /// Deliver these bytes as one web-to-host message (one frame, one line).
        case message([UInt8])
        /// Change the host's configuration (in-process targets only).
        case toggle(ScenarioToggle)
    }

    /// Milliseconds to wait before the step (0 ... ``FuzzLimits/maxStepDelayMs``).
    public var delayMs: Int64
    /// What the step does.
    public var kind: Kind

    /// Creates a step; the delay is clamped to 0 ... ``FuzzLimits/maxStepDelayMs``.
    public init(delayMs: Int64 = 0, _ kind: Kind) {
        self.delayMs = min(max(0, delayMs), FuzzLimits.maxStepDelayMs)
        self.kind = kind
    }

    /// A message step.
    public init(delayMs: Int64 = 0, message: [UInt8]) {
        self.init(delayMs: delayMs, .message(message))
    }

    /// The message bytes, when this step is a message.
    public var message: [UInt8]? {
        if case .message(let m) = kind { return m }
        return nil
    }
}

/// Limits on what the fuzzer builds, so a mutation chain cannot grow without bound.
public enum FuzzLimits {
    /// Most steps in one input: 2,000 (room for "hundreds of pending requests").
    public static let maxSteps = 2000
    /// Most bytes across an input's messages: 4 MiB (a message may still be made larger
    /// than the host's 16 MiB limit by the `oversize` mutation, which is counted apart).
    public static let maxInputBytes = 4 << 20
    /// Longest wait of one step: one hour of virtual time.
    static let maxStepDelayMs: Int64 = 3_600_000
    /// How long the host gets to go quiet after the last step, in virtual time: two hours
    /// (a scripted latency is at most one hour).
    static let quietLimitMs: Int64 = 7_200_000
    /// Largest case file read from disk: 64 MiB.
    static let maxCaseFileBytes = 64 << 20
}
