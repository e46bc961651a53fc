/// The TCP control bits (RFC 9293 §3.1).
public struct TCPFlags: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Wraps raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// FIN: no more data from the sender.
    public static let fin = TCPFlags(rawValue: 0x01)
    /// SYN: synchronize sequence numbers.
    public static let syn = TCPFlags(rawValue: 0x02)
    /// RST: reset the connection.
    public static let rst = TCPFlags(rawValue: 0x04)
    /// PSH.
    public static let psh = TCPFlags(rawValue: 0x08)
    /// ACK: the acknowledgment field is significant.
    public static let ack = TCPFlags(rawValue: 0x10)
    /// URG.
    static let urg = TCPFlags(rawValue: 0x20)
}

/// One TCP segment found in a packet. The payload is not copied: it is the range
/// `payloadOffset ..< payloadOffset + payloadCount` of the packet's bytes.
public struct TCPSegment: Sendable, Hashable {
    /// Sender.
    public var source: Endpoint
    /// Receiver.
    public var destination: Endpoint
    /// Sequence number of the first payload byte (of the SYN when SYN is set).
    public var sequence: UInt32
    /// Acknowledgment number (meaningful when `flags` has `.ack`).
    public var acknowledgment: UInt32
    /// Control bits.
    public var flags: TCPFlags
    /// Offset of the payload in the packet bytes.
    public var payloadOffset: Int
    /// Payload bytes present in the capture.
    public var payloadCount: Int
    /// Payload bytes the IP length announces beyond those captured (snapshot length
    /// cut the packet): the stream records them as a gap.
    public var missingPayload: Int

    /// Creates a segment.
    public init(source: Endpoint, destination: Endpoint, sequence: UInt32, acknowledgment: UInt32,
                flags: TCPFlags, payloadOffset: Int, payloadCount: Int, missingPayload: Int = 0) {
        self.source = source
        self.destination = destination
        self.sequence = sequence
        self.acknowledgment = acknowledgment
        self.flags = flags
        self.payloadOffset = payloadOffset
        self.payloadCount = payloadCount
        self.missingPayload = missingPayload
    }
}
