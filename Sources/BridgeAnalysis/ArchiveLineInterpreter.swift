import BridgeArchive
import BridgeJSON
import BridgeProtocol

/// Turns the decompressed lines of a session archive (BridgeArchive's
/// `ArchiveLineReader` items) into ``AnalysisEvent``s, with the checks of BridgeArchive's
/// `ArchiveReader` (docs/FORMAT.md §7): `invalid-line`, `sequence-gap`,
/// `unexpected-line`, `count-mismatch`, `missing-trailer`.
///
/// A record line stored as `msg` is read once: ``RecordLineScanner`` finds the members,
/// the small ones (`seq`, `t`, `dir`, `conn`, any unknown one) are parsed on their own,
/// and the message is a slice of the line (no copy), parsed only by the analyzer's
/// envelope decoder. `ArchiveReader` would parse the whole line (building a string for
/// every image) and copy the message before the analyzer parses it again. Every other
/// line, and any record line the scanner does not recognise, goes to
/// `ArchiveLineDecoder`, so its errors read as `ArchiveReader`'s. One difference: a `msg`
/// value that is not valid JSON (a hand-made or damaged archive) is reported by the
/// per-message rules on its record (`malformed-json`, `invalid-utf8`), not as
/// `invalid-line`.
///
/// A value type with no I/O, so the reading and the interpreting can run on two tasks.
struct ArchiveLineInterpreter: Sendable {
    /// The archive's header (line 1, read and checked before).
    let header: ArchiveHeader
    private let decoder = ArchiveLineDecoder()
    private let fastRecords: Bool
    private var lastSequence = 0
    private var counts = ArchiveTrailer()
    private var trailer: ArchiveTrailer?
    private var damaged = false
    private var lastTime: Int64

    init(header: ArchiveHeader) {
        self.header = header
        self.lastTime = header.startTime
        // The fast path knows the members of the current version only.
        self.fastRecords = header.formatVersion == BridgeArchiveFormat.currentVersion
    }

    /// Interprets one item of the line reader, appending 0 to 2 events.
    mutating func take(_ item: ArchiveLineReader.Item, into out: inout [AnalysisEvent]) {
        switch item {
        case .finding(var f):
            f.lastSequence = lastSequence
            out.append(event(for: f))
        case .line(let line):
            if line.number == 1 { return }  // the header, checked when the archive was opened
            if fastRecords, let record = fastRecord(line) {
                if trailer != nil { report(.unexpectedLine, line, "line \(line.number) follows the trailer", into: &out) }
                sequence(record.seq, line, into: &out)
                counts.records += 1
                counts.bytes += record.bytes.count
                lastTime = record.time
                out.append(record.event)
                return
            }
            slow(line, into: &out)
        }
    }

    /// The end of the stream: a missing trailer, unless damage was already reported.
    mutating func finish(compressedOffset: Int, into out: inout [AnalysisEvent]) {
        guard trailer == nil, !damaged else { return }
        let f = ArchiveFinding(kind: .missingTrailer, compressedOffset: compressedOffset, line: nil, lastSequence: lastSequence,
                               message: "the archive has no trailer: the recording was not finished or its end was lost (last seq \(lastSequence))")
        out.append(event(for: f))
    }

    private struct FastRecord {
        var seq: Int
        var time: Int64
        var bytes: ArraySlice<UInt8>
        var event: AnalysisEvent
    }

    /// A `msg` record line read without a full parse; nil for anything else.
    private func fastRecord(_ line: ArchiveLine) -> FastRecord? {
        line.bytes.withUnsafeBytes { b -> FastRecord? in
            guard let members = RecordLineScanner.members(b, maxDepth: BridgeArchiveFormat.lineLimits.maxDepth) else { return nil }
            var seq: Int?, time: Int64?, dir: String?, conn: String?, msg: Range<Int>?
            let small = JSONParser(limits: BridgeArchiveFormat.messageLimits)
            for (n, m) in members.enumerated() {
                // A key twice: the full decoder reports it.
                for other in members[..<n] where other.key.count == m.key.count && b[other.key].elementsEqual(b[m.key]) { return nil }
                if RecordLineScanner.key(m, in: b, is: "msg") { msg = m.value; continue }
                if RecordLineScanner.key(m, in: b, is: "text") || RecordLineScanner.key(m, in: b, is: "b64")
                    || RecordLineScanner.key(m, in: b, is: "event") || RecordLineScanner.key(m, in: b, is: "bridgescope") {
                    return nil
                }
                guard let value = try? small.parse(UnsafeRawBufferPointer(rebasing: b[m.value])).value else { return nil }
                if RecordLineScanner.key(m, in: b, is: "seq") {
                    guard case .number(let x) = value, x.isIntegerLexeme, let v = x.int64, v >= 0 else { return nil }
                    seq = Int(v)
                } else if RecordLineScanner.key(m, in: b, is: "t") {
                    guard case .number(let x) = value, x.isIntegerLexeme, let v = x.int64 else { return nil }
                    time = v
                } else if RecordLineScanner.key(m, in: b, is: "dir") {
                    guard case .string(let s) = value else { return nil }
                    dir = s
                } else if RecordLineScanner.key(m, in: b, is: "conn") {
                    guard case .string(let s) = value else { return nil }
                    conn = s
                }
            }
            guard let seq, let time, let dir, let conn, let msg else { return nil }
            let bytes = line.bytes[msg]
            let direction = ArchiveDirection(rawValue: dir)
            return FastRecord(seq: seq, time: time, bytes: bytes,
                              event: Self.message(seq: seq, time: time, direction: direction, connection: conn, bytes: bytes))
        }
    }

