import BridgeJSON

/// The one interpretation of an archive's decompressed lines (docs/FORMAT.md §7): turns
/// ``ArchiveLineReader`` items into ``ArchiveReading``s with every check of the format:
/// `invalid-line`, `sequence-gap`, `unexpected-line`, `count-mismatch`,
/// `missing-trailer`. ``ArchiveReader`` reads through it, and so do the analyzer, `cat`,
/// `export`, replay and the fuzzer.
///
/// A record line stored as `msg` in the current format version is read once:
/// ``RecordLineScanner`` finds the members, the small ones (`seq`, `t`, `dir`, `conn`)
/// are parsed on their own, and the message is a slice of the line, never re-encoded or
/// copied. Every other line, and any record line the scanner does not recognise, goes to
/// ``ArchiveLineDecoder``, which says exactly what is wrong. (A `msg` value that is not
/// valid JSON passes the fast path: the bytes are returned as stored, and a consumer that
/// parses them says what is wrong with the message.)
///
/// A value type with no I/O, so reading and interpreting can run on two tasks.
public struct ArchiveInterpreter: Sendable {
    /// The archive's header (line 1, read and checked when the archive was opened).
    public let header: ArchiveHeader
    /// The trailer, once read.
    public private(set) var trailer: ArchiveTrailer?
    /// Every finding so far, in order.
    public private(set) var findings: [ArchiveFinding] = []
    /// What was read so far, counted like a trailer (`endTime` unused).
    public private(set) var counts = ArchiveTrailer()
    /// The `seq` of the last record or event read intact.
    public internal(set) var lastSequence = 0
    /// Whether a truncated, corrupt or checksum-failing frame was met.
    public private(set) var damaged = false
    /// The time of the last record or event read (the header's start time before any).
    public private(set) var lastTime: Int64

    private let decoder = ArchiveLineDecoder()
    let fastRecords: Bool

    /// Creates the interpreter of an archive whose header was read.
    public init(header: ArchiveHeader) {
        self.header = header
        self.lastTime = header.startTime
        // The fast path knows the members of the current version only.
        self.fastRecords = header.formatVersion == BridgeArchiveFormat.currentVersion
    }

    /// Interprets one item of the line reader, appending what it held (0 to 2 readings).
    public mutating func take(_ item: ArchiveLineReader.Item, into out: inout [ArchiveReading]) {
        switch item {
        case .finding(var f):
            f.lastSequence = lastSequence
            if [.truncatedFrame, .corruptData, .checksumMismatch].contains(f.kind) { damaged = true }
            findings.append(f)
            out.append(.finding(f, nil))
        case .line(let line):
            if line.number == 1 { return }  // the header, checked when the archive was opened
            if fastRecords, let record = plainRecord(line) ?? fastRecord(line) {
                if trailer != nil { report(.unexpectedLine, line, "line \(line.number) follows the trailer", into: &out) }
                sequence(record.seq, line, into: &out)
                countRecord(time: record.time, bytes: record.payload.count)
                out.append(.record(record, line))
                return
            }
            slow(line, into: &out)
        }
    }

    /// The end of the stream: `missing-trailer` when no trailer was read.
    public mutating func finish(compressedOffset: Int, into out: inout [ArchiveReading]) {
        guard trailer == nil else { return }
        let f = ArchiveFinding(kind: .missingTrailer, compressedOffset: compressedOffset, line: nil, lastSequence: lastSequence,
                               message: "the archive has no trailer: the recording was not finished or its end was lost (last seq \(lastSequence))")
        findings.append(f)
        out.append(.finding(f, nil))
    }

    /// Any line through the full line decoder.
    private mutating func slow(_ line: ArchiveLine, into out: inout [ArchiveReading]) {
        let entry: ArchiveEntry
        do throws(ArchiveLineError) {
            entry = try decoder.decode(line.bytes, formatVersion: header.formatVersion)  // a copy only of a shared line
        } catch {
            report(.invalidLine, line, "line \(line.number) skipped: \(error.reason)", into: &out)
            return
        }
        if trailer != nil { report(.unexpectedLine, line, "line \(line.number) follows the trailer", into: &out) }
        switch entry {
        case .header:
            report(.unexpectedLine, line, "line \(line.number) is a second header; skipped", into: &out)
        case .record(let r):
            sequence(r.seq, line, into: &out)
            countRecord(time: r.time, bytes: r.payload.count)
            out.append(.record(ArchiveRecordView(seq: r.seq, time: r.time, direction: r.direction, connection: r.connection,
                                                 payload: r.payload[...], encoding: r.encoding), line))
        case .event(let e):
            sequence(e.seq, line, into: &out)
            counts.count(e)
            lastTime = e.time
            out.append(.event(e, line))
        case .trailer(let t):
            if trailer != nil {
                report(.unexpectedLine, line, "line \(line.number) is a second trailer; skipped", into: &out)
                return
            }
            trailer = t
            out.append(.trailer(t, line))
            if !t.sameCounts(as: counts) {
                report(.countMismatch, line, "the trailer counts \(Self.describe(t)) but \(Self.describe(counts)) were read", into: &out)
            }
        }
    }

    /// Counts a record read (after its `seq` was checked).
    mutating func countRecord(time: Int64, bytes: Int) {
        counts.records += 1
        counts.bytes += bytes
        lastTime = time
    }

    private mutating func sequence(_ seq: Int, _ line: ArchiveLine, into out: inout [ArchiveReading]) {
        if seq != lastSequence + 1 {
            let what = seq > lastSequence + 1 ? "\(seq - lastSequence - 1) lines missing" : "out of order"
            report(.sequenceGap, line, "seq \(seq) follows seq \(lastSequence) (\(what))", into: &out)
        }
        lastSequence = seq
    }

    private mutating func report(_ kind: ArchiveFinding.Kind, _ line: ArchiveLine, _ message: String, into out: inout [ArchiveReading]) {
        let f = ArchiveFinding(kind: kind, compressedOffset: line.frameOffset, line: line.number,
                               lastSequence: lastSequence, message: message)
        findings.append(f)
        out.append(.finding(f, line))
    }

    static func describe(_ t: ArchiveTrailer) -> String {
        "\(t.records) records, \(t.events) events, \(t.bytes) bytes, \(t.drops) drops, \(t.gaps) gaps (\(t.gapBytes) bytes), \(t.errors) errors"
    }
}
