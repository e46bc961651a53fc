import BridgeArchive
import BridgeProtocol
import Logging

/// A session archive (`*.bsz`, docs/FORMAT.md) as ``AnalysisEvent``s.
///
/// - A record becomes a `.message` whose `record` (and `seq`) is the archive `seq`
///   (`bridgescope cat` shows it; the decompressed line number is `seq + 1`), with the
///   message bytes exactly as stored (`msg` sliced from the line, `text` and `b64`
///   decoded).
/// - An event line becomes a capture event: `open`, `close`, `gap` (`bytes`), `drop`
///   (`count`), `error` (`reason`, and the tap line when there is one); a kind this
///   build does not know becomes `.other`.
/// - Damage and inconsistencies (a truncated or corrupt frame, a dropped partial line,
///   an invalid line, a trailer that does not match, ...) become a capture `error`
///   event (rule `capture-error`), or `.lost` (`capture-gap`) for a `sequence-gap`; the
///   message names the byte offset in the compressed file, the decompressed line and
///   the last intact `seq`, and the record number is the `seq` the damaged line would
///   have had. The analysis goes on with whatever can be read after it. No
///   `missing-trailer` is reported after truncation or corruption.
/// - A record whose `dir` is neither `w2h` nor `h2w` becomes a capture `error` (as in
///   a tap log).
///
/// Read through BridgeArchive's one reader (``ArchiveReader``, whose
/// ``ArchiveInterpreter`` reads each record line once and hands out the message as a
/// slice of its line). The archive is opened once, so a FIFO or standard input works.
/// ``BatchAnalyzer`` can run the decompression and the interpretation on two tasks.
/// Memory: the line being read and the zstd window.
public struct ArchiveEventSource: AnalysisEventSource {
    /// The archive's header.
    public let header: ArchiveHeader
    let reader: ArchiveReader
    var mapper = ArchiveEventMapper()
    private var pending: [AnalysisEvent] = []
    private var index = 0

    /// Opens the archive at `path` and reads its header. Throws ``AnalysisError``
    /// `unreadable-input` when the file cannot be opened, is not a zstd stream, has no
    /// valid header line, or has a format version this build does not read.
    public init(path: String, logger: Logger = Logger(label: "bridgescope.analysis")) throws(AnalysisError) {
        let file: FileByteSource
        do {
            file = try FileByteSource(path: path)
        } catch {
            throw AnalysisError(.unreadableInput, "\(path): \(error.message) [\(error.code)]")
        }
        try self.init(source: file, logger: logger)
    }

    /// Reads an archive from a byte source (standard input, a FIFO, a judged file).
    /// Throws as ``init(path:logger:)``.
    public init(source: any ArchiveByteSource, logger: Logger = Logger(label: "bridgescope.analysis")) throws(AnalysisError) {
        do {
            reader = try ArchiveReader(source: source, logger: logger)
        } catch {
            throw AnalysisError(.unreadableInput, "\(source.name): \(error.message) [\(error.code)]")
        }
        header = reader.header
        mapper.lastTime = header.startTime
    }

    /// Reads an archive held in memory (tests, fuzzing). Throws as ``init(path:logger:)``.
    public init(bytes: [UInt8], name: String = "<memory>") throws(AnalysisError) {
        do {
            reader = try ArchiveReader(source: MemoryByteSource(bytes, name: name))
        } catch {
            throw AnalysisError(.unreadableInput, "\(name): \(error.message) [\(error.code)]")
        }
        header = reader.header
        mapper.lastTime = header.startTime
    }

    /// The next record.
    public mutating func next() throws(AnalysisError) -> AnalysisEvent? {
        while index == pending.count {
            pending.removeAll(keepingCapacity: true)
            index = 0
            guard let reading = reader.nextReading() else { return nil }
            mapper.map(reading, into: &pending)
        }
        index += 1
        return pending[index - 1]
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
