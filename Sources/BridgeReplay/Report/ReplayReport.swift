/// The result of replaying a session: per connection, what was sent and received and
/// every divergence; plus what was skipped and which rules were in force.
public struct ReplayReport: Sendable {
    /// One connection's result.
    public struct ConnectionResult: Sendable {
        /// The recorded connection's id.
        public var id: String
        /// Messages sent.
        public var sent: Int
        /// Messages the recording holds for the web side of it.
        public var planned: Int
        /// Messages received from the target.
        public var received: Int
        /// Responses given up on after the response timeout.
        public var timedOut: Int
        /// Divergences, in the order found.
        public var divergences: [Divergence]
        /// Why it could not be replayed, if it could not.
        public var error: String?
        /// Requests whose recorded answers were cut off: replayed, not compared.
        public var uncompared: Int
    }

    /// The archive replayed.
    public var archive: String
    /// The target, as given.
    public var target: String
    /// The pacing.
    public var pacing: ReplayPacing
    /// Per connection, in start order.
    public var connections: [ConnectionResult]
    /// What was not replayed.
    public var skipped: [SkippedPart]
    /// The archive reader's findings.
    public var archiveFindings: [String]
    /// Default normalization rules in force (`timestamps`, `event-ids`, `images`).
    var defaultRules: [String]
    /// `--ignore` patterns.
    public var ignored: [String]
    /// Pointers learned volatile (`--learn`).
    public var volatile: [String]
    /// Replays run (1, or N with `--learn N`).
    public var runs: Int
    /// Send lateness under `recorded`/`xN` pacing, p50 and p99 (ns), when paced.
    public var lateness: (p50: Int64, p99: Int64)?

    /// Creates a report.
    public init(archive: String, target: String, pacing: ReplayPacing, connections: [ConnectionResult] = [],
                skipped: [SkippedPart] = [], archiveFindings: [String] = [], defaultRules: [String] = [],
                ignored: [String] = [], volatile: [String] = [], runs: Int = 1, lateness: (p50: Int64, p99: Int64)? = nil) {
        self.archive = archive
        self.target = target
        self.pacing = pacing
        self.connections = connections
        self.skipped = skipped
        self.archiveFindings = archiveFindings
        self.defaultRules = defaultRules
        self.ignored = ignored
        self.volatile = volatile
        self.runs = runs
        self.lateness = lateness
    }

    /// Every divergence, connection by connection.
    public var divergences: [Divergence] { connections.flatMap(\.divergences) }

    /// Number of divergences.
    public var divergenceCount: Int { connections.reduce(0) { $0 + $1.divergences.count } }

    /// Whether some connection could not be replayed at all (exit status 2).
    public var hasConnectionErrors: Bool { connections.contains { $0.error != nil } }

    /// Messages sent in all.
    public var sent: Int { connections.reduce(0) { $0 + $1.sent } }

    /// Messages received in all.
    public var received: Int { connections.reduce(0) { $0 + $1.received } }

    /// Messages skipped in all.
    var skippedMessages: Int { skipped.reduce(0) { $0 + $1.messages } }

    /// The CLI's exit status: 2 when a connection could not be replayed, 1 when there
    /// are divergences, else 0.
    public var exitStatus: Int32 {
        if hasConnectionErrors { return 2 }
        return divergenceCount > 0 ? 1 : 0
    }

    /// Divergence counts by kind, sorted by kind.
    var countsByKind: [(kind: Divergence.Kind, count: Int)] {
        var counts: [Divergence.Kind: Int] = [:]
        for d in divergences { counts[d.kind, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
