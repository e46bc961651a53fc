import Logging
import BridgeClock

/// Replays a recorded session toward a target and compares what comes back with the
/// recording: plans every connection (``ReplayPlanner``), runs them concurrently (each
/// starting at its recorded offset under paced modes) with the target's driver, learns
/// volatile fields when asked, and diffs (``ExchangeDiffer``).
public struct Replayer: Sendable {
    /// The options in force.
    public let options: ReplayOptions
    let logger: Logger

    /// Creates a replayer.
    public init(options: ReplayOptions, logger: Logger = Logger(label: "bridgescope.replay")) {
        self.options = options
        self.logger = logger
    }

    /// Replays `session` (read from `archiveName`, for the report) and returns the report.
    public func run(_ session: ReplaySession, archiveName: String) async -> ReplayReport {
        let plans = ReplayPlanner.plan(session)
        var runs: [[ConnectionRun]] = []
        for n in 0..<max(1, options.runs) {
            logger.debug("replay run", metadata: ["run": "\(n + 1)", "connections": "\(plans.count)"])
            runs.append(await runOnce(plans))
        }
        var rules = options.rules
        let learned = runs.count > 1 ? VolatileLearner.learn(runs, plans: plans, rules: rules) : []
        rules.volatile += learned
        let differ = ExchangeDiffer(rules: rules, timing: options.tolerance)
        var results: [ReplayReport.ConnectionResult] = []
        for (index, (plan, run)) in zip(plans, runs[0]).enumerated() {
            // A learning run that could not connect makes the learning, and so the result, unsound.
            let error = run.error ?? runs.dropFirst().lazy.compactMap { $0[index].error }.first.map { "learning run: \($0)" }
            var divergences: [Divergence] = []
            if error == nil {
                divergences = differ.diff(expected: plan.expected, actual: run.observed, connection: plan.id,
                                          uncompared: plan.uncompared, reportExtraHostMessages: !plan.isCut)
                let judge = ProtocolJudge(strict: options.target.isInproc, exactTiming: options.usesVirtualTime)
                if let v = judge.judge(run.observed, connection: plan.id, cut: plan.isCut || run.closedEarly) { divergences.append(v) }
                if run.closedEarly {
                    divergences.append(Divergence(connection: plan.id, kind: .closedEarly,
                                                  message: "the target closed the connection after \(run.sent) of \(run.planned) message(s)"))
                }
            }
            let received = run.observed.responses.values.reduce(0) { $0 + $1.count }
                + run.observed.hostMessages.values.reduce(0) { $0 + $1.count }
            results.append(.init(id: plan.id, sent: run.sent, planned: run.planned, received: received, timedOut: run.timedOut,
                                 divergences: divergences, error: error, uncompared: plan.uncompared.count))
        }
        let lateness = options.pacing.isASAP || options.usesVirtualTime ? nil
            : Self.percentiles(runs.flatMap { $0.flatMap(\.lateness) })
        return ReplayReport(archive: archiveName, target: options.target.description, pacing: options.pacing,
                            connections: results, skipped: session.skipped, archiveFindings: session.archiveFindings,
                            defaultRules: options.rules.activeDefaults, ignored: options.rules.ignored.map(\.text),
                            volatile: learned.map(\.text), runs: runs.count, lateness: lateness)
    }

    /// Replays every plan once: concurrently on the real clock, or one after the other
    /// on virtual time (each connection has its own host and clock there).
    public func runOnce(_ plans: [ConnectionPlan]) async -> [ConnectionRun] {
        let o = options
        if o.usesVirtualTime {
            return plans.enumerated().map { i, plan in
                VirtualReplayDriver.run(plan: plan, scenario: o.scenario, pacing: o.pacing, timing: o.timing,
                                        seed: o.seed &+ UInt64(i))
            }
        }
        if case .webView = o.target {
            // One page: its connections one after another.
            var runs: [ConnectionRun] = []
            for (i, plan) in plans.enumerated() { runs.append(await runConnection(plan, index: i)) }
            return runs
        }
        let start = Int64(Stopwatch.monotonic.now())
        return await withTaskGroup(of: (Int, ConnectionRun).self) { group in
            for (i, plan) in plans.enumerated() {
                group.addTask {
                    if !o.pacing.isASAP { try? await Stopwatch.monotonic.sleep(until: UInt64(clamping: start + o.pacing.scale(plan.startOffset)), spin: o.spin) }
                    return (i, await self.runConnection(plan, index: i))
                }
            }
            var out = [ConnectionRun?](repeating: nil, count: plans.count)
            for await (i, run) in group { out[i] = run }
            return out.map { $0! }
        }
    }

    func runConnection(_ plan: ConnectionPlan, index: Int) async -> ConnectionRun {
        let o = options
        var connLogger = logger
        connLogger[metadataKey: "conn"] = "\(plan.id)"
        switch o.target {
        case .inproc:
            return await InprocLink.with(scenario: o.scenario, seed: o.seed &+ UInt64(index), logger: connLogger) { link in
                await RealTimeReplayDriver.run(plan: plan, link: link, pacing: o.pacing, timing: o.timing, spin: o.spin)
            }
        case .webSocket(let url):
            do {
                return try await WebSocketLink.with(url: url, options: o.client, retries: o.retries, logger: connLogger) { link in
                    await RealTimeReplayDriver.run(plan: plan, link: link, pacing: o.pacing, timing: o.timing, spin: o.spin)
                }
            } catch {
                return ConnectionRun(id: plan.id, planned: plan.sends.count, error: error.message)
            }
        case .stdio(let command):
            do {
                let grace = Double(o.timing.responseTimeout) / 1e9
                let (run, status, stderr) = try await StdioLink.with(command: command, grace: grace, logger: connLogger) { link in
                    await RealTimeReplayDriver.run(plan: plan, link: link, pacing: o.pacing, timing: o.timing, spin: o.spin)
                }
                let heard = !run.observed.responses.isEmpty || !run.observed.hostMessages.isEmpty
                if status != 0 && !heard {
                    let detail = stderr.isEmpty ? "" : ": \(stderr)"
                    return ConnectionRun(id: plan.id, planned: plan.sends.count,
                                         error: "the stdio host `\(command)` exited with status \(status) without answering\(detail)")
                }
                return run
            } catch {
                return ConnectionRun(id: plan.id, planned: plan.sends.count, error: error.message)
            }
        case .webView(let spec):
            guard let open = o.pageOpener else {
                return ConnectionRun(id: plan.id, planned: plan.sends.count, error: "\(spec): this command cannot drive WebViews")
            }
            do {
                return try await PageLink.with(spec, open: open) { link in
                    await RealTimeReplayDriver.run(plan: plan, link: link, pacing: o.pacing, timing: o.timing, spin: o.spin)
                }
            } catch {
                return ConnectionRun(id: plan.id, planned: plan.sends.count, error: error.message)
            }
        }
    }

    /// p50 and p99 of `values` (nearest rank); nil when empty.
    static func percentiles(_ values: [Int64]) -> (p50: Int64, p99: Int64)? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        func rank(_ p: Double) -> Int64 { s[min(s.count - 1, max(0, Int((p * Double(s.count)).rounded(.up)) - 1))] }
        return (rank(0.50), rank(0.99))
    }
}
