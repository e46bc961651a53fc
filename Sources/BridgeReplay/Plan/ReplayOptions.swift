import BridgeTransport
import BridgeHost
import BridgeClock

/// Everything a replay can be told (`bridgescope replay FILE --target ...`). Defaults
/// are the documented ones (docs/REPLAY.md).
public struct ReplayOptions: Sendable {
    /// Where to send.
    public var target: ReplayTarget
    /// The scenario of an `inproc` target (ignored by others). Default: the default host.
    public var scenario: Scenario
    /// Pacing. Default `asap`.
    public var pacing: ReplayPacing
    /// Response timeout and linger.
    public var timing: ReplayScheduler.Timing
    /// Latency tolerance; nil: latencies not compared. Default 1 s or 50 %.
    public var tolerance: TimingTolerance?
    /// Normalization rules. Default: timestamps, event ids, images.
    public var rules: NormalizationRules
    /// Replays to run: 1, or N ≥ 2 to learn volatile fields first (`--learn N`).
    public var runs: Int
    /// WebSocket client settings (connect timeout, deflate, origin).
    public var client: WebSocketClientOptions
    /// Connection attempts after the first fails (`--retries`). Default 0.
    public var retries: Int
    /// In-process target on the real clock instead of virtual time. Default false.
    public var realClock: Bool
    /// Real-time drivers' spin window: the last stretch before a send or a deadline is
    /// spent yielding instead of sleeping (``Stopwatch/sleep(until:spin:)``). Default 0.
    public var spin: Duration
    /// Seed of in-process hosts' event ids (connection n gets seed + n).
    public var seed: UInt64
    /// Attaches to the page of a `cdp:` or `webkit:` target (set by the command line,
    /// which links the debugging protocols; nil: such targets fail to connect).
    package var pageOpener: PageBridgeOpener?

    /// Creates options; everything but the target has its documented default.
    public init(target: ReplayTarget, scenario: Scenario = .default, pacing: ReplayPacing = .asap,
                timing: ReplayScheduler.Timing = .init(), tolerance: TimingTolerance? = TimingTolerance(),
                rules: NormalizationRules = .default, runs: Int = 1, client: WebSocketClientOptions = .init(),
                retries: Int = 0, realClock: Bool = false, spin: Duration = .zero, seed: UInt64 = 1) {
        self.target = target
        self.scenario = scenario
        self.pacing = pacing
        self.timing = timing
        self.tolerance = tolerance
        self.rules = rules
        self.runs = runs
        self.client = client
        self.retries = retries
        self.realClock = realClock
        self.spin = spin
        self.seed = seed
    }

    /// Whether connections run on virtual time (in-process target, no `--real-clock`).
    var usesVirtualTime: Bool {
        if case .inproc = target { return !realClock }
        return false
    }
}
