import BridgeTransport
import BridgeHost
import BridgeProtocol
import BridgeWebSocket
import Logging
import NIOCore
import BridgeClock

/// The reference host behind one WebSocket, driven on the connection's event loop: a
/// received message goes straight into the ``HostStateMachine``, and the actions it returns
/// are performed there and then — answers written to the channel, timers scheduled on the
/// loop (`EventLoop.scheduleTask`), log entries logged. No task, no thread hop, no lock.
///
/// It runs scripted machines (``Scenario/makeMachine(eventIDSeed:limits:)``), whose
/// handlers are all ``HandlerKind/scripted(_:)``: a capture is a precomputed answer sent by
/// a timer, so nothing here ever blocks the loop. A request routed to external code (which
/// a scripted machine never does) is answered `INTERNAL_ERROR`, as ``BridgeHost`` does when
/// it has no handler code; an unhandled request is answered `unsupported` at once (no
/// delegate). When the socket closes, timers are cancelled and requests still in progress
/// are dropped (there is nobody left to answer).
///
/// Thread safety: every method runs on the channel's event loop (``BridgeConnection``'s
/// contract; timers are scheduled on that loop), so the state needs no lock.
final class HostConnection: BridgeConnection, @unchecked Sendable {
    /// Sees every message of the connection (transcripts).
    typealias Observer = @Sendable (ConnectionInfo, Direction, [UInt8]) -> Void
    /// Told when the web side announces the end of a journey.
    typealias JourneyEndHandler = @Sendable (ConnectionInfo, JourneyEnd) -> Void

    let info: ConnectionInfo
    private var machine: HostStateMachine
    private let logger: Logger
    private let observer: Observer?
    private let onJourneyEnd: JourneyEndHandler
    private let clock = WallClock()
    private var outbound: BridgeOutbound?
    private var timers: [TimerID: Scheduled<Void>] = [:]
    private var closed = false
    /// The message being received, for journey-end detection on rejected messages.
    private var current: [UInt8] = []

    /// Creates the host side of a connection around a prepared machine.
    init(info: ConnectionInfo, machine: HostStateMachine, logger: Logger, observer: Observer?,
         onJourneyEnd: @escaping JourneyEndHandler) {
        self.info = info
        self.machine = machine
        self.logger = logger
        self.observer = observer
        self.onJourneyEnd = onJourneyEnd
    }

    func opened(outbound: BridgeOutbound) {
        self.outbound = outbound
        perform(machine.start(now: clock.milliseconds))
    }

    func received(_ message: [UInt8]) {
        guard !closed else { return }
        observer?(info, .webToHost, message)
        current = message
        defer { current = [] }
        perform(machine.receive(message, now: clock.milliseconds))
    }

    func closed(code: CloseCode?) {
        guard !closed else { return }
        closed = true
        for t in timers.values { t.cancel() }
        timers = [:]
        log(HostLogEntry(.info, "input-ended",
                         "the web side closed; \(machine.pendingCount) request(s) still in progress are dropped"))
    }

    private func timerFired(_ id: TimerID) {
        guard !closed, timers.removeValue(forKey: id) != nil else { return }
        perform(machine.timerFired(id, now: clock.milliseconds))
    }

    /// Performs the machine's actions in order (the machine is not borrowed meanwhile, so a
    /// write that closes the channel may safely re-enter ``closed(code:)``).
    private func perform(_ actions: [HostAction]) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let m):
                guard !closed, let outbound else { continue }
                observer?(info, .hostToWeb, m.bytes)
                outbound.send(m.bytes)
            case .notifyReceived(let e):
                if e.type == .event, let end = JourneyEnd(e) { onJourneyEnd(info, end) }
            case .notifyRejected:
                // Not a valid envelope, yet it may still read as a journey end event.
                if let end = JourneyEnd.detect(current) { onJourneyEnd(info, end) }
            case .offerUnhandled(_, let token):
                queue.append(contentsOf: machine.delegateFinished(token, keepPending: false, now: clock.milliseconds))
            case .startHandler(let start):
                queue.append(.log(HostLogEntry(.error, "handler-missing", "no handler code for \(start.route)",
                                               correlationId: start.token.correlationId)))
                var more: [HostAction] = []
                machine.complete(start.token, with: .failure(.internalError, "The host has no handler for \(start.request.payload.action)",
                                                             recoverable: false), now: clock.milliseconds, into: &more)
                queue.append(contentsOf: more)
            case .scheduleTimer(let id, let at):
                guard !closed, let loop = outbound?.eventLoop else { continue }
                let delay = TimeAmount.milliseconds(max(0, at - clock.milliseconds))
                timers[id] = loop.scheduleTask(in: delay) { [self] in timerFired(id) }
            case .cancelTimer(let id):
                timers.removeValue(forKey: id)?.cancel()
            case .log(let entry):
                log(entry)
            }
        }
    }

    private func log(_ e: HostLogEntry) {
        let level = e.level.loggerLevel
        guard logger.logLevel <= level else { return }
        var metadata: Logger.Metadata = ["event": .string(e.event)]
        if let id = e.correlationId { metadata["correlationId"] = .string(String(id.prefix(200))) }
        if !e.findings.isEmpty { metadata["findings"] = .string(e.findings.map(\.description).joined(separator: "; ")) }
        logger.log(level: level, "\(e.message)", metadata: metadata)
    }
}
