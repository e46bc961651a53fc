import BridgeClock
import BridgeCapture
import BridgeArchive
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the proxy's connections hand to the recorder thread: messages and events,
/// stamped (wall clock, ns) and ordered under one lock, so times never go backwards.
/// Producers are event loops and relay tasks; the one consumer is
/// ``ProxyRecordingSource/record(into:control:)``.
final class ProxyEventQueue: Sendable {
    /// One thing to write.
    enum Item: Sendable {
        case message(time: Int64, direction: ArchiveDirection, connection: String, bytes: [UInt8])
        case event(ArchiveEvent)
    }

    private struct State {
        var items: [Item] = []
        var queuedBytes = 0
        var dropped = 0
        var active = 0
        var connections = 0
    }

    private let maxQueuedBytes: Int
    /// Items (or bytes) waiting before producers wake the recorder; below that it wakes
    /// on its own timer (at most 100 ms), so a quiet session costs no thread wake-up per
    /// message (on 2 cores that wake-up shows in the relayed messages' latency).
    static let wakeItems = 512
    /// See ``wakeItems``: 1 MiB.
    static let wakeBytes = 1 << 20
    /// Value 1 when enough items wait to wake the recorder, 0 otherwise.
    private let lock = ConditionLock<Int>(value: 0)
    private nonisolated(unsafe) var state = State()

    init(maxQueuedBytes: Int) {
        self.maxQueuedBytes = maxQueuedBytes
    }

    /// Records a message (or counts it as dropped when the queue is full).
    func message(_ direction: ArchiveDirection, connection: String, bytes: [UInt8]) {
        lock.lock()
        if state.queuedBytes + bytes.count > maxQueuedBytes && !state.items.isEmpty {
            state.dropped += 1
        } else {
            state.queuedBytes += bytes.count
            state.items.append(.message(time: WallClock.now.nanoseconds, direction: direction, connection: connection, bytes: bytes))
        }
        unlock()
    }

    /// Records an event (its time is set here). `opened`/`closed` keep the count of
    /// active connections.
    func event(_ kind: ArchiveEvent.Kind, connection: String?, reason: String? = nil) {
        lock.lock()
        if kind == .open {
            state.active += 1
            state.connections += 1
        }
        if kind == .close { state.active -= 1 }
        state.items.append(.event(ArchiveEvent(time: WallClock.now.nanoseconds, kind: kind, connection: connection, reason: reason)))
        unlock()
    }

    /// Releases the lock, waking the recorder only when enough waits.
    private func unlock() {
        if state.items.count >= Self.wakeItems || state.queuedBytes >= Self.wakeBytes {
            lock.unlock(withValue: 1)
        } else {
            lock.unlock()
        }
    }

    /// Waits up to `timeout` seconds for enough items to be worth waking for, then takes
    /// whatever waits, with the number of messages dropped since the last call.
    func take(timeout: Double) -> (items: [Item], dropped: Int) {
        if !lock.lock(whenValue: 1, timeoutSeconds: max(0, timeout)) { lock.lock() }
        let items = state.items
        let dropped = state.dropped
        state.items = []
        state.items.reserveCapacity(items.count)
        state.queuedBytes = 0
        state.dropped = 0
        lock.unlock(withValue: 0)
        return (items, dropped)
    }

    /// Connections open now, and ever opened.
    var connectionCounts: (active: Int, total: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (state.active, state.connections)
    }

}
