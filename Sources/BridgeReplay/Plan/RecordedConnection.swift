/// The messages of one recorded connection, in archive order, as far as they are
/// complete.
public struct RecordedConnection: Sendable, Hashable {
    /// The archive's connection id (`conn`).
    public var id: String
    /// When the connection started: its `open` event, else its first message (ns).
    public var startTime: Int64
    /// When it ended: its `close` event, else its last message (ns).
    public var endTime: Int64
    /// Whether the archive holds a `close` event for it.
    public var closed: Bool
    /// The messages kept for replay, in archive order.
    public var messages: [RecordedMessage]
    /// Where the recording of this connection stops being complete, if it does: messages
    /// after this `seq` were lost or cut and are not in ``messages``. Requests before it
    /// whose answers are missing are replayed but their answers are not compared.
    var cutAfterSequence: Int?
    /// Why it was cut.
    var cutReason: String?

    /// Creates a connection.
    public init(id: String, startTime: Int64, endTime: Int64? = nil, closed: Bool = false, messages: [RecordedMessage] = [],
                cutAfterSequence: Int? = nil, cutReason: String? = nil) {
        self.id = id
        self.startTime = startTime
        self.endTime = endTime ?? messages.last?.time ?? startTime
        self.closed = closed
        self.messages = messages
        self.cutAfterSequence = cutAfterSequence
        self.cutReason = cutReason
    }

    /// Whether the recording of this connection is cut (gap, drop, damage, truncation).
    public var isCut: Bool { cutAfterSequence != nil }
}

/// Something in an archive that replay did not use, and why.
public struct SkippedPart: Sendable, Hashable, CustomStringConvertible {
    /// The connection concerned (nil: the archive as a whole).
    public var connection: String?
    /// How many messages were not replayed.
    public var messages: Int
    /// A sentence.
    public var reason: String

    /// Creates a note.
    public init(connection: String?, messages: Int, reason: String) {
        self.connection = connection
        self.messages = messages
        self.reason = reason
    }

    /// `conn c1: 3 message(s) skipped: reason`.
    public var description: String {
        let who = connection.map { "conn \($0): " } ?? ""
        return "\(who)\(messages) message(s) skipped: \(reason)"
    }
}
