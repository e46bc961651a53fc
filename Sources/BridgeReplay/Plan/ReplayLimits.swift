import BridgeJSON

/// The limits replay keeps, so a hostile or huge archive costs at most what they allow.
public enum ReplayLimits {
    /// JSON limits for reading recorded and replayed messages: the protocol's (16 MiB per
    /// message, depth 64; PROTOCOL.md §6). A message over them is replayed as bytes and
    /// compared as bytes.
    public static let json = JSONLimits.default
    /// Most connections replayed from one archive: 10,000. Later connections are skipped
    /// and reported.
    public static let maxConnections = 10_000
    /// Most messages kept from one archive: 10,000,000 (records after that are skipped
    /// and reported).
    public static let maxMessages = 10_000_000
    /// Most `data-differs` divergences reported for one pair of messages: 20 (the rest
    /// are counted in the last one's detail).
    public static let maxDifferencesPerMessage = 20
    /// Most unmatched requests listed by `--as-host` playback: 1,000 (the rest counted).
    static let maxUnmatchedListed = 1_000
    /// Bytes of an image decoded to find its header: the first 256 KiB (a JPEG's frame
    /// header may follow large metadata segments). The rest is only checked to be valid
    /// base64, and its last bytes for the end marker.
    static let imageProbeBytes = 256 << 10
}
