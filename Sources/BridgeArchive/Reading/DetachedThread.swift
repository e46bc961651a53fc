#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the thread of a reading stage (``ArchiveReadAhead``, ``ArchivePipeline``).
package enum DetachedThread {
    /// Runs `body(value)` on a new detached thread; false when none could be made (then
    /// `body` never runs). `value` is handed over, not shared: the caller leaves it alone
    /// until the stage says, through its ``ThreadPipe``s, that it is done with it. That
    /// is why `Value` need not be `Sendable`.
    package static func start<Value>(handing value: Value, _ body: @escaping @Sendable (Value) -> Void) -> Bool {
        let context = Unmanaged.passRetained(Handed { body(value) }).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<Handed>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Handed>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The thread's work, through `pthread_create`'s context pointer.
    private final class Handed: @unchecked Sendable {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}
