/// One address's eviction candidates in the order they became candidates (accepted, or
/// upgraded), with lazy deletion: an item is stale once its connection has moved on
/// (spoke, closed, or re-queued at its upgrade under a new stamp), and is skipped when it
/// reaches the front. So the oldest candidate of an address is found in amortised O(1),
/// and choosing a victim costs O(addresses), not O(connections) (with a descriptor limit
/// of 1 Mi a scan of every connection per refused accept would cost a flood's worth of CPU).
struct AdmissionQueue: Sendable {
    private var items: [(id: Int, stamp: Int)] = []
    private var head = 0

    /// Whether nothing, stale or not, is queued.
    var isEmpty: Bool { head == items.count }

    mutating func append(_ id: Int, stamp: Int) {
        items.append((id, stamp))
    }

    /// The first item `isCurrent` accepts, dropping the stale ones before it.
    mutating func front(where isCurrent: (Int, Int) -> Bool) -> Int? {
        while head < items.count {
            let item = items[head]
            if isCurrent(item.id, item.stamp) { return item.id }
            head += 1
        }
        compact()
        return nil
    }

    /// Frees the dropped prefix once it is most of the storage.
    private mutating func compact() {
        if head > 32 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        } else if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
    }
}
