@testable import BridgeAnalysis
import Testing

/// The id table's hash (``RecentIDs/hash(_:seed:)``): a function of the key's bytes only,
/// every byte counting, different under another seed, and spread evenly over the
/// buckets for the ids sessions carry (UUIDs that differ in a few digits, counters
/// behind a long common prefix), so the table's probes stay short.
struct IDHashTests {
    static let seed = IDHashSeed(first: 0x9E37_79B9_7F4A_7C15, second: 0xD1B5_4A32_D192_ED03, third: 0x8CB9_2BA7_2F3D_8DD7)

    static func hash(_ bytes: [UInt8], seed: IDHashSeed = Self.seed) -> UInt32 {
        bytes.withUnsafeBytes { RecentIDs.hash($0, seed: seed) }
    }

    static func key(_ id: String) -> [UInt8] {
        RecentIDs.Key.with(id) { Array($0) }
    }

    @Test func theHashIsAFunctionOfTheKeysBytesAlone() {
        var g = SystemRandomNumberGenerator()
        for n in 0...48 {
            let key = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            let expected = Self.hash(key)
            // Elsewhere in memory, at every alignment, with other bytes around it.
            for shift in 0..<8 {
                var buffer = (0..<(n + 16)).map { _ in UInt8.random(in: 0...255, using: &g) }
                buffer.replaceSubrange(shift..<(shift + n), with: key)
                let h = buffer.withUnsafeBytes { RecentIDs.hash(UnsafeRawBufferPointer(rebasing: $0[shift..<(shift + n)]), seed: Self.seed) }
                #expect(h == expected, "length \(n), shifted by \(shift)")
            }
            #expect(expected < 1 << 31, "31 bits: the entry's top bit is the open flag")
        }
    }

    @Test func everyBitOfEveryByteCounts() {
        var g = SystemRandomNumberGenerator()
        var unchanged = 0, cases = 0
        for n in 1...40 {
            let key = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            let h = Self.hash(key)
            for i in 0..<n {
                for bit in 0..<8 {
                    var flipped = key
                    flipped[i] ^= 1 << bit
                    cases += 1
                    if Self.hash(flipped) == h { unchanged += 1 }
                }
            }
            // A key one byte longer (a zero byte more) is another key.
            if Self.hash(key + [0]) == h { unchanged += 1 }
        }
        // 31 random bits: a chance of one in two billion per case.
        #expect(unchanged == 0, "\(unchanged) of \(cases) one-bit changes kept the hash")
    }

    @Test func anotherSeedGivesOtherHashes() {
        let other = IDHashSeed(first: 1, second: 3, third: 5)
        var same = 0
        for i in 0..<10_000 {
            let k = Self.key("00000000-0000-4000-8000-\(String(repeating: "0", count: 12 - String(i).count))\(i)")
            if Self.hash(k) == Self.hash(k, seed: other) { same += 1 }
        }
        #expect(same < 3)
        var g = SystemRandomNumberGenerator()
        let a = IDHashSeed(using: &g), b = IDHashSeed(using: &g)
        #expect(a.first != b.first || a.second != b.second || a.third != b.third)
        #expect(a.first & 1 == 1 && a.second & 1 == 1 && a.third & 1 == 1)
    }

    /// `ids` in a table two thirds full, as the index places them: the share of buckets
    /// that are no id's home (uniform hashing: e^(-2/3) = 0.513) and the longest run of
    /// full buckets.
    static func spread(_ ids: [String]) -> (empty: Double, longestRun: Int, collisions: Int) {
        let size = ids.count * 3 / 2
        var table = [Bool](repeating: false, count: size)
        var home = [Bool](repeating: false, count: size)
        var hashes = Set<UInt32>()
        var collisions = 0
        for id in ids {
            let h = Self.hash(Self.key(id))
            if !hashes.insert(h).inserted { collisions += 1 }
            var i = RecentIDs.home(h, size: size)
            home[i] = true
            while table[i] { i = (i + 1) % size }
            table[i] = true
        }
        var longest = 0, run = 0
        for full in table + table {
            run = full ? run + 1 : 0
            longest = max(longest, run)
        }
        return (Double(home.filter { !$0 }.count) / Double(size), longest, collisions)
    }

    @Test func sessionIDsSpreadEvenly() {
        let n = 60_000
        // UUIDs as the bench's generator makes them: a random part and the connection's and
        // the request's numbers in fixed places.
        var g = SystemRandomNumberGenerator()
        let uuids = (0..<n).map { i -> String in
            let r = UInt64.random(in: 0...UInt64.max, using: &g)
            let hex = String(r, radix: 16).leftPadded(16)
            return "\(hex.prefix(8))-000\(i % 8)-4003-a\(String(i % 1000).leftPadded(3))-\(String(i, radix: 16).leftPadded(12))"
        }
        let counters = (0..<n).map { "web-request-of-journey-0042-number-\($0)" }
        let upper = (0..<n).map { "ABCDEF01-2345-4678-9ABC-\(String($0, radix: 16, uppercase: true).leftPadded(12))" }
        for ids in [uuids, counters, upper] {
            let s = Self.spread(ids)
            #expect(s.empty > 0.49 && s.empty < 0.54, "\(ids[0]): \(s.empty) of the buckets no home")
            #expect(s.longestRun < 200, "\(ids[0]): a run of \(s.longestRun) full buckets")
            #expect(s.collisions < 10, "\(ids[0]): \(s.collisions) equal 31-bit hashes")
        }
    }
}

extension String {
    /// The string with zeros before it up to `width` characters.
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// The target's SplitMix64 (ArchiveInterpreterTests) as a generator for `random(in:using:)`.
extension SplitMix64: RandomNumberGenerator {}
