/// A Swift `Clock` whose instants are Unix epoch times (``EpochInstant``): the real
/// ``WallClock`` or a ``VirtualClock``. Code that stamps envelopes or archive records
/// and sleeps until a moment takes `any EpochClock`, so tests and the fuzzer run it on
/// virtual time and nothing really sleeps. Monotonic measurement (timeouts, pacing,
/// flush intervals) uses the standard library's `ContinuousClock`, read through a
/// ``Stopwatch``.
public protocol EpochClock: Clock where Instant == EpochInstant, Duration == Swift.Duration {}

extension EpochClock {
    /// The current time in whole Unix epoch milliseconds.
    public var milliseconds: Int64 { now.milliseconds }

    /// Suspends until the clock reads at least `milliseconds` (returns at once when it
    /// already does). Throws `CancellationError` when the calling task is cancelled.
    public func sleep(untilMilliseconds milliseconds: Int64) async throws {
        try await sleep(until: EpochInstant(milliseconds: milliseconds), tolerance: nil)
    }
}
