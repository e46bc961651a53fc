import BridgeJSON

/// What a file holds, judged by its first bytes, never by its name: every reader of
/// bridgescope sniffs its input and says what a wrong one is and which command reads it
/// (docs/FORMAT.md §12).
public struct InputKind: Sendable, Hashable, CustomStringConvertible {
    /// A stable name (`archive`, `pcap`, `tap-log`, ...).
    public let rawValue: String

    /// Wraps a name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A session archive: a zstd frame (or a skippable frame) first.
    public static let archive = InputKind(rawValue: "archive")
    /// A libpcap or pcapng packet capture.
    static let packetCapture = InputKind(rawValue: "pcap")
    /// A tap log (docs/FORMAT.md §9): JSON lines with `t` and `dir` or `event`.
    public static let tapLog = InputKind(rawValue: "tap-log")
    /// Bare envelopes: one JSON message per line, or one JSON text.
    public static let envelopes = InputKind(rawValue: "envelopes")
    /// An HTTP Archive (what `bridgescope export --har` writes).
    public static let har = InputKind(rawValue: "har")
    /// Nothing at all.
    public static let empty = InputKind(rawValue: "empty")
    /// None of the above.
    public static let unknown = InputKind(rawValue: "unknown")

    /// Bytes to read before judging: enough for the first line of a tap log of small
    /// messages; a longer first line is judged by its start.
    static let sniffBytes = 64 << 10

    /// How it is called in a sentence ("a packet capture").
    public var description: String {
        switch self {
        case .archive: "a session archive"
        case .packetCapture: "a packet capture (pcap or pcapng)"
        case .tapLog: "a tap log (JSON lines with t, dir and msg)"
        case .envelopes: "a file of bare envelopes (JSON messages without capture times or directions)"
        case .har: "an HTTP Archive (HAR)"
        case .empty: "empty"
        default: "not a format bridgescope reads"
        }
    }

    /// Judges `prefix`, the first bytes of a file (all of it when shorter than
    /// ``sniffBytes``).
    static func sniff(_ prefix: [UInt8]) -> InputKind {
        guard !prefix.isEmpty else { return .empty }
        if prefix.count >= 4 {
            let m = UInt32(prefix[0]) | UInt32(prefix[1]) << 8 | UInt32(prefix[2]) << 16 | UInt32(prefix[3]) << 24
            if m == 0xFD2F_B528 || m & 0xFFFF_FFF0 == 0x184D_2A50 { return .archive }
            if [0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1, 0x0A0D_0D0A].contains(m) { return .packetCapture }
        }
        // JSON: the first non-blank line, or the start of one JSON text.
        var start = 0
        while start < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[start]) { start += 1 }
        guard start < prefix.count else { return .empty }
        guard prefix[start] == UInt8(ascii: "{") else { return prefix[start] == UInt8(ascii: "[") ? .envelopes : .unknown }
        let end = prefix[start...].firstIndex(of: 0x0A) ?? prefix.count
        let line = Array(prefix[start..<end])
        guard let doc = try? JSONParser(limits: JSONLimits(maxInputBytes: sniffBytes, maxDepth: 128)).parse(line),
              case .object(let o) = doc.value else {
            // A first line cut by the sniff window or a JSON text over several lines:
            // judge by the members it starts with.
            return sniffByKeys(line)
        }
        return kind(of: o)
    }

    static func kind(of o: JSONObject) -> InputKind {
        if o["bridgescope"] != nil { return .tapLog }
        if o["log"] != nil && o.members.count == 1 { return .har }
        if o["t"] != nil && (o["dir"] != nil || o["event"] != nil) { return .tapLog }
        if o["correlationId"] != nil || o["payload"] != nil || o["version"] != nil || o["type"] != nil { return .envelopes }
        return .unknown
    }

    /// For a first line too long to parse here: the first top-level keys, read as text.
    static func sniffByKeys(_ line: [UInt8]) -> InputKind {
        let head = String(decoding: line.prefix(4096), as: UTF8.self)
        let compact = head.filter { !$0.isWhitespace }
        if compact.hasPrefix("{\"log\":") { return .har }
        if compact.hasPrefix("{\""), compact.contains("\"t\":"), compact.contains("\"dir\":") || compact.contains("\"event\":") {
            return .tapLog
        }
        if compact.contains("\"correlationId\"") || compact.contains("\"version\"") { return .envelopes }
        return .unknown
    }

    /// What to do with this kind when `command` wanted something else: the next step.
    public func advice(path: String) -> String {
        switch self {
        case .packetCapture: "make a session archive of it first: bridgescope record -o session.bsz --read \(path)"
        case .tapLog: "analyze reads tap logs directly (bridgescope analyze \(path)); to make an archive of it: bridgescope record -o session.bsz --tap \(path)"
        case .envelopes: "check its messages with: bridgescope validate \(path)"
        case .har: "bridgescope export writes HAR files; it reads session archives (.bsz)"
        case .archive: "print it with bridgescope cat \(path), analyze it with bridgescope analyze \(path)"
        case .empty: "the file is empty: was the recording stopped before anything was written?"
        default: "bridgescope reads session archives (.bsz), tap logs, packet captures and envelope files (docs/FORMAT.md)"
        }
    }
}
