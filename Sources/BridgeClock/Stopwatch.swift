/// Elapsed nanoseconds on a monotonic Swift `Clock`: what the archive writer's flush
/// rule, the recorders' progress and replay's pacing read. It is not a clock of its own:
/// ``monotonic`` reads the standard library's `ContinuousClock` from one origin shared
/// by the whole process, and tests build one over a ``VirtualClock`` they move by hand.
public struct Stopwatch: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Reads `clock` from its current instant.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleeper = { try await clock.sleep(for: $0) }
    }

    /// `ContinuousClock` from the process's first use: every stopwatch made with
    /// `.monotonic` agrees with every other.
    public static let monotonic = Stopwatch(ContinuousClock())

    /// Nanoseconds since the stopwatch's origin.
    public func now() -> UInt64 {
        UInt64(clamping: elapsed().nanoseconds)
    }

    /// Suspends until ``now()`` is at least `deadline`. With a `spin` window the last
    /// stretch is spent yielding instead of sleeping: `Task.sleep` wakes up to about a
    /// millisecond late on a loaded machine, yielding keeps pacing within a fraction of
    /// one (docs/PERFORMANCE.md, "Replay"). Throws `CancellationError` when the task is
    /// cancelled.
    public func sleep(until deadline: UInt64, spin: Duration = .zero) async throws {
        let spinNs = UInt64(clamping: spin.nanoseconds)
        var t = now()
        if deadline > t &+ spinNs {
            try await sleeper(.nanoseconds(Int64(clamping: deadline - spinNs - t)))
            t = now()
        }
        while t < deadline {
            try Task.checkCancellation()
            await Task.yield()
            t = now()
        }
    }
}
