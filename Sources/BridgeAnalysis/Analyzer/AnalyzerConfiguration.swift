/// Everything that tunes ``SessionAnalyzer``: thresholds of the session rules and the
/// limits that keep its memory bounded by the number of open requests, not by the
/// session's length.
public struct AnalyzerConfiguration: Sendable, Hashable {
    /// Web-side timeouts per action (`late-response`).
    public var timeouts: ActionTimeouts
    /// How far one side's envelope timestamps may go backwards, message to message,
    /// before `timestamp-regression`. Default 1,000 ms: messages built on different
    /// threads are sent slightly out of creation order.
    public var timestampToleranceMilliseconds: Int64
    /// Open requests on one connection above which `too-many-pending` fires. Default 50
    /// (Android warns above 50 pending requests).
    public var maxPendingRequests: Int
    /// BUSY answers on one slot within ``busyStormWindowMilliseconds`` above which
    /// `busy-retry-storm` fires. Default 3.
    var busyStormCount: Int
    /// The `busy-retry-storm` window. Default 2,000 ms.
    var busyStormWindowMilliseconds: Int64
    /// Memory limits.
    public var limits: Limits
    /// What the crossing analysis of two-sided recordings keeps (``CrossingLimits``).
    public var crossing = CrossingLimits()
    /// A session of a fleet (``FleetAnalyzer``): the report's latency keeps the samples
    /// for the fleet's histograms and computes no percentiles (p50, p90, p99 are 0).
    var fleetSession = false

    /// The documented defaults.
    public init(timeouts: ActionTimeouts = ActionTimeouts(), timestampToleranceMilliseconds: Int64 = 1_000,
                maxPendingRequests: Int = 50, busyStormCount: Int = 3, busyStormWindowMilliseconds: Int64 = 2_000,
                limits: Limits = Limits()) {
        self.timeouts = timeouts
        self.timestampToleranceMilliseconds = timestampToleranceMilliseconds
        self.maxPendingRequests = maxPendingRequests
        self.busyStormCount = busyStormCount
        self.busyStormWindowMilliseconds = busyStormWindowMilliseconds
        self.limits = limits
    }

    /// Caps on what the analyzer keeps. Past a cap it keeps counting but stops storing,
    /// and the report says how much it left out.
    public struct Limits: Sendable, Hashable {
        /// Findings stored per rule; more are counted only. Default 1,000.
        public var maxFindingsPerRule: Int
        /// Journey steps stored per connection; more are counted only. Default 2,000 (every
        /// step is in the JSON report: 20,000 made a 630,000-message session's report 85 MB
        /// and its RSS 400 MB; reports fold long journeys and say what was not kept).
        public var maxStepsPerConnection: Int
        /// Answered correlationIds remembered per connection, for `duplicate-response`
        /// and `reused-correlation-id`; the oldest are forgotten first (a response to a
        /// forgotten id is then `unknown-correlation`). Default 100,000, at most
        /// 10,000,000; about 30 bytes per remembered UUID id (``RecentIDs``).
        public var maxRememberedIDsPerConnection: Int
        /// Slowest examples kept per action. Default 5.
        var slowestPerAction: Int
        /// Longest correlationId or action kept, in bytes; longer ones are cut (a hostile
        /// id cannot inflate memory). Default 256.
        var maxIdentifierBytes: Int
        /// Connections tracked one by one; records of further connections are analysed
        /// together as the connection `(other connections)`. Default 10,000.
        public var maxConnections: Int
        /// Open requests tracked per connection; further requests are counted but not
        /// paired (their responses become `unknown-correlation`). Default 100,000.
        public var maxOpenRequestsPerConnection: Int
        /// Distinct actions with their own latency histogram; further actions are
        /// counted under `(other actions)`. Default 1,000.
        public var maxActions: Int

        /// The documented defaults.
        public init(maxFindingsPerRule: Int = 1_000, maxStepsPerConnection: Int = 2_000,
                    maxRememberedIDsPerConnection: Int = 100_000, slowestPerAction: Int = 5,
                    maxIdentifierBytes: Int = 256, maxConnections: Int = 10_000,
                    maxOpenRequestsPerConnection: Int = 100_000, maxActions: Int = 1_000) {
            self.maxFindingsPerRule = maxFindingsPerRule
            self.maxStepsPerConnection = maxStepsPerConnection
            self.maxRememberedIDsPerConnection = maxRememberedIDsPerConnection
            self.slowestPerAction = slowestPerAction
            self.maxIdentifierBytes = maxIdentifierBytes
            self.maxConnections = maxConnections
            self.maxOpenRequestsPerConnection = maxOpenRequestsPerConnection
            self.maxActions = maxActions
        }
    }
}
