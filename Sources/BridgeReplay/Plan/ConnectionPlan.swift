/// What to send on one connection and what to expect back, worked out once from the
/// recording (a pure function of the recorded messages; see ``init(connection:sessionStart:)``).
public struct ConnectionPlan: Sendable {
    /// One web-to-host message to send.
    public struct Send: Sendable {
        /// The recorded message (sent byte for byte).
        public var message: RecordedMessage
        /// Recorded time after the connection started (ns).
        public var offset: Int64
        /// Its key, when it is a request with a correlationId.
        public var key: PairKey?
        /// How many response slots (in recorded arrival order) arrived before it in the
        /// recording: it is sent only once the first `requiredSlots` slots are resolved.
        public var requiredSlots: Int
    }

    /// One response that arrived in the recording, to a request of this connection.
    public struct Slot: Sendable {
        /// The request it answers.
        public var key: PairKey
        /// Its position among that request's responses (0: first).
        var ordinal: Int
        /// Recorded time after the connection started (ns).
        public var offset: Int64
        /// Index in ``sends`` of the request it answers.
        public var request: Int
    }

    /// The recorded connection's id.
    public var id: String
    /// When it started, after the session started (ns).
    var startOffset: Int64
    /// The web-to-host messages, in recorded order.
    public var sends: [Send] = []
    /// Responses to this connection's requests, in recorded arrival order.
    public var slots: [Slot] = []
    /// Slot index by (key, ordinal).
    var slotIndex: [SlotKey: Int] = [:]
    /// Slot indices of each key, in order.
    var slotsOfKey: [PairKey: [Int]] = [:]
    /// The recording arranged for comparison.
    public var expected = Exchange()
    /// Requests whose recorded answers were lost to a cut: replayed, not compared.
    public var uncompared: Set<PairKey> = []
    /// Whether the recording of the connection is cut (extra host messages after the
    /// cut cannot be told from lost ones, so they are not reported).
    public var isCut: Bool
    /// Recorded time from the last web message (or the start) to the end of the connection (ns).
    public var tail: Int64

    /// (key, ordinal) of a slot.
    struct SlotKey: Sendable, Hashable {
        /// The request.
        public var key: PairKey
        /// The response's position among its responses.
        var ordinal: Int
    }

    /// Plans the replay of `connection`, whose session started at `sessionStart` (ns).
    public init(connection: RecordedConnection, sessionStart: Int64) {
        id = connection.id
        startOffset = max(0, connection.startTime - sessionStart)
        isCut = connection.isCut
        var sendOfKey: [PairKey: Int] = [:]
        var lastWeb = connection.startTime
        for m in connection.messages {
            let offset = max(0, m.time - connection.startTime)
            if m.direction == .webToHost {
                let key = expected.sent(m, at: m.time)
                if let key { sendOfKey[key] = sends.count }
                sends.append(Send(message: m, offset: offset, key: key, requiredSlots: slots.count))
                lastWeb = m.time
            } else if let (key, ordinal) = expected.received(m, at: m.time), let request = sendOfKey[key] {
                slotIndex[SlotKey(key: key, ordinal: ordinal)] = slots.count
                slotsOfKey[key, default: []].append(slots.count)
                slots.append(Slot(key: key, ordinal: ordinal, offset: offset, request: request))
            }
        }
        tail = max(0, connection.endTime - lastWeb)
        if connection.isCut {
            for (key, _) in expected.requests where !(expected.responses[key] ?? []).contains(where: \.message.isFinalResponse) {
                uncompared.insert(key)
            }
        }
    }
}

/// Plans a whole session: one ``ConnectionPlan`` per connection.
public enum ReplayPlanner {
    /// The plans of every connection of `session`, in start order.
    public static func plan(_ session: ReplaySession) -> [ConnectionPlan] {
        let start = session.startTime
        return session.connections.map { ConnectionPlan(connection: $0, sessionStart: start) }
    }
}
