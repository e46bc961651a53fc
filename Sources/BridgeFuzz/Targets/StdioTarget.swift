import BridgeTransport
import BridgeHost
import Foundation

/// Any host that reads one envelope per line on standard input and writes one per line
/// on standard output (`bridgescope host --stdio` and the like), started afresh for
/// each case with `/bin/sh -c COMMAND`. Black-box: real time, ordered (not exact)
/// timing; a host killed by a signal is a ``Oracle/crash``.
///
/// A message holding newlines reaches such a host as several lines; the trace records
/// the lines as sent, so the oracles judge what the host really received.
public struct StdioTarget: FuzzTarget, ProbingTarget {
    /// The shell command.
    public let command: String
    /// The scenario the host runs, when known (enables the capability and routing checks).
    public let scenario: Scenario?
    /// Longest real wait of one step (delays are capped so a case stays short). Default 2 s.
    var maxStepDelayMs: Int64 = 2_000
    /// How long the host gets after its input closes to answer and exit. Default 5 s,
    /// or the scenario's longest latency plus 2 s when longer.
    var quietMs: Int64

    /// Creates the target.
    public init(command: String, scenario: Scenario?) {
        self.command = command
        self.scenario = scenario
        let longest = scenario.map { s in max(s.document.latencyMs, s.selfie.latencyMs, s.custom.map(\.latencyMs).max() ?? 0) } ?? 0
        self.quietMs = max(5_000, longest + 2_000)
    }

    /// `stdio:COMMAND`.
    public var name: String { "stdio:\(command)" }
    /// False.
    public var supportsToggles: Bool { false }

    /// Checker without a pending limit (unknown) and with the scenario model when known.
    public func checker(oracles: Set<Oracle>) -> TraceChecker {
        TraceChecker(model: scenario.map(CapabilityModel.init), pendingLimit: nil,
                     oracles: oracles.intersection(Oracle.overTheWire))
    }

    func probe() async throws {
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

    /// Runs one case in a fresh host process.
    public func run(_ input: FuzzInput) async -> Trace {
        var trace = Trace(exactTiming: false)
        let clock = ContinuousClock()
        let t0 = clock.now
        func now() -> Int64 { Int64((clock.now - t0) / .milliseconds(1)) }
        guard let p = try? ChildProcess(executable: "/bin/sh", arguments: ["-c", command]) else {
            trace.targetFailure = "cannot start `\(command)`"
            return trace
        }
        func collect(_ timeoutMs: Int32) -> Bool {
            let open = p.pump(timeoutMs: timeoutMs)
            for line in p.takeLines() {
                var l = line
                if l.last == 0x0D { l.removeLast() }
                if !l.isEmpty { trace.events.append(.received(bytes: l, atMs: now())) }
            }
            return open
        }
        for (i, step) in input.steps.enumerated() {
            let wait = min(step.delayMs, maxStepDelayMs)
            let until = clock.now + .milliseconds(wait)
            repeat { _ = collect(Int32(max(0, min(50, (until - clock.now) / .milliseconds(1))))) } while clock.now < until
            guard case .message(let bytes) = step.kind else { continue }
            for var line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init) {
                if line.last == 0x0D { line.removeLast() }
                guard !line.isEmpty else { continue }
                trace.events.append(.sent(step: i, bytes: line, atMs: now()))
                if !p.write(line + [0x0A]) { break }
            }
            _ = collect(0)
        }
        p.closeStdin()
        let end = clock.now + .milliseconds(quietMs)
        while clock.now < end {
            let open = collect(50)
            if !open && p.status() != nil { break }
        }
        _ = collect(0)
        let t = p.status()
        if t == nil { p.signal(SIGKILL); _ = p.wait() }
        if case .signaled(let s)? = t {
            trace.targetFailure = "the host process was killed by signal \(s) (\(ChildProcess.signalName(s))): \(p.crashLine ?? "")"
        }
        return trace
    }
}
