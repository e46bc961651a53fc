#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the writer gets the time for its 250 ms flush rule: a monotonic nanosecond
/// counter. Tests inject a clock they move by hand. Also the project's one reading of the
/// wall clock in nanoseconds (``wallClockNanoseconds()``), for archives and playback.
public struct ArchiveClock: Sendable {
    /// Returns monotonic nanoseconds (any origin; only differences are used).
    public var now: @Sendable () -> UInt64

    /// Wraps a time source.
    public init(now: @escaping @Sendable () -> UInt64) {
        self.now = now
    }

    /// `CLOCK_MONOTONIC`.
    public static let monotonic = ArchiveClock { monotonicNanoseconds() }

    /// The wall clock (`CLOCK_REALTIME`) in nanoseconds since the Unix epoch, for
    /// header start times and trailer end times.
    public static func wallClockNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds: the one monotonic reading of the project (the
/// archive writer's flush rule, replay's pacing).
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
