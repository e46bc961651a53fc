@testable import BridgeTransport
import NIOCore
import Testing

/// ``ConnectionAdmission`` as a value: the cap, the per-address share, silent
/// connections evicted first (and only once old enough), the headroom, the accept
/// backoff and the rate of reports (docs/SECURITY.md, "Connections").
@Suite struct AdmissionTests {
    static let second: Int64 = 1_000_000_000

    /// Admits `count` connections from `address` at `now`; returns their ids.
    static func fill(_ m: inout ConnectionAdmission, _ count: Int, from address: String, now: Int64 = 0) -> [Int] {
        (0..<count).map { _ in
            let (id, actions) = m.accepted(from: address, now: now)
            #expect(actions == [.admit(id)])
            return id
        }
    }

    /// The decisions among `actions` (reports and report timers left out).
    static func decisions(_ actions: [AdmissionAction]) -> [AdmissionAction] {
        actions.filter {
            switch $0 {
            case .report, .scheduleReport: false
            default: true
            }
        }
    }

    static func refusal(_ actions: [AdmissionAction]) -> AdmissionAction? {
        actions.first { if case .refuse = $0 { true } else { false } }
    }

    @Test func theCapRefusesWith503AndASlotComesBackOnClose() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 4, maxPerAddress: 4))
        let ids = Self.fill(&m, 4, from: "10.0.0.1")
        for id in ids { m.upgraded(id, now: 0); m.spoke(id) }  // working: never evicted
        let (id, actions) = m.accepted(from: "10.0.0.2", now: 10 * Self.second)
        guard case .refuse(id, let retry, let reason)? = Self.refusal(actions) else {
            Issue.record("expected a refusal, got \(actions)")
            return
        }
        #expect(retry == 1)
        #expect(reason.contains("limit of 4 connections"))
        #expect(m.totals.refused == 1 && m.admittedCount == 4 && m.leavingCount == 1)
        m.closed(id)
        #expect(m.leavingCount == 0)
        m.closed(ids[0])
        let (next, again) = m.accepted(from: "10.0.0.2", now: 10 * Self.second)
        #expect(again == [.admit(next)])
    }

    @Test func oneAddressGetsHalfTheCapByDefault() {
        let limits = AdmissionLimits(maxConnections: 10)
        #expect(limits.maxPerAddress == 5)
        #expect(AdmissionLimits(maxConnections: 1).maxPerAddress == 1)
        var m = ConnectionAdmission(limits: limits)
        let flood = Self.fill(&m, 5, from: "10.0.0.1")
        for id in flood { m.upgraded(id, now: 0); m.spoke(id) }
        let (_, sixth) = m.accepted(from: "10.0.0.1", now: 0)
        guard case .refuse(_, _, let reason)? = Self.refusal(sixth) else {
            Issue.record("expected a refusal, got \(sixth)")
            return
        }
        #expect(reason.contains("share of 5"))
        // Another address still gets the other half.
        _ = Self.fill(&m, 5, from: "10.0.0.2")
        #expect(m.slots(of: "10.0.0.1") == 5 && m.slots(of: "10.0.0.2") == 5)
    }

    @Test func aSilentConnectionIsEvictedBeforeAnyWorkingOne() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 4, maxPerAddress: 4))
        let ids = Self.fill(&m, 4, from: "10.0.0.1")
        for id in ids { m.upgraded(id, now: 0) }
        m.spoke(ids[0])
        m.spoke(ids[1])
        m.spoke(ids[3])
        // Only ids[2] never spoke: it goes, whatever its age rank.
        let (id, actions) = m.accepted(from: "10.0.0.2", now: 2 * Self.second)
        #expect(Self.decisions(actions) == [.evict(ids[2], wasUpgraded: true, reason: ConnectionAdmission.evictionReason), .admit(id)])
        #expect(m.totals.evicted == 1 && m.admittedCount == 4 && m.leavingCount == 1)
        m.upgraded(id, now: 2 * Self.second)
        m.spoke(id)
        // The rest are working: the next is refused.
        let (_, refused) = m.accepted(from: "10.0.0.3", now: 3 * Self.second)
        #expect(Self.refusal(refused) != nil)
        m.closed(ids[2])
        #expect(m.leavingCount == 1)  // the refused one
    }

    @Test func aSilentConnectionYoungerThanASecondIsKept() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 2, maxPerAddress: 2))
        let ids = Self.fill(&m, 2, from: "10.0.0.1")
        for id in ids { m.upgraded(id, now: 5 * Self.second) }
        let (_, early) = m.accepted(from: "10.0.0.2", now: 5 * Self.second + Self.second / 2)
        #expect(Self.refusal(early) != nil)
        let (id, late) = m.accepted(from: "10.0.0.2", now: 6 * Self.second)
        #expect(Self.decisions(late) == [.evict(ids[0], wasUpgraded: true, reason: ConnectionAdmission.evictionReason), .admit(id)])
    }

    @Test func aStaleHTTPRequestIsEvictableTooAndClosedWithoutAFrame() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 1, maxPerAddress: 1))
        let ids = Self.fill(&m, 1, from: "10.0.0.1")
        let (id, actions) = m.accepted(from: "10.0.0.2", now: Self.second)
        #expect(Self.decisions(actions) == [.evict(ids[0], wasUpgraded: false, reason: ConnectionAdmission.evictionReason), .admit(id)])
    }

    @Test func aPeerAtItsShareOnlyReplacesItsOwnSilentConnections() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 6, maxPerAddress: 3))
        let mine = Self.fill(&m, 3, from: "10.0.0.1")
        let theirs = Self.fill(&m, 2, from: "10.0.0.2")
        for id in mine + theirs { m.upgraded(id, now: 0) }
        // 10.0.0.1 at its share: its own oldest silent one goes, not 10.0.0.2's.
        let (id, actions) = m.accepted(from: "10.0.0.1", now: 2 * Self.second)
        #expect(Self.decisions(actions) == [.evict(mine[0], wasUpgraded: true, reason: ConnectionAdmission.evictionReason), .admit(id)])
        // When all of its own are working, it is refused even though 10.0.0.2's are silent.
        for own in mine.dropFirst() + [id] { m.spoke(own) }
        let (_, refused) = m.accepted(from: "10.0.0.1", now: 3 * Self.second)
        #expect(Self.refusal(refused) != nil)
        #expect(m.slots(of: "10.0.0.2") == 2)
    }

    @Test func whenFullTheVictimComesFromTheAddressHoldingTheMostSlots() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 5, maxPerAddress: 5))
        let one = Self.fill(&m, 1, from: "10.0.0.1")
        let many = Self.fill(&m, 4, from: "10.0.0.9", now: Self.second)
        for id in one + many { m.upgraded(id, now: id == one[0] ? 0 : Self.second) }
        // 10.0.0.1's connection is older, but 10.0.0.9 holds more.
        let (id, actions) = m.accepted(from: "10.0.0.2", now: 3 * Self.second)
        #expect(Self.decisions(actions) == [.evict(many[0], wasUpgraded: true, reason: ConnectionAdmission.evictionReason), .admit(id)])
    }

    @Test func evictionWalksTheSilentInAgeOrderSkippingThoseThatSpoke() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 1000, maxPerAddress: 1000, headroom: 10_000))
        let ids = Self.fill(&m, 1000, from: "10.0.0.1")
        for (i, id) in ids.enumerated() {
            m.upgraded(id, now: Int64(i))
            if i % 2 == 0 { m.spoke(id) }
        }
        var evicted: [Int] = []
        for _ in 0..<600 {
            let (id, actions) = m.accepted(from: "10.0.0.2", now: 2 * Self.second)
            for case .evict(let victim, _, _) in actions { evicted.append(victim); m.closed(victim) }
            m.upgraded(id, now: 2 * Self.second)
            m.spoke(id)
        }
        // The 500 silent ones (odd positions) oldest first, then refusals: the rest are working.
        #expect(evicted == ids.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
        #expect(m.totals.evicted == 500 && m.totals.refused == 100)
    }

    @Test func pastTheHeadroomAConnectionIsClosedAtOnce() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 1, maxPerAddress: 1, headroom: 2))
        let ids = Self.fill(&m, 1, from: "10.0.0.1")
        m.upgraded(ids[0], now: 0)
        m.spoke(ids[0])
        let first = m.accepted(from: "10.0.0.2", now: 0)
        let second = m.accepted(from: "10.0.0.3", now: 0)
        #expect(Self.refusal(first.1) != nil && Self.refusal(second.1) != nil)
        let (third, actions) = m.accepted(from: "10.0.0.4", now: 0)
        #expect(actions.contains(.closeAtOnce(third)))
        #expect(m.totals == AdmissionCounts(refused: 2, closedAtOnce: 1))
        m.closed(first.0)
        let (fourth, after) = m.accepted(from: "10.0.0.4", now: 0)
        #expect(Self.refusal(after).map { $0 == .refuse(fourth, retryAfterSeconds: 1, reason: "the server holds its limit of 1 connections; try again later") } == true)
    }

    @Test func acceptFailuresBackOff100msDoublingTo1sAndASuccessResets() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 10))
        var pauses: [Int64] = []
        for i in 0..<6 {
            for case .pauseAccepting(let ns) in m.acceptFailed(now: Int64(i) * Self.second) { pauses.append(ns / 1_000_000) }
        }
        #expect(pauses == [100, 200, 400, 800, 1000, 1000])
        _ = m.accepted(from: "10.0.0.1", now: 10 * Self.second)
        let again = m.acceptFailed(now: 11 * Self.second)
        #expect(again.contains(.pauseAccepting(nanoseconds: 100_000_000)))
        #expect(m.totals.acceptFailures == 7)
    }

    @Test func reportsComeAtMostOnceASecondWithTheCounts() {
        var m = ConnectionAdmission(limits: AdmissionLimits(maxConnections: 1, maxPerAddress: 1, headroom: 1000))
        let ids = Self.fill(&m, 1, from: "10.0.0.1")
        m.spoke(ids[0])
        var reports: [AdmissionReport] = []
        var timers: [Int64] = []
        func take(_ actions: [AdmissionAction]) {
            for a in actions {
                if case .report(let r) = a { reports.append(r) }
                if case .scheduleReport(let at) = a { timers.append(at) }
            }
        }
        // 500 refusals within half a second: one report at once, one timer for the rest.
        for i in 0..<500 { take(m.accepted(from: "10.0.0.2", now: Int64(i) * 1_000_000).1) }
        #expect(reports.count == 1 && reports[0].since.refused == 1)
        #expect(timers == [Self.second])
        take(m.reportDue(now: Self.second))
        #expect(reports.count == 2 && reports[1].since.refused == 499 && reports[1].totals.refused == 500)
        #expect(reports[1].description.contains("499 refused (503)"))
        #expect(reports[1].description.contains("1 of 1 connections open"))
        // Nothing new: the timer reports nothing.
        take(m.reportDue(now: 3 * Self.second))
        #expect(reports.count == 2)
    }

    @Test func theDerivedCapLeavesTheReserve() {
        #expect(AdmissionLimits.derivedCap(descriptors: 256, perConnection: 1) == 208)
        #expect(AdmissionLimits.derivedCap(descriptors: 256, perConnection: 2) == 96)
        #expect(AdmissionLimits.derivedCap(descriptors: 1024, perConnection: 1) == 976)
        #expect(AdmissionLimits.derivedCap(descriptors: 1024, perConnection: 2) == 480)
        #expect(AdmissionLimits.derivedCap(descriptors: 20, perConnection: 1) == 1)
        #expect(AdmissionLimits.descriptorLimit() > 0)
    }

    @Test func addressesCountAsIPv4OrAnIPv6Slash64() throws {
        #expect(AdmissionDriver.addressKey(try SocketAddress(ipAddress: "127.0.0.2", port: 5)) == "127.0.0.2")
        #expect(AdmissionDriver.addressKey(try SocketAddress(ipAddress: "2001:db8:1:2:3:4:5:6", port: 5)) == "2001:db8:1:2::/64")
        #expect(AdmissionDriver.addressKey(try SocketAddress(ipAddress: "2001:db8:1:2:ffff::1", port: 5)) == "2001:db8:1:2::/64")
        #expect(AdmissionDriver.addressKey(try SocketAddress(ipAddress: "::ffff:10.1.2.3", port: 5)) == "10.1.2.3")
        #expect(AdmissionDriver.addressKey(try SocketAddress(ipAddress: "::1", port: 5)) == "::1")
    }
}
