import BridgeProtocol

/// Counts and times of one analysed session.
public struct SessionSummary: Sendable, Hashable {
    /// Records read (messages and capture events).
    public var records: Int = 0
    /// Messages read.
    public var messages: Int = 0
    /// Capture events read.
    public var captureEvents: Int = 0
    /// Message bytes read.
    public var bytes: Int64 = 0
    /// Messages that did not decode to an envelope (each is also a finding).
    public var undecodable: Int = 0
    /// Requests sent (web to host).
    public var requests: Int = 0
    /// Requests without a final response at the end.
    public var unanswered: Int = 0
    /// First capture time (ns since the epoch), when any record had one.
    var firstTime: Int64?
    /// Last capture time (ns since the epoch).
    public var lastTime: Int64?

    /// Creates an empty summary.
    public init() {}

    /// The session's span in nanoseconds.
    public var duration: Int64 {
        guard let firstTime, let lastTime else { return 0 }
        return lastTime - firstTime
    }
}

/// Everything the analyzer found in one session: findings, latency, journeys. A value
/// the renderers turn into text, JSON (`docs/REPORT.md`), JUnit XML or HTML.
public struct AnalysisReport: Sendable, Hashable {
    /// The JSON report schema version this library writes (`docs/REPORT.md`).
    static let schemaVersion = 1

    /// Where the session came from (a file path, or a name given by the caller).
    public var source: String
    /// Counts and times.
    public var summary: SessionSummary
    /// Stored findings, in record order (at most the per-rule cap each).
    public var findings: [ReportFinding]
    /// Every rule that fired, in id order, with its full count.
    public var ruleCounts: [RuleCount]
    /// Latency per action, in action order.
    public var latency: [ActionLatency]
    /// Connections in order of first appearance.
    public var connections: [ConnectionReport]
    /// The timeouts the analysis used.
    public var timeouts: ActionTimeouts

    /// Creates a report.
    public init(source: String, summary: SessionSummary, findings: [ReportFinding], ruleCounts: [RuleCount],
                latency: [ActionLatency], connections: [ConnectionReport], timeouts: ActionTimeouts) {
        self.source = source
        self.summary = summary
        self.findings = findings
        self.ruleCounts = ruleCounts
        self.latency = latency
        self.connections = connections
        self.timeouts = timeouts
    }

    /// Findings (stored or not) whose severity is at least `severity`.
    public func count(atLeast severity: Severity) -> Int {
        ruleCounts.filter { $0.severity >= severity }.reduce(0) { $0 + $1.count }
    }

    /// Findings (stored or not) of exactly `severity`.
    public func count(of severity: Severity) -> Int {
        ruleCounts.filter { $0.severity == severity }.reduce(0) { $0 + $1.count }
    }

    /// The highest severity found, if anything was found.
    public var worstSeverity: Severity? { ruleCounts.map(\.severity).max() }

    /// Findings counted but not stored (past the per-rule cap).
    public var findingsOmitted: Int { ruleCounts.reduce(0) { $0 + $1.count } - findings.count }
}
