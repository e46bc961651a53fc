/// What the crossing analysis of two-sided recordings keeps (docs/ANALYZER.md, "Memory
/// and limits"). A message waits, with its bytes, until its twin from the other side of
/// the bridge arrives; past a limit a connection's crossing analysis stops (nothing more
/// of it is paired, nothing left waiting is judged) and a `bridge-crossing-incomplete`
/// finding says where, instead of reporting false findings.
public struct CrossingLimits: Sendable, Hashable {
    /// Messages waiting for their twin per two-sided connection (both sides, both
    /// directions). Default 4,096.
    public var maxWaitingPerConnection: Int
    /// Bytes of those messages per two-sided connection. Default 64 MiB.
    public var maxWaitingBytesPerConnection: Int
    /// Bytes of waiting messages over the whole session. Default 256 MiB.
    public var maxWaitingBytes: Int
    /// Two-sided connections compared; further ones are not (one finding says so).
    /// Default 10,000, as many as the analyzer tracks connections.
    public var maxConnections: Int

    /// The documented defaults.
    public init(maxWaitingPerConnection: Int = 4_096, maxWaitingBytesPerConnection: Int = 64 << 20,
                maxWaitingBytes: Int = 256 << 20, maxConnections: Int = 10_000) {
        self.maxWaitingPerConnection = maxWaitingPerConnection
        self.maxWaitingBytesPerConnection = maxWaitingBytesPerConnection
        self.maxWaitingBytes = maxWaitingBytes
        self.maxConnections = maxConnections
    }
}
