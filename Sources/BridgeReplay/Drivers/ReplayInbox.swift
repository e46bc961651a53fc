import Foundation
import BridgeClock

/// Messages from a target, stamped with their arrival time, waiting for the replay loop:
/// the loop waits for the next one or for a deadline, whichever comes first. A message
/// is never lost to a timeout (exactly one of "message" and "timeout" resumes a wait,
/// under the lock).
final class ReplayInbox: @unchecked Sendable {
    enum Event: Sendable {
        case message([UInt8], at: Int64)
        case timeout
        case closed(at: Int64)
    }

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Event, Never>
    }

    private let lock = NSLock()
    private var queue: [(bytes: [UInt8], at: Int64)] = []
    private var head = 0
    private var closedAt: Int64?
    private var waiter: Waiter?
    private var nextID: UInt64 = 0
    private var expiredEarly: UInt64?

    /// A message arrived at `time`.
    func push(_ bytes: [UInt8], at time: Int64) {
        lock.lock()
        if let w = waiter {
            waiter = nil
            lock.unlock()
            w.continuation.resume(returning: .message(bytes, at: time))
            return
        }
        queue.append((bytes, time))
        lock.unlock()
    }

    /// The target closed at `time`: waits end with `closed` once the queue is empty.
    func close(at time: Int64) {
        lock.lock()
        if closedAt == nil { closedAt = time }
        let w = waiter
        waiter = nil
        lock.unlock()
        w?.continuation.resume(returning: .closed(at: time))
    }

    /// The next message, or `timeout` at `deadline` (ns on ``Stopwatch/monotonic``), or
    /// `closed`.
    func next(deadline: Int64, spin: Duration) async -> Event {
        if let ready = take() { return ready }
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await Stopwatch.monotonic.sleep(until: UInt64(clamping: deadline), spin: spin)
                    self.expire(id)
                } catch {}
            }
            let event = await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Event, Never>) in
                    lock.lock()
                    if head < queue.count {
                        let m = queue[head]
                        head += 1
                        compact()
                        lock.unlock()
                        c.resume(returning: .message(m.bytes, at: m.at))
                    } else if let at = closedAt {
                        lock.unlock()
                        c.resume(returning: .closed(at: at))
                    } else if expiredEarly == id {
                        lock.unlock()
                        c.resume(returning: .timeout)
                    } else {
                        waiter = Waiter(id: id, continuation: c)
                        lock.unlock()
                    }
                }
            } onCancel: {
                self.expire(id)
            }
            group.cancelAll()
            return event
        }
    }

    private func take() -> Event? {
        lock.lock()
        defer { lock.unlock() }
        if head < queue.count {
            let m = queue[head]
            head += 1
            compact()
            return .message(m.bytes, at: m.at)
        }
        if let at = closedAt { return .closed(at: at) }
        return nil
    }

    private func compact() {
        if head > 1024 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    private func expire(_ id: UInt64) {
        lock.lock()
        guard let w = waiter, w.id == id else {
            // Cancelled (or timed out) before the wait was registered: it must not start.
            if id == nextID { expiredEarly = id }
            lock.unlock()
            return
        }
        waiter = nil
        lock.unlock()
        w.continuation.resume(returning: .timeout)
    }
}
