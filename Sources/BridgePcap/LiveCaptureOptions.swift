import BridgeCapture

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
    var promiscuous: Bool
    /// libpcap immediate mode: every packet is delivered at once. Default false. On Linux
    /// it forces the TPACKET_V2 ring, one slot per packet sized for the interface's
    /// largest packet (64 KiB on `lo`), so a 32 MiB buffer holds only ~500 packets and a
    /// busy loopback drops at a few tens of thousands of packets per second; without it
    /// (TPACKET_V3) packets are packed into blocks and the same buffer holds ~100,000.
    public var immediate: Bool
    /// Without immediate mode: milliseconds after which the kernel hands over a block
    /// that is not full (`pcap_set_timeout`). Default 50: a recorder flushing every
    /// 250 ms does not need packets sooner, and stopping drains this long.
    var bufferTimeout: Int32

    /// Creates options; the defaults are documented per field.
    public init(interface: String, filter: String? = nil, snapshotLength: Int32 = 262_144,
                bufferSize: Int32 = 32 << 20, promiscuous: Bool = false, immediate: Bool = false,
                bufferTimeout: Int32 = 50) {
        self.interface = interface
        self.filter = filter
        self.snapshotLength = snapshotLength
        self.bufferSize = bufferSize
        self.promiscuous = promiscuous
        self.immediate = immediate
        self.bufferTimeout = bufferTimeout
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
    var interfaceDropped: Int
}
