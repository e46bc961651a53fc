import BridgeCapture

/// Where packets come from.
public enum CaptureSource: Sendable, Hashable, CustomStringConvertible {
    /// A pcap or pcapng file.
    case file(String)
    /// A live interface.
    case live(LiveCaptureOptions)

    /// `file capture.pcap` or `interface lo (tcp port 8787)`.
    public var description: String {
        switch self {
        case .file(let path): return "file \(path)"
        case .live(let o): return "interface \(o.interface)" + (o.filter.map { " (\($0))" } ?? "")
        }
    }
}

/// How a recording runs and when it stops.
public struct CaptureRunOptions: Sendable, Hashable {
    /// Redact image and biometric fields (``Redactor``). Default false.
    public var redact: Bool
    /// Stop after this many messages (`--count`); nil for no limit.
    public var maxMessages: Int?
    /// Stop a live capture after this many seconds (`--duration`); nil for no limit.
    /// Ignored for files, which are read to their end.
    public var duration: Double?
    /// Decoder limits.
    public var limits: CaptureLimits

    /// Creates options; by default no redaction, no stop condition, default limits.
    public init(redact: Bool = false, maxMessages: Int? = nil, duration: Double? = nil, limits: CaptureLimits = .default) {
        self.redact = redact
        self.maxMessages = maxMessages
        self.duration = duration
        self.limits = limits
    }
}

/// What a recording did.
public struct CaptureSummary: Sendable, Hashable {
    /// The decoder's counters (drops included).
    public var statistics: CaptureStatistics
    /// Fields replaced by redaction.
    public var redactedFields = 0
    /// Why it stopped: `end of file`, `count reached`, `duration reached`, `stopped`.
    public var stopReason = ""
    /// The capture's link type.
    public var linkType = LinkType.ethernet
    /// Wall-clock time the recording took, in nanoseconds.
    public var elapsed: Int64 = 0
}
