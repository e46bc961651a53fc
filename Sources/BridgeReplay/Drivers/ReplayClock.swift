#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// Monotonic time (ns since an arbitrary origin).
    public func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
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
