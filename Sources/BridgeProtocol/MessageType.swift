/// The `type` of an envelope. An open set: a value read from the wire that is not one
/// of the known members is kept as is and reported (`unknown-type`).
public struct MessageType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The wire spelling.
    public let rawValue: String
    /// Wraps a wire spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The wire spelling.
    public var description: String { rawValue }

    /// Web → host: asks the host to perform an action; exactly one final response follows.
    public static let request = MessageType(rawValue: "request")
    /// Host → web: the answer to a request, with the request's correlationId.
    public static let response = MessageType(rawValue: "response")
    /// Either direction: a notification with no response.
    public static let event = MessageType(rawValue: "event")

    /// The three types PROTOCOL.md §1 defines.
    public static let known: [MessageType] = [.request, .response, .event]
    /// Whether this is one of ``known``.
    public var isKnown: Bool { Self.known.contains(self) }
}

/// Which way a message travelled.
public struct Direction: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The archive spelling: `w2h` or `h2w`.
    public let rawValue: String
    /// Wraps an archive spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The archive spelling.
    public var description: String { rawValue }

    /// From the web journey to the native host.
    public static let webToHost = Direction(rawValue: "w2h")
    /// From the native host to the web journey.
    public static let hostToWeb = Direction(rawValue: "h2w")

    /// The other direction (unknown values map to themselves).
    public var reversed: Direction {
        switch self {
        case .webToHost: return .hostToWeb
        case .hostToWeb: return .webToHost
        default: return self
        }
    }
}

/// The `payload.status` of a response. An open set: unknown values are kept and
/// reported (`invalid-status`).
public struct Status: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The wire spelling.
    public let rawValue: String
    /// Wraps a wire spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The wire spelling.
    public var description: String { rawValue }

    /// The request completed; results are in `data`.
    public static let success = Status(rawValue: "success")
    /// The request failed; details are in `error`.
    public static let error = Status(rawValue: "error")
    /// The user cancelled (for example dismissed the camera).
    public static let cancelled = Status(rawValue: "cancelled")
    /// The capability is not available on this host; details are in `error`.
    public static let unsupported = Status(rawValue: "unsupported")
    /// Received and still working: not final; one final response may follow.
    public static let acknowledged = Status(rawValue: "acknowledged")

    /// The five statuses PROTOCOL.md §1 defines.
    public static let known: [Status] = [.success, .error, .cancelled, .unsupported, .acknowledged]
    /// Whether this is one of ``known``.
    public var isKnown: Bool { Self.known.contains(self) }
    /// Whether this status ends the request (everything but `acknowledged`).
    var isFinal: Bool { self != .acknowledged }
    /// Whether PROTOCOL.md requires an `error` object with this status.
    var requiresError: Bool { self == .error || self == .unsupported }
}
