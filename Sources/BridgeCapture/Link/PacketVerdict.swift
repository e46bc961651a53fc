/// Why a packet was set aside without being an error: it is fine, just not TCP over IP
/// that this decoder follows. An open set of reasons, counted in ``CaptureStatistics``.
public struct PacketSkip: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// A short phrase.
    public let rawValue: String
    /// Wraps a phrase.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The phrase.
    public var description: String { rawValue }

    /// The link type is not one ``LinkLayer`` decodes.
    public static let unsupportedLinkType = PacketSkip(rawValue: "unsupported link type")
    /// The link layer carries something other than IPv4 or IPv6 (ARP, STP, ...).
    public static let notIP = PacketSkip(rawValue: "not IP")
    /// IP carries something other than TCP.
    public static let notTCP = PacketSkip(rawValue: "not TCP")
    /// An IPv4 or IPv6 fragment other than the first: no TCP header to follow (the
    /// stream sees the missing bytes as a gap).
    public static let nonFirstFragment = PacketSkip(rawValue: "non-first IP fragment")
    /// IPv6 with ESP or another header that hides what follows.
    public static let opaqueIPv6 = PacketSkip(rawValue: "IPv6 payload hidden (ESP or no next header)")
}

/// A packet that broke its own rules: a length larger than what was captured, a header
/// field out of range. Counted and reported; decoding goes on with the next packet.
public struct PacketProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The layer that was being read: `Ethernet`, `IPv4`, `TCP`, ...
    public var layer: String
    /// Byte offset in the packet where the problem is.
    public var offset: Int
    /// What was wrong.
    public var reason: String

    /// Creates a problem.
    public init(layer: String, offset: Int, reason: String) {
        self.layer = layer
        self.offset = offset
        self.reason = reason
    }

    /// `IPv4 at byte 14: header length 24 exceeds the 20 bytes captured`.
    public var description: String { "\(layer) at byte \(offset): \(reason)" }
}

/// What ``PacketDecoder`` made of one packet.
public enum DecodedPacket: Sendable, Hashable {
    /// A TCP segment to follow.
    case tcp(TCPSegment)
    /// A valid packet this decoder does not follow.
    case skipped(PacketSkip)
    /// A malformed or truncated packet.
    case malformed(PacketProblem)
}
