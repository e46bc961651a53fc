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
