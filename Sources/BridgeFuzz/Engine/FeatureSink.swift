/// Collects behaviour features of one run (finding rules, response statuses and codes,
/// host log events, pairs of consecutive host answers) as 64-bit hashes. The engine keeps
/// the union over the run; a case that adds a feature joins the corpus. This is the
/// in-process engine's stand-in for code coverage, which only the libFuzzer build has.
public struct FeatureSink: Sendable {
    /// The features, in the order added (duplicates possible).
    private(set) var hashes: [UInt64] = []
    private var previous: UInt64 = 0

    /// Creates an empty sink.
    public init() {
        hashes.reserveCapacity(64)
    }

    /// Adds the feature `kind:value`.
    public mutating func add(_ kind: StaticString, _ value: String) {
        var h = FeatureSink.fnv(kind)
        for b in value.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        add(raw: h)
    }

    /// Adds a feature and the pair (previous feature, this one).
    mutating func addSequenced(_ kind: StaticString, _ value: String) {
        var h = FeatureSink.fnv(kind)
        for b in value.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        add(raw: h)
        add(raw: (previous &* 31) ^ h ^ 0x5bd1_e995)
        previous = h
    }

    /// Adds an already hashed feature.
    public mutating func add(raw h: UInt64) {
        hashes.append(h)
    }

    /// Adds `kind:n` with `n` bucketed by powers of two (1, 2, 3-4, 5-8, ...).
    mutating func addCount(_ kind: StaticString, _ n: Int) {
        let bucket = n <= 0 ? 0 : (Int.bitWidth - (n - 1).leadingZeroBitCount)
        add(kind, String(bucket))
    }

    static func fnv(_ s: StaticString) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        s.withUTF8Buffer { for b in $0 { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 } }
        return h
    }
}
