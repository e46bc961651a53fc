import BridgeProtocol

/// What a fleet of sessions adds up to (`analyze --fleet`, docs/FLEET.md): counters,
/// merged latency histograms, findings per rule with the sessions that carry them,
/// journey outcomes, the worst sessions, and the same latency cut by what the sessions
/// say about themselves. Its size depends on the number of actions, rules and distinct
/// host versions, environments and sources, not on the number of sessions (the named
/// sessions are capped; the unreadable and damaged ones are all named).
public struct FleetReport: Sendable {
    /// Sessions analysed (inside the time window).
    public var sessions = 0
    /// Sessions left out by `--since`/`--until`.
    public var outsideWindow = 0
    /// Inputs that could not be read at all, with why (every one is named).
    public var failures: [InputFailure] = []
    /// Sessions read only in part (a `capture-error` or `capture-gap` finding): every one is named.
    public var damaged: [String] = []
    /// Sums over the sessions.
    public var records = 0, messages = 0, requests = 0, unanswered = 0, journeys = 0
    /// Journeys per outcome state (`complete`, `error`, `incomplete`, `none`).
    public var outcomes: [String: Int] = [:]
    /// Latency per action over all sessions (HdrHistograms merged), in action order.
    public var latency: [ActionLatency] = []
    /// Findings per rule, in rule order.
    public var rules: [FleetRule] = []
    /// The worst sessions, worst first (at most ``FleetAggregator/worstKept``).
    public var worst: [FleetSession] = []
    /// Latency cut by host version, environment and source, in that order, values sorted.
    public var cuts: [FleetCut] = []
    /// The earliest and latest session time seen (ns since the epoch).
    public var firstSessionTime: Int64?, lastSessionTime: Int64?
    /// Wall-clock seconds the run took (set by the runner).
    public var seconds = 0.0
}

/// One rule over the fleet.
public struct FleetRule: Sendable, Hashable {
    /// The rule, its slug and severity.
    public var rule: RuleID, slug: String, severity: Severity
    /// Findings over all sessions (stored or not).
    public var count: Int
    /// Sessions it fired in.
    public var sessions: Int
    /// The first sessions it fired in, in completion order (at most ``FleetAggregator/sessionsPerRule``).
    public var examples: [String]
}

/// A session of the fleet, as the worst list shows it.
public struct FleetSession: Sendable, Hashable {
    /// The file to open.
    public var path: String
    /// Findings at error and warning severity, unanswered requests, and journeys that
    /// ended `error` or `incomplete`.
    public var errors: Int, warnings: Int, unanswered: Int, failedJourneys: Int
    /// The rules with errors, most frequent first (at most 3).
    public var topRules: [String]

    /// Worse sorts first: errors, then failed journeys, unanswered requests, warnings.
    func isWorse(than o: FleetSession) -> Bool {
        (errors, failedJourneys, unanswered, warnings, o.path) > (o.errors, o.failedJourneys, o.unanswered, o.warnings, path)
    }
}

/// The fleet's latency for one value of one dimension ("host version 4.2.0").
public struct FleetCut: Sendable {
    /// What the sessions say about themselves: ``Dimension``.
    public var dimension: Dimension
    /// The value (`(unknown)` when a session does not say).
    public var value: String
    /// Sessions with this value.
    public var sessions: Int
    /// Latency per action of those sessions.
    public var latency: [ActionLatency]

    /// The dimensions a fleet is cut by (an open set).
    public struct Dimension: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// Its name.
        public var rawValue: String
        /// Creates a dimension.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `hostVersion` of the session's first successful `capability.query` answer.
        public static let hostVersion = Dimension(rawValue: "hostVersion")
        /// `environment` of the same answer.
        public static let environment = Dimension(rawValue: "environment")
        /// The kind of recording: the archive header's `source` up to its `:`
        /// (`tap`, `pcap`, `pcap-file`, `proxy`, `cdp`), or `tap-log` for a tap log given directly.
        public static let source = Dimension(rawValue: "source")
        /// Every dimension, in report order.
        public static let all: [Dimension] = [.hostVersion, .environment, .source]
        /// Its name.
        public var description: String { rawValue }
    }
}

extension FleetReport {
    /// 2 when an input could not be read, else 1 when a rule at or above `threshold`
    /// fired in any session, else 0.
    public func exitStatus(threshold: FailThreshold) -> Int32 {
        if !failures.isEmpty { return 2 }
        guard let severity = threshold.severity else { return 0 }
        return rules.contains { $0.severity >= severity && $0.count > 0 } ? 1 : 0
    }
}
