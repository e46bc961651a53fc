/// How to open a live capture.
public struct LiveCaptureOptions: Sendable, Hashable {
    /// The interface (`lo`, `eth0`, `any`).
    public var interface: String
    /// A BPF filter (`tcp port 8787`), nil for everything.
    public var filter: String?
    /// Bytes kept per packet. Default 262,144 (libpcap's own default: whole packets).
    public var snapshotLength: Int32
    /// The kernel buffer, in bytes. Default 32 MiB: room for ~0.3 s of 100 MB/s traffic
    /// while the decoder catches up.
    public var bufferSize: Int32
    /// Capture packets not addressed to this host. Default false.
    public var promiscuous: Bool

    /// Creates options; the defaults are documented per field.
    public init(interface: String, filter: String? = nil, snapshotLength: Int32 = 262_144,
                bufferSize: Int32 = 32 << 20, promiscuous: Bool = false) {
        self.interface = interface
        self.filter = filter
        self.snapshotLength = snapshotLength
        self.bufferSize = bufferSize
        self.promiscuous = promiscuous
    }

    /// The filter for one TCP port: `tcp port N`.
    public static func portFilter(_ port: Int) -> String { "tcp port \(port)" }
}

/// Counters libpcap keeps for a live capture (`pcap_stats`).
public struct LiveCaptureCounters: Sendable, Hashable {
    /// Packets received by the filter.
    public var received: Int
    /// Packets dropped because the buffer was full.
    public var dropped: Int
    /// Packets dropped by the interface or its driver (not supported everywhere).
    public var interfaceDropped: Int
}
