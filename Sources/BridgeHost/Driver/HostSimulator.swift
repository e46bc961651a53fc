import BridgeProtocol
import BridgeClock

/// Runs a ``HostStateMachine`` synchronously on virtual time: the scripted host (every
/// scenario host) with no tasks, no threads and no sleeping. Tests and the fuzzer feed it
/// messages, move time, and read what the host sent.
///
/// It runs what the machine asks for except external code: a request routed to an
/// `.external` handler is recorded in ``externalStarts`` and stays pending until the caller
/// completes it through ``machine``; an unhandled request is declined at once (no
/// delegate), so it is answered `unsupported` / `UNSUPPORTED_ACTION`.
public struct HostSimulator: Sendable {
    /// The machine (mutable, for configuration changes and completions between steps).
    public var machine: HostStateMachine
    /// Current virtual time, epoch milliseconds.
    public private(set) var now: Int64
    /// Everything sent so far, in order.
    public private(set) var sent: [OutboundMessage] = []
    /// Everything logged so far, in order.
    public private(set) var log: [HostLogEntry] = []
    /// Valid envelopes the delegate would have seen.
    public private(set) var delegateSaw: [Envelope] = []
    /// Invalid messages the delegate would have been told about.
    public private(set) var rejected: [RejectedMessage] = []
    /// Requests handed to external handlers (which the simulator cannot run).
    public private(set) var externalStarts: [HandlerStart] = []
    /// Whether the log keeps `debug` entries (off by default: the fuzzer wants speed).
    public var keepsDebugLog = false
    private var timers: [TimerID: Int64] = [:]

    /// Creates a simulator at `start` ms (default ``VirtualClock/defaultStart``).
    public init(machine: HostStateMachine, start: Int64 = VirtualClock.defaultStart) {
        self.machine = machine
        self.now = start
    }

    /// Starts the host (sends `host.ready`).
    public mutating func start() {
        perform(machine.start(now: now))
    }

    /// Feeds one message from the web side and runs what it causes at this instant.
    public mutating func receive(_ bytes: [UInt8]) {
        perform(machine.receive(bytes, now: now))
    }

    /// Feeds one message given as text.
    public mutating func receive(_ text: String) {
        receive(Array(text.utf8))
    }

    /// Applies actions returned by a direct call on ``machine`` (a completion, an event).
    public mutating func apply(_ actions: [HostAction]) {
        perform(actions)
    }

    /// Moves time forward by `milliseconds`, firing due timers in deadline order, each at
    /// its own deadline.
    public mutating func advance(by milliseconds: Int64) {
        let end = now + max(0, milliseconds)
        while let (id, at) = timers.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }), at <= end {
            timers.removeValue(forKey: id)
            now = max(now, at)
            perform(machine.timerFired(id, now: now))
        }
        now = end
    }

    /// Advances until no timer is left or `limitMs` has passed; returns the time spent.
    @discardableResult
    public mutating func runUntilIdle(limitMs: Int64 = 86_400_000) -> Int64 {
        let start = now
        while let next = timers.values.min(), next - start <= limitMs {
            advance(by: next - now)
        }
        return now - start
    }

    /// The messages sent since the last call, and forgets them.
    public mutating func takeSent() -> [OutboundMessage] {
        defer { sent.removeAll() }
        return sent
    }

    /// Number of timers scheduled.
    public var timerCount: Int { timers.count }

    private mutating func perform(_ actions: [HostAction]) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let m): sent.append(m)
            case .notifyReceived(let e): delegateSaw.append(e)
            case .notifyRejected(let r): rejected.append(r)
            case .offerUnhandled(_, let token):
                queue.append(contentsOf: machine.delegateFinished(token, keepPending: false, now: now))
            case .startHandler(let start): externalStarts.append(start)
            case .scheduleTimer(let id, let at): timers[id] = at
            case .cancelTimer(let id): timers.removeValue(forKey: id)
            case .log(let entry):
                if keepsDebugLog || entry.level > .debug { log.append(entry) }
            }
        }
    }
}
