import BridgeProtocol

/// One two-sided connection: its `<id>@web` and `<id>@native` sides, and the messages of
/// each that wait for their twin on the other side.
///
/// Pairing, per direction and ``CrossingKey``, in order of occurrence (an id may repeat),
/// whichever side comes first in the recording: a message the sender posted waits in
/// `sent` until the receiver's record of it arrives, and a receipt waits in `received`
/// until the post arrives. A post its tap noted WebKit will not deliver (a `crossing`
/// event `not delivered`) waits apart, in `undelivered`: a receipt pairs with it only at
/// the end, when no other post could be its twin (the tap was wrong).
struct CrossingPair: Sendable {
    /// Where one direction's messages of one key wait.
    struct Queues: Sendable {
        var sent: [CrossingMessage] = []
        var received: [CrossingMessage] = []
        var undelivered: [CrossingMessage] = []
        var isEmpty: Bool { sent.isEmpty && received.isEmpty && undelivered.isEmpty }
    }

    /// A direction and a key.
    struct QueueKey: Hashable, Sendable {
        var webToHost: Bool
        var key: CrossingKey
    }

    /// What is known of one side.
    struct Side: Sendable {
        /// Whether any record or event named this side.
        var seen = false
        /// Messages recorded on it.
        var messages = 0
        /// Its first record or event.
        var first: Int?
        /// The first record at which its recording lost data (a gap, drop or error event).
        var loss: Int?
        /// The `crossing` note waiting for the next record, `w2h` then `h2w`.
        var notes: [CrossingNote?] = [nil, nil]
    }

    /// Why and where the comparison of this connection stopped (a limit).
    struct Stop: Sendable {
        var record: Int
        var why: String
    }

    /// The connection id without its suffix.
    let base: String
    var web = Side(), native = Side()
    var queues: [QueueKey: Queues] = [:]
    /// Messages waiting, and their bytes.
    var waiting = 0, waitingBytes = 0
    var stopped: Stop?
    /// Host → page messages the native side recorded: none when its tap cannot see the
    /// host's sends (an app on the seeds' SDK taps `bridgeHost(_:didReceive:)` only).
    var nativeSends = 0
    /// Page receipts of host messages while the native side had recorded no send.
    var receiptsBeforeAnySend = 0
    /// Host → page messages are not judged: the native side records no sends.
    var sendsUnjudged = false
    /// How many page receipts wait for a first native send before host → page is left
    /// unjudged (docs/ANALYZER.md, "A native tap that sees no sends").
    static let receiptsBeforeGivingUp = 256

    init(base: String) {
        self.base = base
    }

    /// One side's state.
    subscript(side: BridgeSide) -> Side {
        get { side == .web ? web : native }
        set { if side == .web { web = newValue } else { native = newValue } }
    }

    /// Whether both sides were recorded.
    var isTwoSided: Bool { web.seen && native.seen }

    /// The note waiting on `side` for its next record of `direction`, taken.
    mutating func takeNote(_ side: BridgeSide, webToHost: Bool) -> CrossingNote? {
        let i = webToHost ? 0 : 1
        defer { self[side].notes[i] = nil }
        return self[side].notes[i]
    }

    /// Keeps `note` for `side`'s next record of the direction (a newer note replaces one
    /// no record followed).
    mutating func setNote(_ note: CrossingNote, _ side: BridgeSide, webToHost: Bool) {
        self[side].notes[webToHost ? 0 : 1] = note
    }

    /// The message of `side` paired with its twin, if one waits: (sent, received, the
    /// twin was the one kept). Otherwise nothing, and the message must be kept
    /// (``keep(_:_:sender:undelivered:)``).
    mutating func twin(of message: CrossingMessage, on side: BridgeSide, webToHost: Bool) -> CrossingMessage? {
        let sender = side == (webToHost ? .web : .native)
        let q = QueueKey(webToHost: webToHost, key: message.key)
        guard var queue = queues[q] else { return nil }
        if sender && message.note?.delivered == false { return nil }
        var found: CrossingMessage?
        if sender, !queue.received.isEmpty {
            found = queue.received.removeFirst()
        } else if !sender, !queue.sent.isEmpty {
            found = queue.sent.removeFirst()
        }
        guard let found else { return nil }
        waiting -= 1
        waitingBytes -= found.bytes.count
        queues[q] = queue.isEmpty ? nil : queue
        return found
    }

    /// Keeps a message until its twin arrives.
    mutating func keep(_ message: CrossingMessage, webToHost: Bool, sender: Bool) {
        let q = QueueKey(webToHost: webToHost, key: message.key)
        if sender && message.note?.delivered == false {
            queues[q, default: Queues()].undelivered.append(message)
        } else if sender {
            queues[q, default: Queues()].sent.append(message)
        } else {
            queues[q, default: Queues()].received.append(message)
        }
        waiting += 1
        waitingBytes += message.bytes.count
    }

    /// Stops the comparison at `record`: what waits is let go, unjudged.
    mutating func stop(at record: Int, why: String) {
        guard stopped == nil else { return }
        stopped = Stop(record: record, why: why)
        queues = [:]
        waiting = 0
        waitingBytes = 0
    }
}
