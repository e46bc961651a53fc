import Logging
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sent down an admitted connection's pipeline when ``ConnectionAdmission`` evicts it: an
/// upgraded WebSocket closes with 1013 and the reason.
struct AdmissionEvictEvent: Sendable {
    let reason: String
}

/// Thrown from the child channel initializer when a connection is to be closed at once:
/// NIO's accept handler then closes it.
struct AdmissionClosedAtOnce: Error {}

/// What an admitted connection tells admission about itself (on its event loop).
struct AdmissionTicket: Sendable {
    let id: ConnectionAdmission.ID
    let driver: AdmissionDriver

    /// The WebSocket handler is in the pipeline: the connection may now be evicted with a
    /// close frame.
    func upgraded() { driver.upgraded(id) }
    /// The first message arrived: the connection is never evicted.
    func spoke() { driver.spoke(id) }
}

/// The thin NIO side of ``ConnectionAdmission``: holds the machine under a lock, decides
/// for each accepted channel in the child initializer, performs the actions (evictions
/// on the victim's loop, 503 answers through ``AdmissionRefusalHandler``, accept pauses
/// through ``AcceptPacer``), and logs the machine's reports at notice level.
final class AdmissionDriver: Sendable {
    private struct State {
        var machine: ConnectionAdmission
        var channels: [ConnectionAdmission.ID: any Channel] = [:]
    }

    private let state: Mutex<State>
    private let logger: Logger
    /// Where report timers run.
    private let loop: any EventLoop

    init(limits: AdmissionLimits, loop: any EventLoop, logger: Logger) {
        state = Mutex(State(machine: ConnectionAdmission(limits: limits)))
        self.loop = loop
        self.logger = logger
    }

    /// The limits in force.
    var limits: AdmissionLimits { state.withLock { $0.machine.limits } }

    /// The counts so far.
    var totals: AdmissionCounts { state.withLock { $0.machine.totals } }

    /// Decides for a channel just accepted (in the child initializer, on its loop). Returns
    /// its ticket when admitted; installs the 503 answer and returns nil when refused;
    /// throws ``AdmissionClosedAtOnce`` when it is to be closed unanswered.
    func admit(_ channel: any Channel) throws -> AdmissionTicket? {
        let address = Self.addressKey(channel.remoteAddress)
        let now = Self.now()
        let (id, actions, victims) = state.withLock { s -> (Int, [AdmissionAction], [Int: any Channel]) in
            let (id, actions) = s.machine.accepted(from: address, now: now)
            var victims: [Int: any Channel] = [:]
            for case .evict(let victim, _, _) in actions {
                victims[victim] = s.channels.removeValue(forKey: victim)
            }
            if actions.contains(.admit(id)) { s.channels[id] = channel }
            return (id, actions, victims)
        }
        channel.closeFuture.whenComplete { [self] _ in closed(id) }
        perform(actions)
        var ticket: AdmissionTicket?
        for action in actions {
            switch action {
            case .admit(let admitted) where admitted == id:
                ticket = AdmissionTicket(id: id, driver: self)
            case .evict(let victim, let wasUpgraded, let reason):
                guard let ch = victims[victim] else { continue }
                if wasUpgraded {
                    ch.pipeline.fireUserInboundEventTriggered(AdmissionEvictEvent(reason: reason))
                } else {
                    ch.close(promise: nil)
                }
            case .refuse(_, let retryAfter, let reason):
                try channel.pipeline.syncOperations.addHandler(AdmissionRefusalHandler(retryAfterSeconds: retryAfter, reason: reason))
            case .closeAtOnce:
                throw AdmissionClosedAtOnce()
            default:
                continue
            }
        }
        return ticket
    }

    /// An accept failed with `error`: how long to stop accepting, when it is a want of
    /// descriptors (nil otherwise).
    func acceptFailed(_ error: IOError) -> TimeAmount? {
        guard Self.isDescriptorShortage(error.errnoCode) else { return nil }
        let actions = state.withLock { $0.machine.acceptFailed(now: Self.now()) }
        var pause: TimeAmount?
        for case .pauseAccepting(let ns) in actions { pause = .nanoseconds(ns) }
        perform(actions)
        return pause
    }

    /// `EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`: the errors NIO's server channel survives,
    /// and that accepting again at once would only repeat.
    static func isDescriptorShortage(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    }

    fileprivate func upgraded(_ id: ConnectionAdmission.ID) {
        let now = Self.now()
        state.withLock { $0.machine.upgraded(id, now: now) }
    }

    fileprivate func spoke(_ id: ConnectionAdmission.ID) {
        state.withLock { $0.machine.spoke(id) }
    }

    private func closed(_ id: ConnectionAdmission.ID) {
        state.withLock { s in
            s.machine.closed(id)
            s.channels.removeValue(forKey: id)
        }
    }

    /// Reports and report timers (other actions are performed where they are decided).
    private func perform(_ actions: [AdmissionAction]) {
        for action in actions {
            switch action {
            case .report(let report):
                logger.notice("\(report)", metadata: ["event": "admission"])
            case .scheduleReport(let at):
                loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(max(0, at)))) { [self] in
                    perform(state.withLock { $0.machine.reportDue(now: Self.now()) })
                }
            default:
                continue
            }
        }
    }

    static func now() -> Int64 { Int64(NIODeadline.now().uptimeNanoseconds) }

    /// The peer an address counts as: the IPv4 address, or an IPv6 address's /64 (one
    /// host is usually given a whole /64); an IPv4-mapped IPv6 address counts as the IPv4.
    static func addressKey(_ address: SocketAddress?) -> String {
        switch address {
        case .v4?:
            return address?.ipAddress ?? "?"
        case .v6(let a)?:
            var bytes = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: a.address.sin6_addr) { raw in for i in 0..<min(16, raw.count) { bytes[i] = raw[i] } }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return bytes[12...].map(String.init).joined(separator: ".")
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) { return "::\(bytes[15])" }
            return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":") + "::/64"
        case .unixDomainSocket?:
            return "unix"
        case nil:
            return "?"
        }
    }
}
