import BridgeArchive
import Foundation
import Logging

/// Analyses a fleet of sessions with at most ``jobs`` in flight and folds each report
/// into a ``FleetAggregator`` as it completes, then drops it: memory is bounded by the
/// jobs in flight (each one session's analysis), not by the number of sessions.
///
/// An input that cannot be read is counted and named, and the run goes on. The caller's
/// task owns the work and its cancellation; `each` sees every report in the caller's
/// task, one at a time (`analyze --otlp` sends it on), before it is dropped. Those
/// reports' latency has no percentiles (``AnalyzerConfiguration/fleetSession``).
public struct FleetAnalyzer: Sendable {
    /// The analysis configuration for every session.
    public var configuration: AnalyzerConfiguration
    /// Sessions analysed at once (at least 1).
    public var jobs: Int
    /// Sessions whose time (the archive's start, else the first record) is before
    /// `since` or at or after `until` (ns since the epoch) are counted and left out.
    public var since: Int64?, until: Int64?
    /// The logger.
    public var logger: Logger

    /// Creates a fleet analyzer.
    public init(configuration: AnalyzerConfiguration = AnalyzerConfiguration(), jobs: Int, since: Int64? = nil, until: Int64? = nil,
                logger: Logger = Logger(label: "bridgescope.analysis")) {
        self.configuration = configuration
        self.jobs = Swift.max(1, jobs)
        self.since = since
        self.until = until
        self.logger = logger
    }

    /// What one job hands back.
    enum Outcome: Sendable {
        case report(AnalysisReport, ArchiveHeader?)
        case outside
        case failure(InputFailure)
    }

    /// Progress after each input: inputs done, unreadable so far, findings so far.
    public typealias Progress = (_ done: Int, _ failed: Int, _ findings: Int) -> Void

    /// Analyses every input and returns the fleet report.
    public func run(_ paths: [String], progress: Progress? = nil,
                    each: ((AnalysisReport, ArchiveHeader?) async -> Void)? = nil) async -> FleetReport {
        let started = ContinuousClock.now
        var aggregate = FleetAggregator(keepSlowest: configuration.limits.slowestPerAction)
        var findings = 0
        await withTaskGroup(of: Outcome.self) { group in
            var next = 0
            func start() {
                let path = paths[next]
                next += 1
                group.addTask { self.analyze(path) }
            }
            while next < paths.count && next < jobs { start() }
            var done = 0, failed = 0
            while let outcome = await group.next() {
                done += 1
                switch outcome {
                case .report(let r, let header):
                    findings += r.ruleCounts.reduce(0) { $0 + $1.count }
                    aggregate.add(r, header: header)
                    await each?(r, header)
                case .outside:
                    aggregate.skip()
                case .failure(let f):
                    failed += 1
                    aggregate.fail(f)
                }
                progress?(done, failed, findings)
                if next < paths.count && !Task.isCancelled { start() }
            }
        }
        var report = aggregate.finish()
        let elapsed = (ContinuousClock.now - started).components
        report.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        return report
    }

    /// Opens, filters by time and analyses one input.
    func analyze(_ path: String) -> Outcome {
        do throws(AnalysisError) {
            var source = try SessionInput.open(path)
            let header = (source as? ArchiveEventSource)?.header
            if let t = header?.startTime, !inWindow(t) { return .outside }
            var configuration = configuration
            configuration.fleetSession = true
            let report = try SessionAnalyzer.analyze(&source, name: path, configuration: configuration, logger: logger)
            if header == nil, let t = report.summary.firstTime, !inWindow(t) { return .outside }
            return .report(report, header)
        } catch {
            return .failure(InputFailure(path: path, error: error))
        }
    }

    func inWindow(_ t: Int64) -> Bool {
        if let since, t < since { return false }
        if let until, t >= until { return false }
        return true
    }

    /// Reads a `--since`/`--until` value: an ISO 8601 date (`2026-11-24`), date and time
    /// (`2026-11-24T13:00:00Z`, an offset, or UTC when none), or nanoseconds since the
    /// epoch. Nil when unreadable.
    public static func time(_ text: String) -> Int64? {
        if let n = Int64(text) { return n }
        let f = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate]] {
            f.formatOptions = options
            f.timeZone = TimeZone(identifier: "UTC")
            if let d = f.date(from: text) { return Self.nanoseconds(d) }
        }
        f.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        if let d = f.date(from: text.replacingOccurrences(of: " ", with: "T")) { return Self.nanoseconds(d) }
        return nil
    }

    /// A date as whole milliseconds, in nanoseconds (no floating-point residue).
    static func nanoseconds(_ d: Date) -> Int64 {
        Int64((d.timeIntervalSince1970 * 1000).rounded()) * 1_000_000
    }
}
