import BridgeHost
import BridgeProtocol
import BridgeTransport
import Foundation

/// Any host that reads one envelope per line on standard input and writes one per line
/// on standard output (`bridgescope host --stdio` and the like), started with
/// `/bin/sh -c COMMAND`. Black-box: real time, ordered (not exact) timing.
///
/// One host process runs many cases (``casesPerProcess``): a case ends when every
/// well-formed request it sent has its final answer (or its deadline passed) and the
/// output has been quiet for ``settleMs``. An id the host was sent and never answered
/// (a request it could not read, say) is remembered: its late answer in a later case is
/// dropped as a leftover, and a later case that sends the same id first gives it what is
/// left of ``owedGraceMs``. The process is replaced after a crash, an unanswered
/// well-formed request, output flooding, or every ``casesPerProcess`` cases. ``confirm(_:until:)`` runs a case
/// in a fresh process, so a finding never depends on what earlier cases left behind.
///
/// A message holding newlines reaches such a host as several lines; the trace records
/// the lines as sent, so the oracles judge what the host really received.
public struct StdioTarget: FuzzTarget, ProbingTarget {
    /// The shell command.
    public let command: String
    /// The scenario the host runs, when known (enables the capability and routing checks).
    public let scenario: Scenario?
    /// Judge by this project's choices where PROTOCOL.md §7 leaves one (`--strict`).
    /// Default false: every answer §7 allows is accepted.
    public var strict = false
    /// Longest real wait of one step: over the wire the oracles judge the order of
    /// messages, not the length of pauses, so delays are compressed to keep hundreds of
    /// cases a second. Default 1 ms.
    public var maxStepDelayMs: Int64 = 1
    /// How long after its case an unanswered id may still be answered: a later case that
    /// sends the same id first waits for the rest of this time (the two answers could not
    /// be told apart), then takes the id over. Ids that do not collide cost nothing:
    /// their late answers are dropped as leftovers. Default 30 ms. A confirmation run
    /// waits ``confirmSettleMs`` for its own.
    var owedGraceMs: Int64 = 30
    /// How long a request may wait for its final answer: PROTOCOL.md §2's timeouts
    /// (5 s for `capability.query`, 30 s otherwise), stretched to the scenario's
    /// latencies; `--response-timeout` replaces them.
    public var responseTimeoutMs: Int64?
    /// How long the output must stay quiet after the last answer before a case ends (a
    /// second answer sent with the first shows up in it). Default 3 ms; a confirmation run in a fresh
    /// process waits ``confirmSettleMs``, so an answer that comes late is seen there.
    var settleMs: Int64 = 3
    /// How long a kept process's case waits for answers to request objects this
    /// project's parser refuses (they are not awaited to their deadline). 20 ms.
    static let owedWaitMs: Int64 = 20
    /// The quiet period of a confirmation run. Default 300 ms.
    var confirmSettleMs: Int64 = 300
    /// Cases one host process runs before it is replaced; 1 starts a process per case.
    public var casesPerProcess = 200
    /// Output lines, and bytes, one case may produce before the host counts as flooding.
    static let maxOutputLines = 20_000, maxOutputBytes = 64 << 20
    let pool = StdioProcessPool()

    /// Creates the target.
    public init(command: String, scenario: Scenario?) {
        self.command = command
        self.scenario = scenario
    }

    /// `stdio:COMMAND`.
    public var name: String { "stdio:\(command)" }
    /// False.
    public var supportsToggles: Bool { false }
    /// Host processes started and cases run so far.
    var processStatistics: (processes: Int, cases: Int) { pool.statistics }

    /// Checker without a pending limit (unknown) and with the scenario model when known.
    public func checker(oracles: Set<Oracle>) -> TraceChecker {
        var c = TraceChecker(model: scenario.map(CapabilityModel.init), pendingLimit: nil,
                             oracles: oracles.intersection(Oracle.overTheWire))
        c.strict = strict
        c.responseTimeoutMs = responseTimeoutMs
        return c
    }

    package func probe() async throws {
        let p = try ChildProcess(executable: "/bin/sh", arguments: ["-c", command])
        p.closeStdin()
        let deadline = ContinuousClock.now + .seconds(10)
        while p.status() == nil && ContinuousClock.now < deadline { p.pump(timeoutMs: 50) }
        p.pump(timeoutMs: 0)
        guard let t = p.status() else { p.signal(SIGKILL); return }
        if case .exited(let code) = t, code == 126 || code == 127 {
            throw FuzzError(.target, "stdio target: cannot run `\(command)` (\(t)): \(p.crashLine ?? "")")
        }
    }

    /// Runs one case, in the running host process when there is one.
    public func run(_ input: FuzzInput) async -> Trace {
        runCase(input, until: nil, fresh: false)
    }

    /// Runs one case, stopped at `deadline`.
    public func run(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace {
        runCase(input, until: deadline, fresh: false)
    }

    /// Runs one case in a fresh host process, used for nothing else.
    public func confirm(_ input: FuzzInput, until deadline: ContinuousClock.Instant?) async -> Trace {
        runCase(input, until: deadline, fresh: true)
    }
}

/// The host process kept between cases, and counts (one engine uses a target at a time).
final class StdioProcessPool: @unchecked Sendable {
    private let lock = NSLock()
    private var process: ChildProcess?
    private var casesInProcess = 0
    private var unanswered: [String: StdioTarget.EarlierId] = [:]
    private var processes = 0
    private var cases = 0

    /// Counts a case.
    func countCase() {
        lock.lock(); cases += 1; lock.unlock()
    }

    /// The kept process, how many cases it ran and the ids its earlier cases sent (a
    /// late answer to one of them is a leftover, not part of the next case), if any (the
    /// caller owns it now).
    func take() -> (ChildProcess, Int, [String: StdioTarget.EarlierId])? {
        lock.lock(); defer { lock.unlock() }
        guard let p = process else { return nil }
        process = nil
        return (p, casesInProcess, unanswered)
    }

    /// Counts a process started for a case.
    func started() {
        lock.lock(); processes += 1; lock.unlock()
    }

    /// Keeps `p` (which has run `count` cases, sending the ids in `unanswered`) for the
    /// next case.
    func put(_ p: ChildProcess, count: Int, unanswered: [String: StdioTarget.EarlierId]) {
        lock.lock(); process = p; casesInProcess = count; self.unanswered = unanswered; lock.unlock()
    }

    var statistics: (processes: Int, cases: Int) {
        lock.lock(); defer { lock.unlock() }
        return (processes, cases)
    }
}
