import BridgeCapture
import Foundation

/// A flag one thread raises (a signal handler's dispatch source, a test) and the
/// recording loop polls: `runner.run(shouldStop: signal.isRaised)`.
public final class CaptureStopSignal: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var raised = false

    /// A lowered flag.
    public init() {}

    /// Raises the flag; the recording stops within about 100 ms and finishes cleanly.
    public func raise() {
        lock.lock()
        raised = true
        lock.unlock()
    }

    /// Whether the flag was raised.
    public func isRaised() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return raised
    }
}
