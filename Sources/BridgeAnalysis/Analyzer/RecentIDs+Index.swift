#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The index of ``RecentIDs``: open addressing over record offsets, linear probing,
/// backward-shift deletion (no tombstones), at most two thirds full. A key's home
/// bucket is its `Hasher` value (seeded per process) scaled to the table's size, so the
/// table need not be a power of two: it is sized to the ring's capacity once full.
extension RecentIDs {
    /// The key's hash: `Hasher` is seeded per process, so colliding ids cannot be
    /// chosen in advance.
    static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: key)
        return hasher.finalize()
    }

    /// The home bucket of `hash` in a table of `size` buckets.
    static func home(_ hash: Int, size: Int) -> Int {
        Int(truncatingIfNeeded: UInt64(UInt(bitPattern: hash)).multipliedFullWidth(by: UInt64(size)).high)
    }

    /// The bucket holding `key` and its record, or the empty bucket ending its probe
    /// (-1 when there are no buckets yet) and nil.
    func find(_ key: UnsafeRawBufferPointer, hash: Int) -> (bucket: Int, record: Int?) {
        let size = buckets.count
        guard size > 0 else { return (-1, nil) }
        return buckets.withUnsafeBufferPointer { b in
            arena.withUnsafeBytes { a in
                var i = Self.home(hash, size: size)
                while true {
                    let entry = b[i]
                    if entry == 0 { return (i, nil) }
                    let record = Int(entry) - 1
                    let keyStart = record + 4
                    if keyStart + key.count <= a.count,
                       memcmp(a.baseAddress! + keyStart, key.baseAddress!, key.count) == 0 {
                        // Keys are prefix-free (their length leads), so equal bytes
                        // over `key.count` are the same key.
                        return (i, record)
                    }
                    i += 1
                    if i == size { i = 0 }
                }
            }
        }
    }

    /// Points the index at a new record (its key absent from the index).
    mutating func add(record: Int, hash: Int) {
        if (count + 1) * 3 > buckets.count * 2 { grow() }
        buckets[Self.freeBucket(in: buckets, from: Self.home(hash, size: buckets.count))] = UInt32(record + 1)
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
            let home = Self.home(recordHash(Int(entry) - 1), size: size)
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
        let delta = UInt32(offset)
        buckets.withUnsafeMutableBufferPointer { b in
            for i in b.indices where b[i] != 0 { b[i] -= delta }
        }
    }

    /// The hash of the key of the record at `record`.
    func recordHash(_ record: Int) -> Int {
        let range = keyRange(at: record)
        return arena.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Doubles the table (at least 16 buckets), up to what the ring's capacity needs at
    /// two thirds full, and places every entry again.
    private mutating func grow() {
        let needed = capacity + capacity / 2 + 2
        var size = Swift.max(16, Swift.min(buckets.count * 2, needed))
        while (count + 1) * 3 > size * 2 { size *= 2 }
        let old = buckets
        buckets = [UInt32](repeating: 0, count: size)
        for entry in old where entry != 0 {
            buckets[Self.freeBucket(in: buckets, from: Self.home(recordHash(Int(entry) - 1), size: size))] = entry
        }
    }

    /// The first empty bucket at or after `home`, wrapping round (the table is never full).
    static func freeBucket(in buckets: [UInt32], from home: Int) -> Int {
        var i = home
        while buckets[i] != 0 {
            i += 1
            if i == buckets.count { i = 0 }
        }
        return i
    }
}
