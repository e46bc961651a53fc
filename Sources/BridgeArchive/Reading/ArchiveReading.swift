/// A record as the reader found it, its message bytes a slice of the archive line
/// (no copy): what ``ArchiveInterpreter`` hands out, and what an ``ArchiveRecord`` is
/// made from.
public struct ArchiveRecordView: Sendable, Hashable {
    /// `seq`.
    public var seq: Int
    /// `t`, nanoseconds since the Unix epoch.
    public var time: Int64
    /// `dir`.
    public var direction: ArchiveDirection
    /// `conn`.
    public var connection: String
    /// The message bytes exactly as recorded.
    public var payload: ArraySlice<UInt8>
    /// How the line stored them.
    public var encoding: ArchivePayloadEncoding

    /// The record with its own copy of the bytes.
    public var record: ArchiveRecord {
        ArchiveRecord(seq: seq, time: time, direction: direction, connection: connection, payload: Array(payload), encoding: encoding)
    }
}

/// One thing read from an archive by ``ArchiveInterpreter``, with the line it came from
/// (nil for findings about the compressed bytes or the archive as a whole).
public enum ArchiveReading: Sendable {
    /// A message.
    case record(ArchiveRecordView, ArchiveLine)
    /// A capture event.
    case event(ArchiveEvent, ArchiveLine)
    /// The trailer.
    case trailer(ArchiveTrailer, ArchiveLine)
    /// A problem with the archive itself (damage, truncation, a bad line).
    case finding(ArchiveFinding, ArchiveLine?)

    /// The reading as an ``ArchiveItem`` (a record's bytes copied).
    public var item: ArchiveItem {
        switch self {
        case .record(let r, _): .record(r.record)
        case .event(let e, _): .event(e)
        case .trailer(let t, _): .trailer(t)
        case .finding(let f, _): .finding(f)
        }
    }

    /// The archive line, when there is one.
    public var line: ArchiveLine? {
        switch self {
        case .record(_, let l), .event(_, let l), .trailer(_, let l): l
        case .finding(_, let l): l
        }
    }
}
