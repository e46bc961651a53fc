import BridgeJSON

/// One bridge message (PROTOCOL.md §1).
///
/// Build envelopes with ``request(correlationId:action:data:timestamp:)``,
/// ``response(to:status:data:error:timestamp:)`` and ``event(correlationId:action:data:timestamp:)``;
/// ``EnvelopeEncoder`` refuses any envelope that would not decode with zero findings.
public struct Envelope: Sendable, Hashable {
    /// The protocol version this library speaks.
    public static let protocolVersion = "1.0"

    /// `version`, normally ``protocolVersion``.
    public var version: String
    /// `correlationId`: non-empty; a response repeats its request's id.
    public var correlationId: String
    /// `type`.
    public var type: MessageType
    /// `timestamp`: Unix epoch milliseconds.
    public var timestamp: Int64
    /// `payload`.
    public var payload: Payload

    /// Creates an envelope from its parts.
    public init(version: String = Envelope.protocolVersion, correlationId: String, type: MessageType,
                timestamp: Int64, payload: Payload) {
        self.version = version
        self.correlationId = correlationId
        self.type = type
        self.timestamp = timestamp
        self.payload = payload
    }

    /// `payload` (PROTOCOL.md §1).
    public struct Payload: Sendable, Hashable {
        /// `action`: required in every type.
        public var action: Action
        /// `data`: optional object.
        public var data: JSONObject?
        /// `status`: responses only, required there.
        public var status: Status?
        /// `error`: responses only; required for `error`/`unsupported`, forbidden with `success`.
        public var error: ErrorPayload?

        /// Creates a payload.
        public init(action: Action, data: JSONObject? = nil, status: Status? = nil, error: ErrorPayload? = nil) {
            self.action = action
            self.data = data
            self.status = status
            self.error = error
        }
    }

    /// A request (web → host).
    public static func request(correlationId: String, action: Action, data: JSONObject? = nil,
                               timestamp: Int64) -> Envelope {
        Envelope(correlationId: correlationId, type: .request, timestamp: timestamp,
                 payload: Payload(action: action, data: data))
    }

    /// The response to `request`: same correlationId and action.
    public static func response(to request: Envelope, status: Status, data: JSONObject? = nil,
                                error: ErrorPayload? = nil, timestamp: Int64) -> Envelope {
        response(correlationId: request.correlationId, action: request.payload.action, status: status,
                 data: data, error: error, timestamp: timestamp)
    }

    /// A response with an explicit correlationId and action.
    public static func response(correlationId: String, action: Action, status: Status, data: JSONObject? = nil,
                                error: ErrorPayload? = nil, timestamp: Int64) -> Envelope {
        Envelope(correlationId: correlationId, type: .response, timestamp: timestamp,
                 payload: Payload(action: action, data: data, status: status, error: error))
    }

    /// An event (either direction).
    public static func event(correlationId: String, action: Action, data: JSONObject? = nil,
                             timestamp: Int64) -> Envelope {
        Envelope(correlationId: correlationId, type: .event, timestamp: timestamp,
                 payload: Payload(action: action, data: data))
    }

    /// The envelope as a JSON value, members in the order PROTOCOL.md §1 lists them.
    public var jsonValue: JSONValue {
        var payloadObject = JSONObject([JSONObject.Member(key: "action", value: .string(payload.action.rawValue))])
        if let data = payload.data { payloadObject.members.append(.init(key: "data", value: .object(data))) }
        if let status = payload.status { payloadObject.members.append(.init(key: "status", value: .string(status.rawValue))) }
        if let e = payload.error {
            payloadObject.members.append(.init(key: "error", value: [
                "code": .string(e.code.rawValue), "message": .string(e.message), "recoverable": .bool(e.recoverable),
            ]))
        }
        return .object(JSONObject([
            .init(key: "version", value: .string(version)),
            .init(key: "correlationId", value: .string(correlationId)),
            .init(key: "type", value: .string(type.rawValue)),
            .init(key: "timestamp", value: .integer(timestamp)),
            .init(key: "payload", value: .object(payloadObject)),
        ]))
    }
}

/// What could be read of a message even when it is not a valid envelope: enough for the
/// host's `INVALID_REQUEST` rule (PROTOCOL.md §4) and for the analyzer's pairing.
public struct PartialEnvelope: Sendable, Hashable {
    /// `correlationId` when it is a string.
    public var correlationId: String?
    /// `type` when it is a string.
    public var type: MessageType?
    /// `payload.action` when it is a string.
    public var action: String?
    /// `payload.status` when it is a string.
    public var status: Status?
    /// `timestamp` when it is an integer that fits in Int64.
    public var timestamp: Int64?

    /// An empty partial envelope (nothing could be read).
    public init() {}
}
