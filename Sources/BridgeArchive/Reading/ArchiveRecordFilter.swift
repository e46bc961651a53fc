import BridgeJSON

/// Selects records by direction, connection, envelope `type` and `payload.action`
/// (`bridgescope cat --dir/--conn/--type/--action`). Every condition set must hold.
/// `type` and `action` are read from the message when it parses as a JSON object;
/// a message that does not has neither, and fails those conditions.
public struct ArchiveRecordFilter: Sendable, Hashable {
    /// Only this direction.
    public var direction: ArchiveDirection?
    /// Only this connection id.
    public var connection: String?
    /// Only envelopes with this `type`.
    public var type: String?
    /// Only envelopes with this `payload.action`.
    public var action: String?

    /// Creates a filter; nil conditions are not checked.
    public init(direction: ArchiveDirection? = nil, connection: String? = nil, type: String? = nil, action: String? = nil) {
        self.direction = direction
        self.connection = connection
        self.type = type
        self.action = action
    }

    /// Whether no condition is set.
    public var isEmpty: Bool { direction == nil && connection == nil && type == nil && action == nil }

    /// Whether no record-only condition (direction, type, action) is set, so events
    /// are shown (filtered by connection when one is given).
    var showsEvents: Bool { direction == nil && type == nil && action == nil }

    /// Whether `record` passes.
    public func matches(_ record: ArchiveRecord) -> Bool {
        if let direction, record.direction != direction { return false }
        if let connection, record.connection != connection { return false }
        if type != nil || action != nil {
            let summary = EnvelopeSummary(record.payload)
            if let type, summary.type != type { return false }
            if let action, summary.action != action { return false }
        }
        return true
    }

    /// Whether `event` is shown.
    public func matches(_ event: ArchiveEvent) -> Bool {
        guard showsEvents else { return false }
        if let connection { return event.connection == connection }
        return true
    }
}

/// The few envelope fields a listing shows, read leniently from message bytes.
struct EnvelopeSummary: Sendable, Hashable {
    /// `type`, when a string.
    public var type: String?
    /// `payload.action`, when a string.
    public var action: String?
    /// `payload.status`, when a string.
    public var status: String?
    /// `correlationId`, when a string.
    public var correlationId: String?

    /// Reads the fields from `bytes` when they parse as a JSON object.
    public init(_ bytes: [UInt8]) {
        guard case .object(let o)? = try? JSONParser().parse(bytes).value else { return }
        type = o["type"]?.stringValue
        correlationId = o["correlationId"]?.stringValue
        let payload = o["payload"]?.objectValue
        action = payload?["action"]?.stringValue
        status = payload?["status"]?.stringValue
    }
}
