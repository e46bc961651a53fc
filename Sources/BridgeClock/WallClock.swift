#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real wall clock (`CLOCK_REALTIME`) as a Swift `Clock`: the project's one reading
/// of the time of day, for envelope timestamps, archive start and end times, record
/// times of live captures and transcripts. It can jump (NTP, the user); measure
/// durations with `ContinuousClock` instead.
public struct WallClock: EpochClock {
    /// Creates the wall clock.
    public init() {}

    /// The current time.
    public var now: EpochInstant { WallClock.now }

    /// The current time, without an instance.
    public static var now: EpochInstant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return EpochInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// One nanosecond (the unit of `clock_gettime`).
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Sleeps (with `Task.sleep`) until the wall clock reaches `deadline`; returns at
    /// once, after checking for cancellation, when it already has.
    public func sleep(until deadline: EpochInstant, tolerance: Duration? = nil) async throws {
        let delta = now.duration(to: deadline)
        if delta > .zero {
            try await Task.sleep(for: delta, tolerance: tolerance)
        } else {
            try Task.checkCancellation()
        }
    }
}
