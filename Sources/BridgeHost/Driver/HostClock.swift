#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host's notion of time: Unix epoch milliseconds, and a way to wait for a moment.
///
/// The host never reads the system time or sleeps by itself: the ``BridgeHost`` driver
/// asks its clock, so tests and the fuzzer run it on a ``VirtualClock`` (no sleeping,
/// thousands of journeys a second) and the CLI on a ``SystemClock``.
public protocol HostClock: Sendable {
    /// The current time in Unix epoch milliseconds. Envelope timestamps are taken from it,
    /// so it must be at least 10^11 (later than March 1973) or the encoder refuses them.
    var now: Int64 { get }
    /// Suspends until ``now`` is at least `deadline` (returns at once when it already is).
    /// Throws `CancellationError` when the calling task is cancelled.
    func sleep(until deadline: Int64) async throws
}

/// The real clock: wall-clock milliseconds and `Task.sleep`.
public struct SystemClock: HostClock {
    /// Creates the system clock.
    public init() {}

    /// Wall-clock Unix epoch milliseconds (`clock_gettime(CLOCK_REALTIME)`).
    public var now: Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Sleeps with `Task.sleep` until the wall clock reaches `deadline`.
    public func sleep(until deadline: Int64) async throws {
        let delta = deadline - now
        if delta > 0 {
            try await Task.sleep(nanoseconds: UInt64(delta) * 1_000_000)
        } else {
            try Task.checkCancellation()
        }
    }
}
