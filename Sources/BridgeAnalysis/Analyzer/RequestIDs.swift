#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connection's correlation ids: the requests still open and the ids answered lately
/// (``RecentIDs``), in one index.
///
/// A request looks its id up once (open: `reused-correlation-id`; answered: reused,
/// and forgotten; new: opened in the bucket the probe ended at); a response looks its id
/// up once and, when it is final, the open entry becomes the answered one in place. Two
/// tables (a dictionary of open requests keyed by `String` and the answered ids' index)
/// hashed each id three times per request and three per response, and each table cost a
/// cache miss.
///
/// Open requests live in slots, reused through a free list; the index compares an open
/// id by its UTF-8 bytes against the slot's ``OpenRequest/id``.
struct RequestIDs {
    /// The answered ids and the shared index.
    var recent: RecentIDs
    /// Open requests by slot (nil: free).
    var slots: [OpenRequest?] = []
    /// Free slots.
    private var free: [Int] = []

    /// Where one id is: its hash, its bucket, and whether it is open, answered or new.
    struct Lookup {
        /// The id's 31-bit hash (``RecentIDs/hash(_:)``).
        var hash: UInt32
        /// Its bucket, or the empty bucket its probe ended at (-1: no buckets yet).
        var bucket: Int
        /// Open, answered or absent.
        var place: RecentIDs.Place
        /// The id's key (``RecentIDs/Key``) when it is short, as a UUID's is: answering
        /// the request does not encode the id again.
        var key = ShortKey()
    }

    /// Empty, remembering up to `rememberIDs` answered ids.
    init(rememberIDs: Int) {
        recent = RecentIDs(capacity: rememberIDs)
    }

    /// Requests open.
    var openCount: Int { recent.openCount }

    /// The open requests, in no order.
    var openRequests: [OpenRequest] { slots.compactMap { $0 } }

    /// Finds `id`. `mutating` so the closures borrow `self` in place; the ids are read
    /// through `utf8` without copying a `String` (a copy retained and released it).
    mutating func lookup(_ id: String) -> Lookup {
        if let found = id.utf8.withContiguousStorageIfAvailable({ lookup(raw: $0) }) { return found }
        var copy = id
        return copy.withUTF8 { lookup(raw: $0) }
    }

    /// Finds the id whose UTF-8 bytes are `raw`.
    mutating func lookup(raw: UnsafeBufferPointer<UInt8>) -> Lookup {
        RecentIDs.Key.with(raw) { key in
            let hash = recent.hash(key)
            let found = slots.withUnsafeBufferPointer { s in
                recent.locate(key, hash: hash) { slot in s[slot].map { Self.same($0.id, raw) } ?? false }
            }
            return Lookup(hash: hash, bucket: found.bucket, place: found.place, key: ShortKey(key))
        }
    }

    /// Whether `id` is open.
    mutating func isOpen(_ id: String) -> Bool {
        if case .open = lookup(id).place { return true }
        return false
    }

    /// Opens `request`, whose id `lookup` found absent; `unchanged` when nothing changed
    /// the ids since the lookup (its bucket is still the one to take). Consumed: moved
    /// into its slot (a copy retained its strings, and the caller's released them).
    mutating func open(_ request: consuming OpenRequest, at lookup: Lookup, unchanged: Bool) {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            slots[slot] = request
        } else {
            slot = slots.count
            slots.append(request)
        }
        recent.addOpen(slot: slot, hash: lookup.hash, bucket: unchanged ? lookup.bucket : -1)
    }

    /// Answers the open request at `slot` (found by `lookup` of `id`, nothing changed
    /// since), whose action is `action`: its id is now remembered as answered. The
    /// caller passes what it read of the request, so none is copied here.
    mutating func answer(slot: Int, at lookup: Lookup, id: String, action: String, kind: ActionKind) {
        slots[slot] = nil
        free.append(slot)
        func answer(_ key: UnsafeRawBufferPointer) {
            recent.answerOpen(slot: slot, bucket: lookup.bucket, key: key, hash: lookup.hash, action: action, kind: kind)
        }
        if lookup.key.with(answer) == nil { RecentIDs.Key.with(id, answer) }
    }

    /// Forgets the answered id `lookup` found.
    mutating func forgetAnswered(_ lookup: Lookup) {
        guard case .answered(let record) = lookup.place else { return }
        recent.forgetAnswered(bucket: lookup.bucket, record: record)
    }

    /// The action of the answered id `lookup` found.
    func answeredAction(_ lookup: Lookup) -> String? {
        guard case .answered(let record) = lookup.place else { return nil }
        return recent.action(atRecord: record)
    }

    /// Whether `id` is the bytes `raw`.
    static func same(_ id: String, _ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        if let equal = id.utf8.withContiguousStorageIfAvailable({ u in
            u.count == raw.count && (u.isEmpty || memcmp(u.baseAddress!, raw.baseAddress!, u.count) == 0)
        }) { return equal }
        return id.utf8.elementsEqual(raw)
    }
}