    /// Any line through BridgeArchive's full line decoder.
    private mutating func slow(_ line: ArchiveLine, into out: inout [AnalysisEvent]) {
        let entry: ArchiveEntry
        do throws(ArchiveLineError) {
            entry = try decoder.decode(line.bytes, formatVersion: header.formatVersion)
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
            counts.records += 1
            counts.bytes += r.payload.count
            lastTime = r.time
            out.append(Self.message(seq: r.seq, time: r.time, direction: r.direction, connection: r.connection, bytes: r.payload[...]))
        case .event(let e):
            sequence(e.seq, line, into: &out)
            counts.count(e)
            lastTime = e.time
            out.append(.captureEvent(seq: e.seq, time: e.time, connection: e.connection, kind: ArchiveEventSource.kind(of: e), record: e.seq))
        case .trailer(let t):
            if trailer != nil {
                report(.unexpectedLine, line, "line \(line.number) is a second trailer; skipped", into: &out)
                return
            }
            trailer = t
            if !t.sameCounts(as: counts) {
                report(.countMismatch, line, "the trailer counts \(Self.describe(t)) but \(Self.describe(counts)) were read", into: &out)
            }
        }
    }

    static func message(seq: Int, time: Int64, direction: ArchiveDirection, connection: String, bytes: ArraySlice<UInt8>) -> AnalysisEvent {
        guard direction.isKnown else {
            return .captureEvent(seq: seq, time: time, connection: connection,
                                 kind: .error("record \(seq): \"dir\" is \"\(direction.rawValue.prefix(20))\", not w2h or h2w; not analysed"),
                                 record: seq)
        }
        return .message(seq: seq, time: time, direction: Direction(rawValue: direction.rawValue), connection: connection,
                        bytes: bytes, record: seq)
    }

    private mutating func sequence(_ seq: Int, _ line: ArchiveLine, into out: inout [AnalysisEvent]) {
        if seq != lastSequence + 1 {
            let what = seq > lastSequence + 1 ? "\(seq - lastSequence - 1) lines missing" : "out of order"
            report(.sequenceGap, line, "seq \(seq) follows seq \(lastSequence) (\(what))", into: &out)
        }
        lastSequence = seq
    }

    private mutating func report(_ kind: ArchiveFinding.Kind, _ line: ArchiveLine, _ message: String, into out: inout [AnalysisEvent]) {
        out.append(event(for: ArchiveFinding(kind: kind, compressedOffset: line.frameOffset, line: line.number,
                                             lastSequence: lastSequence, message: message)))
    }

    /// A reader finding as a capture event: `sequence-gap` is a loss (`capture-gap`),
    /// everything else an error (`capture-error`); no `missing-trailer` after damage.
    private mutating func event(for f: ArchiveFinding) -> AnalysisEvent {
        if [.truncatedFrame, .corruptData, .checksumMismatch].contains(f.kind) { damaged = true }
        let record = f.line.map { Swift.max(1, $0 - 1) } ?? f.lastSequence + 1
        let text = "archive \(f.kind) at compressed byte \(f.compressedOffset)"
            + (f.line.map { ", line \($0)" } ?? "") + ", after seq \(f.lastSequence): \(f.message)"
        return .captureEvent(seq: record, time: lastTime, connection: nil,
                             kind: f.kind == .sequenceGap ? .lost(text) : .error(text), record: record)
    }

    private static func describe(_ t: ArchiveTrailer) -> String {
        "\(t.records) records, \(t.events) events, \(t.bytes) bytes, \(t.drops) drops, \(t.gaps) gaps (\(t.gapBytes) bytes), \(t.errors) errors"
    }
}
