/// Every bound the capture decoder keeps, in one place. Defaults are documented per
/// field and in docs/CAPTURE.md; what exceeds a bound becomes a gap or an error event,
/// never unbounded memory.
public struct CaptureLimits: Sendable, Hashable {
    /// Largest WebSocket frame and message, compressed or inflated, in bytes. Default
    /// 16 MiB, the bridge's message cap (PROTOCOL.md §6).
    public var maxMessageBytes: Int
    /// Most bytes held while looking for a frame header after a gap or in a capture that
    /// began mid-connection. Default 4 MiB.
    var maxResyncBytes: Int
    /// Bytes of one direction examined without a handshake before the connection is
    /// judged not to be WebSocket (no frames confirmed). Default 1 MiB.
    public var maxProbationBytes: Int
    /// Most connections followed at once. Default 10,000; when full, the least recently
    /// active eighth is evicted (flushed, with a close event for WebSocket ones).
    public var maxConnections: Int
    /// Per-direction TCP reassembly bounds.
    public var reassembly: ReassemblyLimits

    /// Creates limits; every argument defaults to the documented default.
    public init(maxMessageBytes: Int = 16 << 20, maxResyncBytes: Int = 4 << 20, maxProbationBytes: Int = 1 << 20,
                maxConnections: Int = 10_000, reassembly: ReassemblyLimits = .default) {
        self.maxMessageBytes = maxMessageBytes
        self.maxResyncBytes = maxResyncBytes
        self.maxProbationBytes = maxProbationBytes
        self.maxConnections = maxConnections
        self.reassembly = reassembly
    }

    /// The documented defaults.
    public static let `default` = CaptureLimits()
}
