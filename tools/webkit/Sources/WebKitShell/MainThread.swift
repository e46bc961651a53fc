import CWebKitGTK
import Synchronization

/// Runs work on the GTK main loop, the shell's main actor: WebKit may be called only there.
///
/// Any thread may ``post(_:)``; the closures run in order on the thread that runs the
/// main loop. One `g_idle_add` is pending at a time, however many closures wait, so a burst
/// of host answers costs one wake-up.
package final class MainThread: Sendable {
    private struct Queue {
        var work: [@Sendable () -> Void] = []
        var scheduled = false
    }
    private let queue = Mutex(Queue())

    package init() {}

    /// Queues `work` for the main loop.
    package func post(_ work: @escaping @Sendable () -> Void) {
        let schedule = queue.withLock { q -> Bool in
            q.work.append(work)
            if q.scheduled { return false }
            q.scheduled = true
            return true
        }
        guard schedule else { return }
        let context = Unmanaged.passRetained(self).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT, { data in
            let me = Unmanaged<MainThread>.fromOpaque(data!).takeRetainedValue()
            me.drain()
            return 0  // G_SOURCE_REMOVE
        }, context, nil)
    }

    private func drain() {
        while true {
            let batch = queue.withLock { q -> [@Sendable () -> Void] in
                let w = q.work
                q.work.removeAll(keepingCapacity: true)
                if w.isEmpty { q.scheduled = false }
                return w
            }
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }

    /// Calls `body` every `milliseconds` on the main loop until it returns false.
    package static func every(milliseconds: UInt32, _ body: @escaping () -> Bool) {
        let box = Unmanaged.passRetained(TimerBox(body)).toOpaque()
        g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            let box = Unmanaged<TimerBox>.fromOpaque(data!).takeUnretainedValue()
            return box.body() ? 1 : 0
        }, box, { data in
            Unmanaged<TimerBox>.fromOpaque(data!).release()
        })
    }
}

/// A timer's closure, kept alive by GLib until the source is removed.
private final class TimerBox {
    let body: () -> Bool
    init(_ body: @escaping () -> Bool) { self.body = body }
}
