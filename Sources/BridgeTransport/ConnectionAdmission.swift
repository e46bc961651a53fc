/// Which connections the server takes, as a value: the decision for every accepted TCP
/// connection, the accept backoff after `EMFILE`/`ENFILE`, and the counts it reports
/// (docs/SECURITY.md, "Connections"). Pure: time comes in as nanoseconds on any monotonic
/// clock, and every call returns the ``AdmissionAction``s for the driver
/// (``WebSocketServer``'s `AdmissionDriver`) to perform.
///
/// The rules, in order, for a new connection from address A:
/// 1. Under the cap (``AdmissionLimits/maxConnections``) and under A's share
///    (``AdmissionLimits/maxPerAddress``): admitted.
/// 2. Otherwise a connection that has said nothing is evicted to make room: one that
///    upgraded and never sent a message, or is still in its HTTP request, for at least
///    ``AdmissionLimits/minimumAgeBeforeEviction``. When A is at its share the victim is
///    one of A's own (a peer only ever replaces its own connections); when only the cap is
///    reached, the victim belongs to the address holding the most slots; the oldest first.
///    A connection that has sent a message is never evicted.
/// 3. Otherwise refused with HTTP 503 and `Retry-After`.
/// 4. Connections being refused or evicted hold a descriptor until they are gone; past
///    ``AdmissionLimits/headroom`` of them, a new connection is closed at once, unanswered.
package struct ConnectionAdmission: Sendable {
    /// A connection's number, from 1, for the life of the server.
    package typealias ID = Int

    /// Where a connection is.
    package enum Phase: Sendable, Hashable {
        /// Accepted, in its HTTP request (plain HTTP or before the upgrade).
        case http
        /// Upgraded to WebSocket, no message received yet.
        case silent
        /// Has sent at least one message: never evicted.
        case working
        /// Being refused (503 written) or evicted: gone once its socket closes.
        case leaving
    }

    private struct Entry {
        var address: String
        var phase: Phase
        /// When it entered its phase (accepted, or upgraded).
        var since: Int64
        /// Its current place in its address's ``AdmissionQueue`` (0: none).
        var stamp = 0
    }

    /// The limits in force.
    package let limits: AdmissionLimits
    private var entries: [ID: Entry] = [:]
    private var perAddress: [String: Int] = [:]
    /// Eviction candidates per address, oldest first.
    private var queues: [String: AdmissionQueue] = [:]
    private var nextStamp = 1
    private var admitted = 0
    private var leaving = 0
    private var nextID = 1
    /// The current accept backoff (0: none).
    private var backoff: Int64 = 0
    private var counts = AdmissionCounts()
    private var reported = AdmissionCounts()
    private var nextReport: Int64 = .min
    private var reportScheduled = false

    /// Creates the machine.
    package init(limits: AdmissionLimits) {
        self.limits = limits
    }

    /// Connections holding a slot (admitted and not yet closed or evicted).
    package var admittedCount: Int { admitted }
    /// Connections being refused or evicted.
    package var leavingCount: Int { leaving }
    /// Slots `address` holds.
    package func slots(of address: String) -> Int { perAddress[address, default: 0] }
    /// Everything counted so far.
    package var totals: AdmissionCounts { counts }

    /// A new connection from `address` was accepted; the actions say what becomes of it
    /// (exactly one of `admit`, `refuse`, `closeAtOnce` for its id, maybe after an `evict`).
    package mutating func accepted(from address: String, now: Int64) -> (ID, [AdmissionAction]) {
        let id = nextID
        nextID += 1
        backoff = 0
        let atShare = slots(of: address) >= limits.maxPerAddress
        let full = admitted >= limits.maxConnections
        if !atShare && !full {
            admit(id, address, now)
            return (id, [.admit(id)])
        }
        var actions: [AdmissionAction] = []
        if leaving < limits.headroom, let victim = victim(of: atShare ? address : nil, now: now) {
            let phase = entries[victim]!.phase
            release(victim, to: .leaving, now: now)
            counts.evicted += 1
            actions.append(.evict(victim, wasUpgraded: phase == .silent, reason: Self.evictionReason))
            admit(id, address, now)
            actions.append(.admit(id))
        } else if leaving < limits.headroom {
            entries[id] = Entry(address: address, phase: .leaving, since: now)
            leaving += 1
            counts.refused += 1
            let reason = atShare
                ? "this address holds its share of \(limits.maxPerAddress) connections; try again later"
                : "the server holds its limit of \(limits.maxConnections) connections; try again later"
            actions.append(.refuse(id, retryAfterSeconds: limits.retryAfterSeconds, reason: reason))
        } else {
            counts.closedAtOnce += 1
            actions.append(.closeAtOnce(id))
        }
        actions += report(now: now)
        return (id, actions)
    }

    /// The WebSocket upgrade of `id` completed.
    package mutating func upgraded(_ id: ID, now: Int64) {
        guard var e = entries[id], e.phase == .http else { return }
        e.phase = .silent
        e.since = now
        e.stamp = nextStamp
        nextStamp += 1
        entries[id] = e
        queues[e.address, default: AdmissionQueue()].append(id, stamp: e.stamp)
    }

    /// `id` delivered a message: it is working, and is never evicted.
    package mutating func spoke(_ id: ID) {
        guard var e = entries[id], e.phase == .silent || e.phase == .http else { return }
        e.phase = .working
        entries[id] = e
    }

    /// `id`'s socket closed (whatever its phase; unknown ids are ignored).
    package mutating func closed(_ id: ID) {
        guard let e = entries.removeValue(forKey: id) else { return }
        if e.phase == .leaving {
            leaving -= 1
        } else {
            unslot(e.address)
        }
    }

    /// An accept failed for want of descriptors (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`):
    /// the driver stops accepting for the returned time (100 ms, doubling to 1 s while the
    /// failures continue; a successful accept starts again from 100 ms).
    package mutating func acceptFailed(now: Int64) -> [AdmissionAction] {
        backoff = backoff == 0 ? limits.initialBackoff : min(limits.maximumBackoff, backoff * 2)
        counts.acceptFailures += 1
        return [.pauseAccepting(nanoseconds: backoff)] + report(now: now)
    }

    /// The report timer fired: the counts since the last report, if any.
    package mutating func reportDue(now: Int64) -> [AdmissionAction] {
        reportScheduled = false
        return report(now: now)
    }

    /// A report of what changed since the last one when one is due (at most one per
    /// ``AdmissionLimits/reportInterval``), else a timer for when it will be.
    private mutating func report(now: Int64) -> [AdmissionAction] {
        guard counts != reported else { return [] }
        if now >= nextReport {
            let delta = counts.minus(reported)
            reported = counts
            nextReport = now + limits.reportInterval
            return [.report(AdmissionReport(since: delta, totals: counts, open: admitted, cap: limits.maxConnections))]
        }
        guard !reportScheduled else { return [] }
        reportScheduled = true
        return [.scheduleReport(at: nextReport)]
    }

    private mutating func admit(_ id: ID, _ address: String, _ now: Int64) {
        entries[id] = Entry(address: address, phase: .http, since: now, stamp: nextStamp)
        queues[address, default: AdmissionQueue()].append(id, stamp: nextStamp)
        nextStamp += 1
        perAddress[address, default: 0] += 1
        admitted += 1
    }

    private mutating func release(_ id: ID, to phase: Phase, now: Int64) {
        guard var e = entries[id] else { return }
        unslot(e.address)
        e.phase = phase
        e.since = now
        entries[id] = e
        leaving += 1
    }

    private mutating func unslot(_ address: String) {
        admitted -= 1
        let left = perAddress[address, default: 1] - 1
        perAddress[address] = left > 0 ? left : nil
        if left <= 0 { queues[address] = nil }
    }

    /// The connection to evict: silent (or still in HTTP) for the minimum age, from
    /// `address` when given, else from the address holding the most slots; the oldest.
    private mutating func victim(of address: String?, now: Int64) -> ID? {
        var best: (id: ID, slots: Int, since: Int64)?
        for a in address.map({ [$0] }) ?? Array(queues.keys) {
            guard let id = oldestCandidate(of: a), let e = entries[id],
                  now - e.since >= limits.minimumAgeBeforeEviction else { continue }
            let slots = perAddress[a, default: 0]
            if let b = best, (b.slots, -b.since, -b.id) >= (slots, -e.since, -id) { continue }
            best = (id, slots, e.since)
        }
        return best?.id
    }

    /// The oldest connection of `address` still silent or in its HTTP request.
    private mutating func oldestCandidate(of address: String) -> ID? {
        guard var queue = queues[address] else { return nil }
        queues[address] = nil  // no copy of the queue while it is changed
        defer { queues[address] = queue }
        return queue.front { id, stamp in
            guard let e = entries[id] else { return false }
            return e.stamp == stamp && (e.phase == .http || e.phase == .silent)
        }
    }

    /// The close reason an evicted WebSocket is given.
    package static let evictionReason = "evicted: no message sent while the server was full; try again later"
}
