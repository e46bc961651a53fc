/// The keys of ``RecentIDs``'s hash: random per process, so that a hostile session
/// cannot choose ids that collide in the id table (each probe would then walk every
/// colliding entry). Odd, so no multiply by a seed loses bits.
struct IDHashSeed: Sendable {
    /// Mixed with the key's length at the start.
    var first: UInt64
    /// Multiplies each word of the key.
    var second: UInt64
    /// Multiplies the last state once more before the hash's bits are taken.
    var third: UInt64

    /// Three random odd words from `generator`.
    init<G: RandomNumberGenerator>(using generator: inout G) {
        first = generator.next() | 1
        second = generator.next() | 1
        third = generator.next() | 1
    }

    /// Fixed words, for tests.
    init(first: UInt64, second: UInt64, third: UInt64) {
        (self.first, self.second, self.third) = (first | 1, second | 1, third | 1)
    }

    /// This process's seed, drawn once from the system's random source.
    static let process: IDHashSeed = {
        var g = SystemRandomNumberGenerator()
        return IDHashSeed(using: &g)
    }()
}
