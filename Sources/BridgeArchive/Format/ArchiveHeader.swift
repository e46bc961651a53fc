import BridgeJSON

/// The first line of an archive: what was recorded, where and when.
///
/// `{"bridgescope":"session","formatVersion":1,"source":...,"host":...,"filter":...,
/// "startTime":<ns>,"toolVersion":...}` (docs/FORMAT.md §3).
public struct ArchiveHeader: Sendable, Hashable {
    /// The format version of the archive as read (after migration, the version it was
    /// written in is kept here). The writer always writes
    /// ``BridgeArchiveFormat/currentVersion``.
    public var formatVersion: Int
    /// The capture source, `<kind>:<detail>` by convention: `tap:log.ndjson`, `tap:-`,
    /// `pcap:lo`, `pcap-file:x.pcapng`, `proxy:127.0.0.1:8788`.
    public var source: String
    /// The name of the machine that made the recording, when known.
    public var host: String?
    /// The capture filter (BPF) in force, when there is one.
    public var filter: String?
    /// When the recording started: nanoseconds since the Unix epoch (recorder's wall clock).
    public var startTime: Int64
    /// The version of the tool that wrote the archive.
    public var toolVersion: String
    /// Members this build does not know (written by a newer tool), kept in order.
    public var extra: [JSONObject.Member]

    /// Creates a header for a new archive (format version ``BridgeArchiveFormat/currentVersion``).
    public init(source: String, host: String? = nil, filter: String? = nil, startTime: Int64,
                toolVersion: String, extra: [JSONObject.Member] = []) {
        self.formatVersion = BridgeArchiveFormat.currentVersion
        self.source = source
        self.host = host
        self.filter = filter
        self.startTime = startTime
        self.toolVersion = toolVersion
        self.extra = extra
    }
}

/// The last line of a finished archive: counts a reader checks against what it read.
///
/// `{"bridgescope":"trailer","records":N,"events":N,"bytes":N,"drops":N,"gaps":N,
/// "gapBytes":N,"errors":N,"endTime":<ns>}`.
public struct ArchiveTrailer: Sendable, Hashable {
    /// Number of record lines.
    public var records: Int
    /// Number of event lines (every kind).
    public var events: Int
    /// Sum of the message sizes of all records, in bytes (decoded, not as stored).
    public var bytes: Int
    /// Sum of the `count` of all `drop` events (packets the capture layer lost).
    public var drops: Int
    /// Number of `gap` events.
    public var gaps: Int
    /// Sum of the `bytes` of all `gap` events.
    public var gapBytes: Int
    /// Number of `error` events.
    public var errors: Int
    /// When the recording ended: nanoseconds since the Unix epoch.
    public var endTime: Int64

    /// Creates a trailer.
    public init(records: Int = 0, events: Int = 0, bytes: Int = 0, drops: Int = 0, gaps: Int = 0,
                gapBytes: Int = 0, errors: Int = 0, endTime: Int64 = 0) {
        self.records = records
        self.events = events
        self.bytes = bytes
        self.drops = drops
        self.gaps = gaps
        self.gapBytes = gapBytes
        self.errors = errors
        self.endTime = endTime
    }

    /// Counts one event line: `events`, and `drops`, `gaps`/`gapBytes` or `errors` by kind.
    /// The writer, the reader and the analyzer all count this way, so their totals compare.
    public mutating func count(_ e: ArchiveEvent) {
        events += 1
        switch e.kind {
        case .drop: drops += e.count ?? 0
        case .gap:
            gaps += 1
            gapBytes += e.bytes ?? 0
        case .error: errors += 1
        default: break
        }
    }

    /// Counts everything but `endTime`, for comparing what was read with what was written.
    func sameCounts(as other: ArchiveTrailer) -> Bool {
        records == other.records && events == other.events && bytes == other.bytes
            && drops == other.drops && gaps == other.gaps && gapBytes == other.gapBytes
            && errors == other.errors
    }
}
