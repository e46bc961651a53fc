/// Counters of one decoding run, for progress lines, trailers and reports.
public struct CaptureStatistics: Sendable, Hashable {
    /// Packets fed to the decoder.
    public var packets = 0
    /// Bytes of packets fed (as captured).
    var packetBytes = 0
    /// TCP segments followed.
    var tcpSegments = 0
    /// Packets set aside, by reason.
    public var skipped: [PacketSkip: Int] = [:]
    /// Malformed or truncated packets.
    public var malformed = 0
    /// WebSocket connections recognised.
    public var connections = 0
    /// Connections evicted from a full flow table.
    public var evictions = 0
    /// Data messages produced.
    public var messages = 0
    /// Bytes of data messages produced (after inflation).
    public var messageBytes = 0
    /// Gap events and the bytes they cover.
    public var gaps = 0
    /// Bytes covered by gaps.
    public var gapBytes = 0
    /// Error events.
    public var errors = 0
    /// Packets the capture layer reported dropped.
    public var drops = 0

    /// Creates zeroed counters.
    public init() {}

    /// Packets skipped for any reason.
    var skippedTotal: Int { skipped.values.reduce(0, +) }
}
