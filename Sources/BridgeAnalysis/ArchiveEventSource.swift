import BridgeArchive
import BridgeProtocol
import Logging

/// A session archive (`*.bsz`, docs/FORMAT.md) read with BridgeArchive's
/// ``ArchiveReader`` and turned into ``AnalysisEvent``s.
///
/// - A record becomes a `.message` whose `record` (and `seq`) is the archive `seq`
///   (`bridgescope cat` shows it; the decompressed line number is `seq + 1`), with the
///   message bytes exactly as stored (`msg` sliced, `text` and `b64` decoded).
/// - An event line becomes a capture event: `open`, `close`, `gap` (`bytes`), `drop`
///   (`count`), `error` (`reason`, and the tap line when there is one); a kind this
///   build does not know becomes `.other`.
/// - A reader finding (truncated or corrupt data, a dropped partial line, an invalid
///   line, a trailer that does not match, ...) becomes a capture `error` event (rule
///   `capture-error`), or `.lost` (`capture-gap`) for a `sequence-gap`; its message
///   names the byte offset in the compressed file, the decompressed line and the last
///   intact `seq`. Its record number is the `seq` the damaged line would have had. The
///   analysis goes on with whatever the reader recovers after it.
/// - A record whose `dir` is neither `w2h` nor `h2w` becomes a capture `error` (as in
///   a tap log).
///
/// Only opening can fail (not a zstd stream, no valid header, an unsupported format
/// version): ``init(path:logger:)`` throws ``AnalysisError`` `unreadable-input` then.
/// Memory: one decompressed line at a time (``ArchiveReader``).
public struct ArchiveEventSource: AnalysisEventSource {
    private let reader: ArchiveReader
    private var lastTime: Int64
    private var damaged = false

    /// Opens the archive at `path` and reads its header.
    public init(path: String, logger: Logger = Logger(label: "bridgescope.analysis")) throws(AnalysisError) {
        do {
            reader = try ArchiveReader(path: path, logger: logger)
        } catch {
            throw AnalysisError(.unreadableInput, "\(path): \(error.message) [\(error.code)]")
        }
        lastTime = reader.header.startTime
    }

    /// Reads from an opened reader (tests, archives in memory).
    public init(reader: ArchiveReader) {
        self.reader = reader
        lastTime = reader.header.startTime
    }

    /// The archive's header.
    public var header: ArchiveHeader { reader.header }

    /// The next record.
    public mutating func next() throws(AnalysisError) -> AnalysisEvent? {
        while let item = reader.next() {
            if let event = map(item) { return event }
        }
        return nil
    }

    private mutating func map(_ item: ArchiveItem) -> AnalysisEvent? {
        switch item {
        case .record(let r):
            lastTime = r.time
            guard r.direction.isKnown else {
                return .captureEvent(seq: r.seq, time: r.time, connection: r.connection,
                                     kind: .error("record \(r.seq): \"dir\" is \"\(r.direction.rawValue.prefix(20))\", not w2h or h2w; not analysed"),
                                     record: r.seq)
            }
            return .message(seq: r.seq, time: r.time, direction: Direction(rawValue: r.direction.rawValue),
                            connection: r.connection, bytes: r.payload[...], record: r.seq)
        case .event(let e):
            lastTime = e.time
            return .captureEvent(seq: e.seq, time: e.time, connection: e.connection, kind: Self.kind(of: e), record: e.seq)
        case .trailer:
            return nil
        case .finding(let f):
            // After truncation or corruption, "no trailer" says nothing new.
            if f.kind == .missingTrailer && damaged { return nil }
            if [.truncatedFrame, .corruptData, .checksumMismatch].contains(f.kind) { damaged = true }
            let record = f.line.map { Swift.max(1, $0 - 1) } ?? f.lastSequence + 1
            let text = "archive \(f.kind) at compressed byte \(f.compressedOffset)"
                + (f.line.map { ", line \($0)" } ?? "") + ", after seq \(f.lastSequence): \(f.message)"
            return .captureEvent(seq: record, time: lastTime, connection: nil,
                                 kind: f.kind == .sequenceGap ? .lost(text) : .error(text), record: record)
        }
    }

    static func kind(of e: ArchiveEvent) -> CaptureEventKind {
        switch e.kind {
        case .open: return .open
        case .close: return .close
        case .gap: return .gap(bytes: Int64(e.bytes ?? 0))
        case .drop: return .drop(count: Int64(e.count ?? 0))
        case .error:
            let reason = e.reason ?? "the recorder reported an error"
            if let line = e.line { return .error("tap line \(line): \(reason)") }
            if let bytes = e.bytes { return .error("\(reason) (\(bytes) bytes)") }
            return .error(reason)
        default: return .other(e.kind.rawValue)
        }
    }
}
