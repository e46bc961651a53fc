/// Something the engine can run a case against: the in-process host, a host over stdio,
/// a host over WebSocket.
public protocol FuzzTarget: Sendable {
    /// `inproc`, `stdio:CMD`, `ws://…`.
    var name: String { get }
    /// Whether toggles can be applied (in-process only).
    var supportsToggles: Bool { get }
    /// The trace checker that fits this target.
    func checker(oracles: Set<Oracle>) -> TraceChecker
    /// Runs one case.
    func run(_ input: FuzzInput) async -> Trace
    /// Runs one case, cut short at `deadline` (the run's `--time`): a trace cut short
    /// says so (``Trace/cutShort``) and is not judged for missing answers.
    func run(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace
    /// Runs one case on its own (a fresh host process or connection), to confirm a
    /// finding does not depend on what earlier cases left behind.
    func confirm(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace
    /// Whether the host comes back after a crash (a new process, a new connection).
    /// False for a host inside an app (``WebViewTarget``): its crash is reported with the
    /// case as it ran, neither confirmed nor minimized by running again.
    var hostSurvivesCrash: Bool { get }
}

extension FuzzTarget {
    /// Runs the case whole (targets whose cases take microseconds).
    public func run(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace {
        await run(input)
    }

    /// True: the host comes back after a crash.
    public var hostSurvivesCrash: Bool { true }

    /// Runs the case as ``run(_:until:)`` does (targets without state between cases).
    public func confirm(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace {
        await run(input, until: deadline)
    }
}

extension InProcessTarget: FuzzTarget {
    /// `inproc`.
    public var name: String { "inproc" }
    /// True.
    public var supportsToggles: Bool { true }
    /// Runs one case (synchronously; the async form exists for the protocol).
    public func run(_ input: FuzzInput) async -> Trace {
        execute(input)
    }
}
