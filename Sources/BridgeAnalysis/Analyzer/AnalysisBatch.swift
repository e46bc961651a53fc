import BridgeProtocol
import Logging

/// An input that could not be analysed (it could not be opened or read).
public struct InputFailure: Sendable, Hashable {
    /// The path as given.
    public var path: String
    /// Why.
    public var error: AnalysisError

    /// Creates a failure.
    public init(path: String, error: AnalysisError) {
        self.path = path
        self.error = error
    }
}

/// Totals over every session of a batch.
public struct AggregateReport: Sendable, Hashable {
    /// Sessions analysed.
    public var sessions: Int
    /// Inputs that failed.
    var failedInputs: Int
    /// Records, messages, requests and unanswered requests over all sessions.
    public var records: Int, messages: Int, requests: Int, unanswered: Int
    /// Findings per rule over all sessions.
    public var ruleCounts: [RuleCount]
    /// Sessions in which each rule fired, by rule id.
    var sessionsPerRule: [RuleID: Int]
    /// Latency per action over all sessions (histograms merged).
    public var latency: [ActionLatency]

    /// Findings (stored or not) whose severity is at least `severity`.
    public func count(atLeast severity: Severity) -> Int {
        ruleCounts.filter { $0.severity >= severity }.reduce(0) { $0 + $1.count }
    }
}

/// The reports of several sessions and their aggregate.
public struct AnalysisBatch: Sendable, Hashable {
    /// One report per session, in input order.
    public var reports: [AnalysisReport]
    /// Inputs that could not be analysed, in input order.
    public var failures: [InputFailure]
    /// Totals.
    public var aggregate: AggregateReport

    /// Builds a batch and computes its aggregate.
    public init(reports: [AnalysisReport], failures: [InputFailure] = [], keepSlowest: Int = 5) {
        self.reports = reports
        self.failures = failures
        var counts: [RuleID: RuleCount] = [:]
        var sessionsPerRule: [RuleID: Int] = [:]
        for r in reports {
            for c in r.ruleCounts {
                counts[c.rule, default: RuleCount(rule: c.rule, slug: c.slug, severity: c.severity, count: 0)].count += c.count
                sessionsPerRule[c.rule, default: 0] += 1
            }
        }
        aggregate = AggregateReport(
            sessions: reports.count, failedInputs: failures.count,
            records: reports.reduce(0) { $0 + $1.summary.records }, messages: reports.reduce(0) { $0 + $1.summary.messages },
            requests: reports.reduce(0) { $0 + $1.summary.requests }, unanswered: reports.reduce(0) { $0 + $1.summary.unanswered },
            ruleCounts: counts.keys.sorted().map { counts[$0]! }, sessionsPerRule: sessionsPerRule,
            latency: LatencyRecorder.merge(reports, keepSlowest: keepSlowest))
    }
}

/// Analyses several inputs in parallel (at most `jobs` at once) with structured
/// concurrency; the caller's task owns the work and its cancellation.
public struct BatchAnalyzer: Sendable {
    /// Opens one input (with `readAhead`: decompressing on a thread of its own); by
    /// default ``SessionInput/open(_:readAhead:)``.
    public typealias Opener = @Sendable (_ path: String, _ readAhead: Bool) throws(AnalysisError) -> any AnalysisEventSource

    /// The configuration for every session.
    public var configuration: AnalyzerConfiguration
    /// Sessions analysed at once (at least 1).
    public var jobs: Int
    /// How inputs are opened.
    public var opener: Opener
    /// The logger.
    public var logger: Logger

    /// Creates a batch analyzer.
    public init(configuration: AnalyzerConfiguration = AnalyzerConfiguration(), jobs: Int,
                logger: Logger = Logger(label: "bridgescope.analysis"),
                opener: @escaping Opener = { path, readAhead throws(AnalysisError) in try SessionInput.open(path, readAhead: readAhead) }) {
        self.configuration = configuration
        self.jobs = Swift.max(1, jobs)
        self.opener = opener
        self.logger = logger
    }

    /// Analyses one input; with `readAhead`, an archive is read and scanned on a thread
    /// of its own (``ArchiveEventSource``).
    public func analyze(_ path: String, readAhead: Bool = false) -> Result<AnalysisReport, AnalysisError> {
        do throws(AnalysisError) {
            var source = try opener(path, readAhead)
            return .success(try SessionAnalyzer.analyze(&source, name: path, configuration: configuration, logger: logger))
        } catch {
            return .failure(error)
        }
    }

    /// Analyses every input, at most ``jobs`` at a time, each on one task
    /// (``analyze(_:readAhead:)``); results keep input order. With fewer inputs than
    /// ``jobs``, an archive is read ahead: read and scanned on a thread of its own (and
    /// decompressed on another when its lines are long), analysed on the task
    /// (``ArchiveEventSource``).
    ///
    /// `progress` is called after each input with the inputs done and how many failed
    /// (the CLI shows it on a terminal).
    public func run(_ paths: [String], progress: (@Sendable (_ done: Int, _ failed: Int) -> Void)? = nil) async -> AnalysisBatch {
        // A core per input and one to spare: an archive is read ahead.
        let readAhead = paths.count < jobs
        var results = [Result<AnalysisReport, AnalysisError>?](repeating: nil, count: paths.count)
        await withTaskGroup(of: (Int, Result<AnalysisReport, AnalysisError>).self) { group in
            var next = 0
            func start() {
                let i = next, path = paths[i]
                next += 1
                group.addTask { (i, self.analyze(path, readAhead: readAhead)) }
            }
            while next < paths.count && next < jobs { start() }
            var done = 0, failed = 0
            while let (i, r) = await group.next() {
                results[i] = r
                done += 1
                if case .failure = r { failed += 1 }
                progress?(done, failed)
                if next < paths.count && !Task.isCancelled { start() }
            }
        }
        var reports: [AnalysisReport] = []
        var failures: [InputFailure] = []
        for (i, r) in results.enumerated() {
            switch r {
            case .success(let report)?: reports.append(report)
            case .failure(let e)?: failures.append(InputFailure(path: paths[i], error: e))
            case nil: failures.append(InputFailure(path: paths[i], error: AnalysisError(.unreadableInput, "\(paths[i]): cancelled")))
            }
        }
        return AnalysisBatch(reports: reports, failures: failures, keepSlowest: configuration.limits.slowestPerAction)
    }
}
