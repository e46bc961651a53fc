/// How far a replayed response's latency may be from the recorded one before it is a
/// `timing` divergence: the larger of an absolute and a relative bound.
public struct TimingTolerance: Sendable, Hashable {
    /// Absolute bound (ns). Default 1 s (first answers include a host's start-up).
    public var absolute: Int64
    /// Relative bound, as a fraction of the recorded latency. Default 0.5 (50 %).
    public var relative: Double

    /// Creates a tolerance.
    public init(absolute: Int64 = 1_000_000_000, relative: Double = 0.5) {
        self.absolute = absolute
        self.relative = relative
    }

    /// Whether `actual` is within tolerance of `expected` (both ns).
    public func accepts(expected: Int64, actual: Int64) -> Bool {
        let bound = max(absolute, Int64(Double(max(0, expected)) * relative))
        return abs(actual - expected) <= bound
    }
}
