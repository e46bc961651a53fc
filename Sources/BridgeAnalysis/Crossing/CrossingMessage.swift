import BridgeProtocol

/// One side's record of a message, kept while it waits for its twin on the other side
/// of the bridge (``CrossingPair``): what pairs it, where it is, its bytes (to compare
/// with the twin's) and the tap's note on its crossing, when one preceded it.
struct CrossingMessage: Sendable {
    var key: CrossingKey
    /// The record number (archive `seq`, tap log line).
    var record: Int
    /// Capture time (ns).
    var time: Int64
    /// The message bytes as recorded.
    var bytes: [UInt8]
    /// The `crossing` event that preceded the record on its connection and direction.
    var note: CrossingNote?
}

/// A `crossing` event (docs/FORMAT.md §5): what WebKit does to the next record of the same
/// connection and direction, as the page's tap saw it.
struct CrossingNote: Sendable, Hashable {
    /// False for `not delivered: ...`: WebKit does not deliver the message.
    var delivered: Bool
    /// The changes named (`payload.data.n: a BigInt, dropped; ...`), or empty.
    var changes: String
    /// The event's record number.
    var record: Int

    /// Reads the event's `reason`: `not delivered[: changes]` or `changed[: changes]`; any
    /// other sentence (a newer tap's) is kept whole as the changes of a delivered message.
    init(reason: String, record: Int) {
        self.record = record
        func after(_ head: String) -> String? {
            guard reason.hasPrefix(head) else { return nil }
            let rest = reason.dropFirst(head.count)
            if rest.isEmpty { return "" }
            return rest.hasPrefix(": ") ? String(rest.dropFirst(2)) : nil
        }
        if let c = after("not delivered") {
            delivered = false
            changes = c
        } else if let c = after("changed") {
            delivered = true
            changes = c
        } else {
            delivered = true
            changes = reason
        }
    }
}
