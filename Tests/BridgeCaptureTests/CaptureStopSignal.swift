import Synchronization

/// A flag the test raises and the recording loop polls: `runner.run(shouldStop:
/// signal.isRaised)` (the CLI uses its signal handlers; only tests needed this type).
final class CaptureStopSignal: Sendable {
    private let raised = Mutex(false)

    /// Raises the flag; the recording stops within about 100 ms and finishes cleanly.
    func raise() { raised.withLock { $0 = true } }

    /// Whether the flag was raised.
    func isRaised() -> Bool { raised.withLock { $0 } }
}
