import BridgeArchive
import BridgeJSON
import BridgeProtocol

/// One message of a recorded (or replayed) connection, with what replay needs to know
/// about it read once: its type, correlationId, action and status, as far as they can be
/// read. Messages that are not valid envelopes keep whatever could be read (an invalid
/// message is replayed byte for byte, never repaired).
public struct RecordedMessage: Sendable, Hashable {
    /// What kind of message it is, for pairing.
    public enum Kind: String, Sendable, Hashable {
        /// `type` is `request`.
        case request
        /// `type` is `response`.
        case response
        /// `type` is `event`.
        case event
        /// Not a JSON object with a known `type`.
        case other
    }

    /// The archive `seq` (0 when not from an archive).
    public var seq: Int
    /// When it was captured or received: nanoseconds (epoch for archives, any origin
    /// for a replay run; only differences are used).
    public var time: Int64
    /// Which way it travelled.
    public var direction: ArchiveDirection
    /// The message bytes, exactly as captured.
    public var bytes: [UInt8]
    /// Its kind.
    public var kind: Kind
    /// `correlationId`, when it is a non-empty string.
    public var correlationId: String?
    /// `payload.action`, when it is a string.
    public var action: String?
    /// `payload.status`, when it is a string.
    public var status: String?

    /// Reads the fields replay needs from `bytes`.
    public init(seq: Int = 0, time: Int64, direction: ArchiveDirection, bytes: [UInt8]) {
        self.seq = seq
        self.time = time
        self.direction = direction
        self.bytes = bytes
        kind = .other
        guard case .object(let o)? = try? JSONParser(limits: ReplayLimits.json).parse(bytes).value else { return }
        switch o["type"]?.stringValue {
        case "request"?: kind = .request
        case "response"?: kind = .response
        case "event"?: kind = .event
        default: kind = .other
        }
        if let c = o["correlationId"]?.stringValue, !c.isEmpty { correlationId = c }
        if let p = o["payload"]?.objectValue {
            action = p["action"]?.stringValue
            status = p["status"]?.stringValue
        }
    }

    /// The message of an archive record.
    public init(record: ArchiveRecord) {
        self.init(seq: record.seq, time: record.time, direction: record.direction, bytes: record.payload)
    }

    /// Whether this is a final response (a response whose status is not `acknowledged`).
    var isFinalResponse: Bool {
        kind == .response && status != Status.acknowledged.rawValue
    }

    /// `request camera.document.capture abc`, for messages.
    public var summary: String {
        var s = kind.rawValue
        if let action { s += " " + action }
        if let correlationId { s += " " + correlationId }
        return s
    }
}
