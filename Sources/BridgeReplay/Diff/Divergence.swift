/// One way a replay disagreed with its recording.
public struct Divergence: Sendable, Hashable, CustomStringConvertible {
    /// What kind of disagreement. An open set with stable spellings (docs/REPLAY.md).
    public struct Kind: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The stable spelling.
        public let rawValue: String
        /// Wraps a spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The spelling.
        public var description: String { rawValue }
        /// Orders by spelling.
        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }

        /// A recorded response has no counterpart in the replay.
        public static let missingResponse = Kind(rawValue: "missing-response")
        /// The replay got a response the recording does not have.
        static let extraResponse = Kind(rawValue: "extra-response")
        /// The paired responses have different `status`.
        public static let statusDiffers = Kind(rawValue: "status-differs")
        /// The paired messages differ at a JSON pointer (after normalization).
        public static let dataDiffers = Kind(rawValue: "data-differs")
        /// A response's latency is outside the tolerance of the recorded one.
        public static let timing = Kind(rawValue: "timing")
        /// A recorded host event (or other host message) has no counterpart in the replay.
        static let missingEvent = Kind(rawValue: "missing-event")
        /// The replay got a host event the recording does not have.
        public static let extraEvent = Kind(rawValue: "extra-event")
        /// The target closed the connection before every message was sent.
        public static let closedEarly = Kind(rawValue: "closed-early")
        /// What the target answered is something no legal host could answer (the protocol
        /// model, whatever the recording holds).
        public static let protocolViolation = Kind(rawValue: "protocol-violation")
        /// The connection could not be replayed at all.
        static let connectionError = Kind(rawValue: "connection-error")
    }

    /// The recorded connection.
    public var connection: String
    /// What kind.
    public var kind: Kind
    /// The request's correlationId (responses, timing).
    public var correlationId: String?
    /// The action concerned, when known.
    public var action: String?
    /// Where in the message (data-differs).
    public var pointer: String?
    /// The recorded value (compact JSON, a status, a latency), when there is one.
    public var expected: String?
    /// The replayed value, when there is one.
    public var actual: String?
    /// A sentence.
    public var message: String

    /// Creates a divergence.
    public init(connection: String, kind: Kind, correlationId: String? = nil, action: String? = nil,
                pointer: String? = nil, expected: String? = nil, actual: String? = nil, message: String) {
        self.connection = connection
        self.kind = kind
        self.correlationId = correlationId
        self.action = action
        self.pointer = pointer
        self.expected = expected
        self.actual = actual
        self.message = message
    }

    /// `kind action id: message`.
    public var description: String {
        var s = kind.rawValue
        if let action { s += " " + action }
        if let correlationId { s += " " + correlationId }
        return s + ": " + message
    }
}
