#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bounds of ``ConnectionAdmission``, and how the connection cap follows from the
/// process's descriptor limit (docs/SECURITY.md, "Connections").
package struct AdmissionLimits: Sendable, Hashable {
    /// Connections (plain HTTP and WebSocket together) holding a slot at once.
    package var maxConnections: Int
    /// Slots one peer address may hold (an IPv6 address counts by its /64). Default half
    /// the cap (at least 1).
    package var maxPerAddress: Int
    /// Connections being refused or evicted at once (each holds its descriptor until its
    /// 503 or close frame is out); past it a new connection is closed at once, unanswered.
    package var headroom: Int
    /// A silent connection is evicted only once it has been silent this long (ns). 1 s,
    /// as the memory budget's eviction: a page that just upgraded gets to speak.
    package var minimumAgeBeforeEviction: Int64 = 1_000_000_000
    /// At most one log line of counts per this many nanoseconds. 1 s.
    package var reportInterval: Int64 = 1_000_000_000
    /// The first accept backoff after `EMFILE`/`ENFILE` (ns): 100 ms, doubling to 1 s.
    package var initialBackoff: Int64 = 100_000_000
    /// The longest accept backoff (ns). 1 s.
    package var maximumBackoff: Int64 = 1_000_000_000
    /// The `Retry-After` of a 503, seconds. 1.
    package var retryAfterSeconds = 1

    /// Creates limits; `maxPerAddress` defaults to half the cap.
    package init(maxConnections: Int, maxPerAddress: Int? = nil, headroom: Int = AdmissionLimits.headroomConnections) {
        self.maxConnections = max(1, maxConnections)
        self.maxPerAddress = max(1, min(self.maxConnections, maxPerAddress ?? self.maxConnections / 2))
        self.headroom = max(1, headroom)
    }

    /// Descriptors kept for the process's own files: standard streams, three per event
    /// loop (epoll, eventfd, timerfd), the listening socket, the transcript or archive,
    /// a journey file being served, name lookups for the upstream. 32.
    package static let processReserve = 32
    /// Connections that may be refused or evicted at once (their descriptors are kept
    /// beside the cap). 16.
    package static let headroomConnections = 16
    /// Where the process's descriptor limit is unknown or unlimited, it is taken as this. 1 Mi.
    package static let unlimitedDescriptors = 1 << 20

    /// The process's soft `RLIMIT_NOFILE` (the limit `accept` fails at), or
    /// ``unlimitedDescriptors`` when it is infinite, larger or unknown.
    package static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return unlimitedDescriptors }
        // RLIM_INFINITY is the largest value: it is caught here too.
        if limit.rlim_cur > rlim_t(unlimitedDescriptors) { return unlimitedDescriptors }
        return Int(limit.rlim_cur)
    }

    /// The largest cap `descriptors` allow when each admitted connection costs
    /// `perConnection` descriptors (the host 1; the recording proxy 2, its upstream):
    /// `(descriptors − 32 − 16 × perConnection) / perConnection`, at least 1. With the
    /// common soft limit of 1024: 976 for the host, 480 for the proxy; with 256: 208 and 96.
    package static func derivedCap(descriptors: Int, perConnection: Int) -> Int {
        let per = max(1, perConnection)
        return max(1, (descriptors - processReserve - headroomConnections * per) / per)
    }

    /// The cap for this process now (``descriptorLimit()``).
    package static func derivedCap(perConnection: Int) -> Int {
        derivedCap(descriptors: descriptorLimit(), perConnection: perConnection)
    }
}

/// What ``ConnectionAdmission`` asks its driver to do.
package enum AdmissionAction: Sendable, Hashable {
    /// Serve the connection.
    case admit(ConnectionAdmission.ID)
    /// Answer HTTP 503 with `Retry-After`, then close.
    case refuse(ConnectionAdmission.ID, retryAfterSeconds: Int, reason: String)
    /// Close without a word (even a 503 would cost too much now).
    case closeAtOnce(ConnectionAdmission.ID)
    /// Close another connection to make room: a WebSocket with 1013 and `reason`, a
    /// connection still in its HTTP request by closing its socket.
    case evict(ConnectionAdmission.ID, wasUpgraded: Bool, reason: String)
    /// Stop accepting for this long (descriptors ran out).
    case pauseAccepting(nanoseconds: Int64)
    /// Log these counts (notice level).
    case report(AdmissionReport)
    /// Call ``ConnectionAdmission/reportDue(now:)`` at this time.
    case scheduleReport(at: Int64)
}

/// Connections turned away, by how.
package struct AdmissionCounts: Sendable, Hashable {
    /// Answered 503.
    package var refused = 0
    /// Closed at once, unanswered.
    package var closedAtOnce = 0
    /// Silent connections closed to make room.
    package var evicted = 0
    /// Accepts that failed for want of descriptors.
    package var acceptFailures = 0

    package init(refused: Int = 0, closedAtOnce: Int = 0, evicted: Int = 0, acceptFailures: Int = 0) {
        self.refused = refused
        self.closedAtOnce = closedAtOnce
        self.evicted = evicted
        self.acceptFailures = acceptFailures
    }

    func minus(_ other: AdmissionCounts) -> AdmissionCounts {
        AdmissionCounts(refused: refused - other.refused, closedAtOnce: closedAtOnce - other.closedAtOnce,
                        evicted: evicted - other.evicted, acceptFailures: acceptFailures - other.acceptFailures)
    }
}

/// One log line's worth: what happened since the last report, and the totals.
package struct AdmissionReport: Sendable, Hashable, CustomStringConvertible {
    /// Since the previous report.
    package var since: AdmissionCounts
    /// Since the server started.
    package var totals: AdmissionCounts
    /// Slots held now.
    package var open: Int
    /// The cap.
    package var cap: Int

    /// `connections turned away: 12 refused (503), 0 closed at once, 3 evicted, 0 accept failures (totals …); 208 of 208 open`.
    package var description: String {
        "connections turned away: \(since.refused) refused (503), \(since.closedAtOnce) closed at once, "
            + "\(since.evicted) evicted, \(since.acceptFailures) accept failures for want of descriptors "
            + "(since start: \(totals.refused) refused, \(totals.closedAtOnce) closed at once, \(totals.evicted) evicted, "
            + "\(totals.acceptFailures) accept failures); \(open) of \(cap) connections open"
    }
}
