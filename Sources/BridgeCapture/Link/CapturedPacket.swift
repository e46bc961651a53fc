/// One packet handed out by a capture driver. `bytes` is valid only while the closure it
/// was passed to runs (it points into libpcap's buffer).
public struct CapturedPacket {
    /// Capture time: nanoseconds since the Unix epoch.
    public var time: Int64
    /// The link type of the capture.
    public var linkType: LinkType
    /// The bytes captured (at most the snapshot length).
    public var bytes: UnsafeRawBufferPointer
    /// The packet's length on the wire (larger than `bytes.count` when cut by snaplen).
    public var originalLength: Int
    /// 1-based packet number in the capture.
    public var number: Int

    /// Creates a packet.
    public init(time: Int64, linkType: LinkType, bytes: UnsafeRawBufferPointer, originalLength: Int, number: Int) {
        self.time = time
        self.linkType = linkType
        self.bytes = bytes
        self.originalLength = originalLength
        self.number = number
    }
}
