/// A WebSocket close status code (RFC 6455 §7.4). An open set: codes read from the
/// wire that are not listed here are kept as is.
public struct CloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The numeric code.
    public let rawValue: UInt16
    /// Wraps a numeric code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// `1009 (message too big)` style.
    public var description: String {
        switch self {
        case .normal: return "1000 (normal)"
        case .goingAway: return "1001 (going away)"
        case .protocolError: return "1002 (protocol error)"
        case .unacceptableData: return "1003 (unacceptable data)"
        case .invalidPayload: return "1007 (invalid payload)"
        case .policyViolation: return "1008 (policy violation)"
        case .messageTooBig: return "1009 (message too big)"
        case .internalError: return "1011 (internal error)"
        case .tryAgainLater: return "1013 (try again later)"
        case .badGateway: return "1014 (bad gateway)"
        default: return "\(rawValue)"
        }
    }

    /// 1000: normal closure.
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: the server is shutting down or the page navigated away.
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: a framing or extension protocol error.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1003: a binary frame where only text is accepted.
    public static let unacceptableData = CloseCode(rawValue: 1003)
    /// 1007: a text message that is not valid UTF-8, or undecompressible data.
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: a policy was violated (for example an idle or slow-reader timeout).
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message larger than the configured limit.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = CloseCode(rawValue: 1011)
    /// 1013: try again later (RFC 6455 registry): the server's memory budget is spent.
    public static let tryAgainLater = CloseCode(rawValue: 1013)
    /// 1014: bad gateway (RFC 6455 registry): a proxy's upstream failed.
    public static let badGateway = CloseCode(rawValue: 1014)

    /// Whether a peer may send this code in a close frame (RFC 6455 §7.4): 1000–1003,
    /// 1007–1014 and 3000–4999. 1004–1006 and 1015 are reserved for local use, and codes
    /// under 1000 or from 5000 are never valid; such a close is answered 1002.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
