/// Answered correlationIds and their requests' actions, the oldest forgotten first past
/// a cap (`duplicate-response`, `reused-correlation-id`).
///
/// The contract is that of a dictionary beside a ring of ids (the analyzer's memory
/// before issue 21; `RequestIDsTests` hold it to that): an answered id
/// (``answerOpen(slot:bucket:key:hash:action:kind:)``) takes the next ring slot and, once
/// the ring is full, the oldest slot's id is forgotten, even when that id was forgotten
/// and answered again since (its newer slot is then forgotten with it);
/// ``forgetAnswered(bucket:record:)`` forgets an id and leaves its slot to be overwritten
/// in turn. ``RequestIDs`` keeps the open requests in the same index.
///
/// The memory is a few bytes over the ids' own bytes, with no object per id:
/// - the ring is a byte arena, oldest first (slots are taken and freed in order, so it is
///   a FIFO): each record is the action's number (4 bytes, little-endian, into an
///   interned table) and the id's key (``RecentIDs/Key``: a canonical UUID is packed
///   into 16 bytes); the dead prefix is dropped when the arena must grow;
/// - the index is open addressing over the records' offsets and their keys' hashes
///   (linear probing, backward-shift deletion) under a hash seeded per process, so a hostile
///   session cannot make it quadratic.
///
/// For 36-byte UUID ids that is about 33 bytes per remembered id (a `String` in a
/// `Dictionary` and a ring of `String`s took about 140). Ids are compared exactly.
struct RecentIDs {
    /// The ring's slots; at most ``maxCapacity`` (the arena's offsets are 32-bit).
    let capacity: Int
    /// The keys of the index's hash (``hash(_:)``).
    let seed: IDHashSeed
    /// Ring slots in use: records in the arena.
    var slots = 0
    /// Ids remembered: records the index points at.
    var count = 0
    /// Open requests the index points at (``RequestIDs``): they share its buckets, so a
    /// message finds its id open, answered or new in one probe.
    var openCount = 0
    /// The records from ``start``; bytes before it belong to forgotten slots.
    var arena: [UInt8] = []
    /// Offset of the oldest slot's record.
    var start = 0
    /// 0 for an empty bucket, else the id's 31-bit hash (high half, below the open flag)
    /// and the offset of its record plus one (low half): ``entry(record:hash:)``; for an
    /// open request the flag (bit 63) and its slot plus one (``openEntry(slot:hash:)``).
    var buckets: [UInt64] = []
    var actions = ActionTable()

    /// The most slots a ring keeps: ids are cut to a few hundred bytes
    /// (`maxIdentifierBytes`), so the arena stays under 4 GiB.
    static let maxCapacity = 10_000_000

    /// An empty memory of `capacity` slots (at least 1, at most ``maxCapacity``), its
    /// index hashed under `seed`.
    init(capacity: Int, seed: IDHashSeed = .process) {
        self.seed = seed
        self.capacity = Swift.min(Swift.max(1, capacity), Self.maxCapacity)
    }

    /// When the ring is full, frees its oldest slot, and the id it holds goes with it.
    /// When that id is `key` (it was removed since), the caller forgets `key` at once, as
    /// it always was: `isKey`. `forgot`: another id left the index (deleting it may have
    /// moved later entries back).
    mutating func freeOldestSlot(for key: UnsafeRawBufferPointer) -> (isKey: Bool, forgot: Bool) {
        guard slots == capacity else { return (false, false) }
        let oldest = keyRange(at: start)
        var freed = (isKey: false, forgot: false)
        // A copy: removing the id from the index reads the arena.
        withUnsafeTemporaryAllocation(byteCount: oldest.count, alignment: 1) { copy in
            arena.withUnsafeBytes { copy.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[oldest])) }
            let old = UnsafeRawBufferPointer(copy)
            if old.elementsEqual(key) { freed.isKey = true } else { freed.forgot = forget(old) }
        }
        start = oldest.upperBound
        slots -= 1
        return freed
    }

    /// Removes `key` from the index; false when it was not there.
    mutating func forget(_ key: UnsafeRawBufferPointer) -> Bool {
        let (bucket, record) = find(key, hash: hash(key))
        guard let record else { return false }
        forgetAnswered(bucket: bucket, record: record)
        return true
    }

    /// Appends a record; returns its offset. Full arenas drop their dead prefix and
    /// keep an eighth of the live bytes free: in place when the allocation is large
    /// enough (once the ring is full, no new allocation of a couple of megabytes per
    /// compaction), else in a larger one. While the ring fills (no dead prefix yet) the
    /// arena doubles, up to about what a full ring of such records takes: growing by an
    /// eighth each time copied each byte about eight times over, in new pages each time.
    mutating func append(_ key: UnsafeRawBufferPointer, actionNumber: UInt32) -> Int {
        let size = 4 + key.count
        if arena.count + size > arena.capacity {
            let live = arena.count - start
            var wanted = live + size + Swift.max(live / 8, 256)
            if start == 0, slots > 0 {
                let fullRing = live / slots * capacity + live / 8
                wanted = Swift.max(wanted, Swift.min(2 * live, fullRing))
            }
            if start > 0 && wanted <= arena.capacity {
                arena.removeSubrange(0..<start)
                rebase(by: start)
            } else {
                var fresh: [UInt8] = []
                fresh.reserveCapacity(wanted)
                fresh.append(contentsOf: arena[start...])
                if start > 0 { rebase(by: start) }
                arena = fresh
            }
            start = 0
        }
        let record = arena.count
        precondition(record + size < Int(UInt32.max), "RecentIDs arena past 4 GiB")
        withUnsafeBytes(of: actionNumber.littleEndian) { arena.append(contentsOf: $0) }
        arena.append(contentsOf: key)
        return record
    }

    func actionNumber(at record: Int) -> UInt32 {
        arena.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: record, as: UInt32.self)) }
    }

    /// The bytes of the key of the record at `record`.
    func keyRange(at record: Int) -> Range<Int> {
        arena.withUnsafeBytes { a in
            let keyStart = record + 4
            return keyStart..<(keyStart + Key.length(UnsafeRawBufferPointer(rebasing: a[keyStart...])))
        }
    }
}
