/// The index of ``RecentIDs``: open addressing over record offsets, linear probing,
/// backward-shift deletion (no tombstones), at most two thirds full. A key's home
/// bucket is its hash (``hash(_:)``, seeded per process) scaled to the table's size, so the
/// table need not be a power of two: it is sized to the ring's capacity once full.
///
/// A bucket holds the key's 31-bit hash beside its record's offset: a probe compares
/// the hashes and reads the arena only when they match (an absent id walked its cluster
/// comparing keys in the arena, a cache miss each), and deleting or growing finds each
/// entry's home without hashing its key again.
extension RecentIDs {
    /// The key's hash: a folded multiply (the 128-bit product's halves xored) over the
    /// key's 8-byte words, keyed by ``IDHashSeed`` (random per process), so colliding ids
    /// cannot be chosen in advance. `Hasher` (SipHash-1-3) cost 1.5% of `analyze` on a
    /// small-message session; a UUID's 17-byte key takes three multiplies here.
    func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        Self.hash(key, seed: seed)
    }

    /// ``hash(_:)`` with an explicit seed.
    static func hash(_ key: UnsafeRawBufferPointer, seed: IDHashSeed) -> UInt32 {
        let n = key.count
        var s = seed.first ^ UInt64(truncatingIfNeeded: n)
        guard let base = key.baseAddress, n > 0 else { return Self.finish(s, seed) }
        var p = 0
        while n - p > 8 {
            s = Self.fold(s ^ base.loadUnaligned(fromByteOffset: p, as: UInt64.self), seed.second)
            p += 8
        }
        // The last 1-8 bytes: a word ending at the key's end when the key has 8, else
        // the bytes one by one (short ids only). Both are the same function of the key.
        var last: UInt64 = 0
        if n >= 8 {
            last = base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        } else {
            for i in 0..<n { last |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << (8 * UInt64(i)) }
        }
        s = Self.fold(s ^ last, seed.second)
        return Self.finish(s, seed)
    }

    /// The high and low halves of `a * b`, xored.
    @inline(__always)
    static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let m = a.multipliedFullWidth(by: b)
        return m.high ^ m.low
    }

    /// 31 bits of a last fold: an entry's top bit is the open flag.
    @inline(__always)
    static func finish(_ s: UInt64, _ seed: IDHashSeed) -> UInt32 {
        UInt32(truncatingIfNeeded: Self.fold(s, seed.third) >> 33)
    }

    /// The home bucket of the 31-bit `hash` in a table of `size` buckets.
    static func home(_ hash: UInt32, size: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(hash) &* UInt64(size)) >> 31)
    }

    /// A bucket's entry: the hash in the high half, the record's offset plus one in the
    /// low half (0: an empty bucket).
    static func entry(record: Int, hash: UInt32) -> UInt64 {
        UInt64(hash) << 32 | UInt64(record + 1)
    }

    /// The record an entry points at (an open entry: its slot).
    static func record(_ entry: UInt64) -> Int { Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1 }

    /// The hash an entry holds.
    static func hash(_ entry: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: entry >> 32) & 0x7FFF_FFFF }

    /// The bucket holding `key` and its record, or the empty bucket ending its probe
    /// (-1 when there are no buckets yet) and nil.
    func find(_ key: UnsafeRawBufferPointer, hash: UInt32) -> (bucket: Int, record: Int?) {
        // ``locate(_:hash:isOpen:)`` passing open entries by.
        let (bucket, place) = locate(key, hash: hash) { _ in false }
        if case .answered(let record) = place { return (bucket, record) }
        return (bucket, nil)
    }

    /// Points the index at a new record (its key absent from the index).
    mutating func add(record: Int, hash: UInt32) {
        if (count + openCount + 1) * 3 > buckets.count * 2 { grow() }
        buckets[Self.freeBucket(in: buckets, from: Self.home(hash, size: buckets.count))] = Self.entry(record: record, hash: hash)
        count += 1
    }

    /// Empties `bucket`, moving later entries of its cluster back so every probe still
    /// reaches them.
    mutating func deleteBucket(_ bucket: Int) {
        let size = buckets.count
        var hole = bucket
        var j = bucket
        while true {
            j += 1
            if j == size { j = 0 }
            let entry = buckets[j]
            if entry == 0 { break }
            let home = Self.home(Self.hash(entry), size: size)
            // The entry may fill the hole unless its home lies after the hole, up to j.
            if (j - home + size) % size >= (j - hole + size) % size {
                buckets[hole] = entry
                hole = j
            }
        }
        buckets[hole] = 0
    }

    /// Subtracts `offset` from every record offset (the arena dropped that many bytes).
    mutating func rebase(by offset: Int) {
        let delta = UInt64(offset)
        buckets.withUnsafeMutableBufferPointer { b in
            // The offset is in the low half and stays at least 1: no borrow reaches the hash.
            // Open entries hold a slot, not an offset.
            for i in b.indices where b[i] != 0 && b[i] & Self.openFlag == 0 { b[i] -= delta }
        }
    }

    /// Open requests the table has room for beside a full ring without growing.
    static let openRoom = 1_024

    /// Doubles the table (at least 16 buckets), up to what the ring's capacity and
    /// ``openRoom`` open requests need at two thirds full, and places every entry again.
    /// Past that (more open requests on top of a full ring) it grows by a quarter:
    /// doubling a table sized for 100,000 ids for one open request was 2.4 MB more per
    /// connection (peak RSS 89 -> 105 MB at 6M messages).
    mutating func grow() {
        let needed = (capacity + Self.openRoom) * 3 / 2 + 2
        let entries = count + openCount + 1
        var size = Swift.max(16, Swift.min(buckets.count * 2, needed))
        if entries * 3 > size * 2 {
            size = Swift.max(size + size / 4, (entries * 3 + 1) / 2 + 1)
        }
        let old = buckets
        buckets = [UInt64](repeating: 0, count: size)
        for entry in old where entry != 0 {
            buckets[Self.freeBucket(in: buckets, from: Self.home(Self.hash(entry), size: size))] = entry
        }
    }

    /// The first empty bucket at or after `home`, wrapping round (the table is never full).
    static func freeBucket(in buckets: [UInt64], from home: Int) -> Int {
        var i = home
        while buckets[i] != 0 {
            i += 1
            if i == buckets.count { i = 0 }
        }
        return i
    }
}
