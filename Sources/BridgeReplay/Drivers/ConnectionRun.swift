/// What happened when one recorded connection was replayed once.
public struct ConnectionRun: Sendable {
    /// The recorded connection's id.
    public var id: String
    /// The replayed traffic, arranged for comparison.
    public var observed: Exchange
    /// Messages sent / planned.
    public var sent: Int
    /// Messages the plan holds.
    public var planned: Int
    /// For each paced send: how late it went (ns, actual minus due; 0 under `asap`).
    public var lateness: [Int64]
    /// Responses given up on after the response timeout.
    public var timedOut: Int
    /// Whether the target closed the connection before the plan was done.
    public var closedEarly: Bool
    /// Why the connection could not be replayed at all (target down, command failed).
    public var error: String?

    /// A run from a finished scheduler.
    public init(scheduler s: ReplayScheduler) {
        id = s.plan.id
        observed = s.observed
        sent = s.sendTimes.count
        planned = s.plan.sends.count
        lateness = s.sendTimes.map { max(0, $0.actual - $0.due) }
        timedOut = s.timedOut
        closedEarly = s.closedAt != nil && !s.allSent
        error = nil
    }

    /// A run that failed before anything was exchanged.
    public init(id: String, planned: Int, error: String) {
        self.id = id
        observed = Exchange()
        sent = 0
        self.planned = planned
        lateness = []
        timedOut = 0
        closedEarly = false
        self.error = error
    }
}
