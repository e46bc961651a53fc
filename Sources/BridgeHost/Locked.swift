import Foundation

/// A value guarded by a lock. The host keeps its state machine in one of these so its
/// seed-like synchronous API (`host.documentCapture.isEnabled = false`) works from any
/// thread; nothing that can block or suspend runs while the lock is held.
final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
