import BridgeArchive

/// The real clock a real-time replay runs on: monotonic nanoseconds, and sleeping until
/// a moment. `Task.sleep` wakes up to about a millisecond late on a loaded machine; with
/// a ``spin`` window the last stretch before a deadline is spent yielding instead, which
/// keeps recorded pacing within a fraction of a millisecond (docs/PERFORMANCE.md, "Replay").
public struct ReplayClock: Sendable {
    /// Nanoseconds before a deadline at which sleeping stops and yielding starts. Default
    /// 0 (plain sleeping).
    public var spin: Int64

    /// Creates a clock.
    public init(spin: Int64 = 0) {
        self.spin = spin
    }

    /// Monotonic time (ns since an arbitrary origin): BridgeArchive's
    /// ``monotonicNanoseconds()``, the project's one monotonic reading.
    public func now() -> Int64 {
        Int64(monotonicNanoseconds())
    }

    /// Suspends until ``now()`` is at least `deadline`. Throws `CancellationError` when
    /// the task is cancelled.
    public func sleep(until deadline: Int64) async throws {
        let sleepUntil = deadline - spin
        var t = now()
        if sleepUntil > t {
            try await Task.sleep(nanoseconds: UInt64(sleepUntil - t))
            t = now()
        }
        while t < deadline {
            try Task.checkCancellation()
            await Task.yield()
            t = now()
        }
    }
}
