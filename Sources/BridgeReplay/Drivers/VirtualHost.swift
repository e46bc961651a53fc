import BridgeHost
import BridgeClock

/// The reference host's state machine on virtual time, with its timers in view, so a
/// replay can interleave its own deadlines with the host's exactly (``HostSimulator``
/// hides when its next timer is due). No tasks, no threads, no sleeping: a journey of
/// thousands of messages replays in milliseconds.
///
/// Runs what the machine asks for, as ``HostSimulator`` does: an unhandled request is
/// declined at once (answered `unsupported`); requests for external handlers cannot
/// happen with scenario hosts (every handler is scripted).
struct VirtualHost {
    var machine: HostStateMachine
    /// Virtual time, epoch milliseconds.
    private(set) var now: Int64
    private var timers: [TimerID: Int64] = [:]
    /// Messages sent since the last ``takeSent()``, with their send time (ms).
    private var outbox: [(bytes: [UInt8], at: Int64)] = []

    init(machine: HostStateMachine, start: Int64 = VirtualClock.defaultStart) {
        self.machine = machine
        self.now = start
    }

    /// Virtual time in nanoseconds.
    var nowNanoseconds: Int64 { now * 1_000_000 }

    mutating func start() {
        perform(machine.start(now: now))
    }

    mutating func receive(_ bytes: [UInt8]) {
        perform(machine.receive(bytes, now: now))
    }

    /// The earliest timer deadline (ms), if any.
    var nextTimer: Int64? { timers.values.min() }

    /// Moves time to `time` (ms), firing every timer due by then at its own deadline.
    mutating func advance(to time: Int64) {
        while let (id, at) = timers.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }), at <= time {
            timers.removeValue(forKey: id)
            now = max(now, at)
            perform(machine.timerFired(id, now: now))
        }
        now = max(now, time)
    }

    /// Fires the timers due at the earliest deadline (moving time there), if any; returns
    /// whether one fired.
    mutating func fireNextTimers() -> Bool {
        guard let at = nextTimer else { return false }
        now = max(now, at)
        while let (id, t) = timers.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }), t <= at {
            timers.removeValue(forKey: id)
            perform(machine.timerFired(id, now: now))
        }
        return true
    }

    mutating func takeSent() -> [(bytes: [UInt8], at: Int64)] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    private mutating func perform(_ actions: [HostAction]) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let m): outbox.append((m.bytes, now))
            case .offerUnhandled(_, let token):
                queue.append(contentsOf: machine.delegateFinished(token, keepPending: false, now: now))
            case .scheduleTimer(let id, let at): timers[id] = at
            case .cancelTimer(let id): timers.removeValue(forKey: id)
            case .notifyReceived, .notifyRejected, .startHandler, .log: break
            }
        }
    }
}
