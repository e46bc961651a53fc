#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Open requests in the index of ``RecentIDs`` (for ``RequestIDs``): an open request's
/// entry holds the open flag, its id's hash and its slot in the caller's list instead of
/// a record offset, so one probe tells a request or response whether its id is open,
/// answered or new, and answering turns the entry into an answered one where it is (no
/// second hash, no second probe, no second cache miss). Open entries take no ring slot
/// and are never forgotten by the ring; the caller compares their ids.
extension RecentIDs {
    /// The flag of an open request's entry (bit 63).
    static let openFlag: UInt64 = 1 << 63

    /// An open request's entry: the flag, the hash, the slot plus one.
    static func openEntry(slot: Int, hash: UInt32) -> UInt64 {
        openFlag | UInt64(hash) << 32 | UInt64(slot + 1)
    }

    /// Where an id is in the index.
    enum Place: Equatable {
        /// Answered: the offset of its record in the arena.
        case answered(record: Int)
        /// Open: its slot in the caller's list.
        case open(slot: Int)
        /// Neither: the bucket found is the empty one ending its probe.
        case absent
    }

    /// The bucket of `key` (hash `hash`) and where it is, or the empty bucket ending its
    /// probe (-1 when there are no buckets yet) and `.absent`. `isOpen(slot)` says
    /// whether the open request at `slot` has this id.
    func locate(_ key: UnsafeRawBufferPointer, hash: UInt32, isOpen: (Int) -> Bool) -> (bucket: Int, place: Place) {
        let size = buckets.count
        guard size > 0 else { return (-1, .absent) }
        let answered = UInt64(hash), open = UInt64(hash) | (Self.openFlag >> 32)
        return buckets.withUnsafeBufferPointer { b in
            arena.withUnsafeBytes { a in
                var i = Self.home(hash, size: size)
                while true {
                    let entry = b[i]
                    if entry == 0 { return (i, .absent) }
                    let high = entry >> 32
                    if high == answered {
                        let record = Self.record(entry)
                        let keyStart = record + 4
                        if keyStart + key.count <= a.count,
                           memcmp(a.baseAddress! + keyStart, key.baseAddress!, key.count) == 0 {
                            // Keys are prefix-free (their length leads), so equal bytes
                            // over `key.count` are the same key.
                            return (i, .answered(record: record))
                        }
                    } else if high == open, isOpen(Self.record(entry)) {
                        return (i, .open(slot: Self.record(entry)))
                    }
                    i += 1
                    if i == size { i = 0 }
                }
            }
        }
    }

    /// The bucket holding the open entry of `slot`, whose id hashes to `hash`.
    func bucket(ofOpen slot: Int, hash: UInt32) -> Int {
        let wanted = Self.openEntry(slot: slot, hash: hash)
        var i = Self.home(hash, size: buckets.count)
        while buckets[i] != wanted {
            precondition(buckets[i] != 0, "RequestIDs: an open request is missing from the index")
            i += 1
            if i == buckets.count { i = 0 }
        }
        return i
    }

    /// Enters the open request at `slot`, whose id (absent from the index) hashes to
    /// `hash`; `bucket` is the empty bucket ending its probe when nothing changed the
    /// index since, else -1.
    mutating func addOpen(slot: Int, hash: UInt32, bucket: Int) {
        var bucket = bucket
        let full = (count + openCount + 1) * 3 > buckets.count * 2
        if full { grow() }
        if full || bucket < 0 { bucket = Self.freeBucket(in: buckets, from: Self.home(hash, size: buckets.count)) }
        buckets[bucket] = Self.openEntry(slot: slot, hash: hash)
        openCount += 1
    }

    /// The open request at `slot` (its entry in `bucket`, its id's key `key`) was
    /// answered: its id is remembered as answered for `action` (of kind `kind`): it takes
    /// the next ring slot; a full ring forgets its oldest slot's id first, and when that
    /// is this id, it is forgotten at once.
    mutating func answerOpen(slot: Int, bucket: Int, key: UnsafeRawBufferPointer, hash: UInt32, action: String,
                             kind: ActionKind) {
        var bucket = bucket
        let freed = freeOldestSlot(for: key)
        // Deleting moves entries back: find this one again.
        if freed.forgot { bucket = self.bucket(ofOpen: slot, hash: hash) }
        let forgottenAtOnce = freed.isKey
        openCount -= 1
        if forgottenAtOnce {
            deleteBucket(bucket)
            _ = append(key, actionNumber: 0)
            slots += 1
            return
        }
        // Appending may move the arena's records (never an open entry's slot).
        let record = append(key, actionNumber: actions.retain(action, kind: kind))
        slots += 1
        buckets[bucket] = Self.entry(record: record, hash: hash)
        count += 1
    }

    /// Forgets the answered id whose entry is in `bucket` (record `record`).
    mutating func forgetAnswered(bucket: Int, record: Int) {
        actions.release(actionNumber(at: record))
        deleteBucket(bucket)
        count -= 1
    }

    /// The action remembered for the answered record at `record`.
    func action(atRecord record: Int) -> String {
        actions.name(actionNumber(at: record))
    }
}
