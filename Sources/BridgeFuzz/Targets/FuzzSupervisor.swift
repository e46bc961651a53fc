import BridgeJSON
import Foundation

/// Runs `bridgescope fuzz`: in-process through worker processes (so a trap is caught,
/// its case kept and the worker restarted), or against a black-box target from this
/// process; writes new findings as regression files and returns the summary.
public final class FuzzSupervisor {
    let options: FuzzOptions
    let store: CorpusStore
    let scenarioJSON: JSONValue?
    var summary: FuzzSummary
    var reported: Set<String>
    let tempDir: String
    let clock = ContinuousClock()
    let start: ContinuousClock.Instant

    /// Prepares a run (validates the scenario).
    public init(options: FuzzOptions) throws {
        self.options = options
        self.store = CorpusStore(root: options.corpus, regressions: options.findingsDir, includeGenerated: options.includeGenerated)
        self.scenarioJSON = try options.loadScenario().1
        self.summary = FuzzSummary(target: options.target.description, seed: options.seed)
        self.reported = store.knownKeys()
        self.tempDir = NSTemporaryDirectory() + "bridgescope-fuzz-\(getpid())"
        self.start = clock.now
    }

    var elapsed: Double {
        let d = clock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Runs to the budget and returns what happened.
    public func run() async throws -> FuzzSummary {
        switch options.target {
        case .inproc: try await runWorkers()
        case .stdio, .webSocket: try await (options.jobs > 1 ? runBlackBoxJobs() : runBlackBox())
        case .webView: try await runBlackBox()   // one page: one job
        }
        summary.seconds = elapsed
        if options.statusLine { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        return summary
    }

    /// Records a finding: writes the regression file unless the same key was seen.
    func record(_ finding: FuzzFinding) {
        guard reported.insert(finding.violation.key).inserted else { return }
        let file = try? store.write(finding, target: options.target.description, scenario: scenarioJSON, seed: options.seed)
        summary.findings.append(FuzzSummary.Entry(violation: finding.violation, file: file ?? nil,
                                                  steps: finding.input.steps.count, minimized: finding.minimized,
                                                  seconds: finding.seconds))
    }

    func status(_ line: String) {
        guard options.statusLine else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    func statusText(execs: UInt64, corpus: Int) -> String {
        let byOracle = summary.byOracle.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
        return String(format: "fuzz %@ %.0fs: %llu execs (%.0f/s), corpus %d, findings %d%@", options.target.description as NSString,
                      elapsed, execs, elapsed > 0 ? Double(execs) / elapsed : 0, corpus, summary.findings.count,
                      byOracle.isEmpty ? "" : " (\(byOracle))")
    }

    // MARK: - Black-box

    func runBlackBox() async throws {
        let (scenario, _) = try options.loadScenario()
        let target: any FuzzTarget
        switch options.target {
        case .stdio(let cmd):
            var t = StdioTarget(command: cmd, scenario: options.scenarioPath == nil ? nil : scenario)
            t.strict = options.strict
            t.responseTimeoutMs = options.responseTimeoutMs
            if let n = options.casesPerProcess { t.casesPerProcess = n }
            target = t
        case .webSocket(let url):
            var t = WebSocketTarget(url: url, scenario: options.scenarioPath == nil ? nil : scenario)
            t.deflate = options.webSocketDeflate
            t.strict = options.strict
            t.responseTimeoutMs = options.responseTimeoutMs
            target = t
        case .webView(let spec):
            guard let open = options.pageOpener else { throw FuzzError(.usage, "--target \(spec): this build cannot drive WebViews") }
            var t = WebViewTarget(spec: spec, scenario: options.scenarioPath == nil ? nil : scenario, open: open)
            t.strict = options.strict
            t.responseTimeoutMs = options.responseTimeoutMs
            target = t
        case .inproc: fatalError("unreachable")
        }
        if let probe = (target as? any ProbingTarget) { try await probe.probe() }
        var config = FuzzConfiguration(seed: options.seed, mode: options.mode, oracles: Set(Oracle.overTheWire),
                                       maxRuns: options.runs, maxSeconds: options.seconds, minimizeBudget: 300)
        config.maxFindings = options.maxFindings
        var lastStatus = clock.now
        config.progress = { [self] stats in
            if clock.now - lastStatus >= .seconds(1) {
                lastStatus = clock.now
                status(statusText(execs: stats.execs, corpus: stats.corpus))
            }
        }
        let engine = FuzzEngine(target: target, configuration: config)
        engine.knownKeys = reported
        engine.onFinding = { [self] in record($0) }
        var seeds = store.loadSeeds()
        for a in options.seedArchives { seeds += try SeedArchive.load(a) }
        await engine.addSeeds(seeds)
        await engine.run()
        summary.execs = engine.stats.execs
        summary.corpus = engine.stats.corpus
        summary.features = engine.stats.features
        summary.unconfirmed = engine.stats.unconfirmed
        summary.cutShort = engine.stats.cutShort
        if let stdio = target as? StdioTarget { summary.hostProcesses = stdio.processStatistics }
        if let page = target as? WebViewTarget, let lost = page.lost {
            let clear = options.statusLine ? "\r\u{1B}[K" : ""
            FileHandle.standardError.write(Data("\(clear)fuzz: the page went away (\(lost)); the cases after that one could not run (cut short)\n".utf8))
        }
    }
}
