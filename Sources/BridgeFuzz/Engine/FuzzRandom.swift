/// The fuzzer's one source of randomness: xoshiro256** seeded through SplitMix64, so a
/// run is reproduced exactly by its seed. Every mutator, every choice of parent and
/// every weight draw goes through the same generator (issue 8: "all driven by one seeded
/// RNG"); nothing in the fuzzer calls the system's random source.
public struct FuzzRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Creates a generator; the same seed gives the same stream.
    public init(seed: UInt64) {
        var x = seed
        func splitmix() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = splitmix(); s1 = splitmix(); s2 = splitmix(); s3 = splitmix()
    }

    /// The next 64 bits.
    public mutating func next() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    @inline(__always)
    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A value in `0 ..< n` (0 when `n <= 0`).
    public mutating func below(_ n: Int) -> Int {
        guard n > 1 else { return 0 }
        return Int(next() % UInt64(n))
    }

    /// A value in `range`.
    public mutating func within(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `1 / n`.
    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }

    /// A random element (nil for an empty collection).
    public mutating func pick<C: Collection>(_ c: C) -> C.Element? where C.Index == Int {
        c.isEmpty ? nil : c[c.startIndex + below(c.count)]
    }

    /// An index chosen with probability proportional to `weights` (all zero: index 0).
    mutating func weighted(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        guard total > 0 else { return 0 }
        var r = below(total)
        for (i, w) in weights.enumerated() {
            if r < w { return i }
            r -= w
        }
        return weights.count - 1
    }

    /// A small count, biased toward small values: 1 most often, rarely up to `max`.
    mutating func smallCount(max: Int) -> Int {
        var n = 1
        while n < max && oneIn(2) { n += 1 }
        return n
    }
}
