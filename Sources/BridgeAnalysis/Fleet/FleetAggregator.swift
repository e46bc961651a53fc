import BridgeArchive
import BridgeProtocol

/// Adds sessions into a ``FleetReport`` one at a time and forgets them: what it keeps is
/// counters, one merged latency recorder per action (and per action and cut value), the
/// first sessions of each rule and the worst sessions.
public struct FleetAggregator: Sendable {
    /// Sessions named per rule.
    public static let sessionsPerRule = 10
    /// Sessions in the worst list.
    public static let worstKept = 10
    /// Distinct values kept per dimension; further values are counted under `(other)`.
    public static let maxCutValues = 200

    var report = FleetReport()
    var latency: [String: LatencyRecorder.PerAction] = [:]
    var cutLatency: [FleetCut.Dimension: [String: (sessions: Int, actions: [String: LatencyRecorder.PerAction])]] = [:]
    var rules: [RuleID: FleetRule] = [:]
    let keepSlowest: Int

    /// Creates an empty aggregate; `keepSlowest` slowest requests are kept per action.
    public init(keepSlowest: Int = 5) {
        self.keepSlowest = keepSlowest
    }

    /// The session's time for `--since`/`--until`: the archive's start, else its first record.
    public static func sessionTime(_ report: AnalysisReport, header: ArchiveHeader?) -> Int64? {
        header?.startTime ?? report.summary.firstTime
    }

    /// Adds one analysed session.
    public mutating func add(_ r: AnalysisReport, header: ArchiveHeader?) {
        report.sessions += 1
        report.records += r.summary.records
        report.messages += r.summary.messages
        report.requests += r.summary.requests
        report.unanswered += r.summary.unanswered
        report.journeys += r.connections.count
        if let t = Self.sessionTime(r, header: header) {
            report.firstSessionTime = Swift.min(report.firstSessionTime ?? t, t)
            report.lastSessionTime = Swift.max(report.lastSessionTime ?? t, t)
        }
        var failedJourneys = 0
        for c in r.connections {
            report.outcomes[c.outcome.state, default: 0] += 1
            if c.outcome.state == "error" || c.outcome.state == "incomplete" { failedJourneys += 1 }
        }
        if r.ruleCounts.contains(where: { $0.rule == .captureError || $0.rule == .captureGap }) { report.damaged.append(r.source) }
        for c in r.ruleCounts {
            var rule = rules[c.rule] ?? FleetRule(rule: c.rule, slug: c.slug, severity: c.severity, count: 0, sessions: 0, examples: [])
            rule.count += c.count
            rule.sessions += 1
            if rule.examples.count < Self.sessionsPerRule { rule.examples.append(r.source) }
            rules[c.rule] = rule
        }
        Self.merge(r, into: &latency, keepSlowest: keepSlowest)
        let first = r.connections.first { $0.hostVersion != nil || $0.environment != nil }
        let kind: String
        if let source = header?.source { kind = String(source.prefix { $0 != ":" }) } else { kind = "tap-log" }
        let values: [FleetCut.Dimension: String] = [
            .hostVersion: first?.hostVersion ?? "(unknown)", .environment: first?.environment ?? "(unknown)", .source: kind,
        ]
        for (dimension, value) in values {
            var table = cutLatency.removeValue(forKey: dimension) ?? [:]
            let key = table[value] != nil || table.count < Self.maxCutValues ? value : "(other)"
            table[key, default: (0, [:])].sessions += 1
            Self.merge(r, into: &table[key, default: (0, [:])].actions, keepSlowest: keepSlowest)
            cutLatency[dimension] = table
        }
        let errors = r.count(of: .error), warnings = r.count(of: .warning)
        let session = FleetSession(path: r.source, errors: errors, warnings: warnings, unanswered: r.summary.unanswered,
                                   failedJourneys: failedJourneys,
                                   topRules: r.ruleCounts.filter { $0.severity == .error }.sorted { $0.count > $1.count }.prefix(3).map(\.slug))
        if errors + warnings + session.unanswered + failedJourneys > 0 {
            report.worst.append(session)
            report.worst.sort { $0.isWorse(than: $1) }
            if report.worst.count > Self.worstKept { report.worst.removeLast() }
        }
    }

    /// Counts an input that could not be read.
    public mutating func fail(_ failure: InputFailure) { report.failures.append(failure) }

    /// Counts a session left out by the time window.
    public mutating func skip() { report.outsideWindow += 1 }

    /// The report so far.
    public func finish() -> FleetReport {
        var out = report
        out.latency = latency.keys.sorted().map { LatencyRecorder.statistics(action: $0, latency[$0]!) }
        out.rules = rules.keys.sorted().map { rules[$0]! }
        out.cuts = FleetCut.Dimension.all.flatMap { d in
            (cutLatency[d] ?? [:]).sorted { $0.key < $1.key }.map { value, entry in
                FleetCut(dimension: d, value: value, sessions: entry.sessions,
                         latency: entry.actions.keys.sorted().map { LatencyRecorder.statistics(action: $0, entry.actions[$0]!) })
            }
        }
        return out
    }

    static func merge(_ r: AnalysisReport, into table: inout [String: LatencyRecorder.PerAction], keepSlowest: Int) {
        for var l in r.latency {
            for i in l.slowest.indices where l.slowest[i].source == nil { l.slowest[i].source = r.source }
            // In place through the dictionary: a copy of the histogram per merge was 8% of a run.
            table[l.action, default: LatencyRecorder.PerAction()].merge(l, keepSlowest: keepSlowest)
        }
    }
}
