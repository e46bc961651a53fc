/// A moment as Unix epoch time: nanoseconds since 1970-01-01T00:00:00Z. The `Instant` of
/// every ``EpochClock`` (the real ``WallClock`` and the ``VirtualClock`` tests and the
/// fuzzer move by hand), so envelope timestamps, archive times and sleeping deadlines
/// are one type.
public struct EpochInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the Unix epoch.
    public var nanoseconds: Int64

    /// Creates the instant `nanoseconds` after the epoch.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// Creates the instant `milliseconds` after the epoch (envelope timestamps are
    /// epoch milliseconds, PROTOCOL.md §1).
    public init(milliseconds: Int64) {
        self.nanoseconds = milliseconds &* 1_000_000
    }

    /// Whole milliseconds since the epoch, rounded down: what an envelope's `timestamp`
    /// carries.
    public var milliseconds: Int64 {
        nanoseconds >= 0 ? nanoseconds / 1_000_000 : (nanoseconds - 999_999) / 1_000_000
    }

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> EpochInstant {
        EpochInstant(nanoseconds: nanoseconds &+ duration.nanoseconds)
    }

    /// The duration from this instant to `other`.
    public func duration(to other: EpochInstant) -> Duration {
        .nanoseconds(other.nanoseconds &- nanoseconds)
    }

    /// Orders instants by time.
    public static func < (a: EpochInstant, b: EpochInstant) -> Bool {
        a.nanoseconds < b.nanoseconds
    }

    /// The nanoseconds, for logs.
    public var description: String { "\(nanoseconds)ns since the epoch" }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating at `Int64`'s range, about 292
    /// years either way).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = ns.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? (ns < 0 ? .min : .max) : sum
    }
}
