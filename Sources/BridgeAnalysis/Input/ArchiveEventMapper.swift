import BridgeArchive
import BridgeProtocol

/// What the analyzer makes of each ``ArchiveReading``: records become messages (or a
/// capture `error` when `dir` is neither `w2h` nor `h2w`), event lines capture events,
/// findings capture `error` events (`.lost` for a `sequence-gap`) naming the compressed
/// offset, the line and the last intact `seq`. No `missing-trailer` is reported after
/// truncation or corruption: the damage finding already says the end is missing.
struct ArchiveEventMapper: Sendable {
    /// The time of the last record or event, for findings.
    var lastTime: Int64 = 0
    private var damaged = false

    /// Appends the events of one reading (0 or 1).
    mutating func map(_ reading: ArchiveReading, into out: inout [AnalysisEvent]) {
        switch reading {
        case .record(let r, _):
            lastTime = r.time
            out.append(Self.message(seq: r.seq, time: r.time, direction: r.direction, connection: r.connection, bytes: r.payload))
        case .event(let e, _):
            lastTime = e.time
            out.append(.captureEvent(seq: e.seq, time: e.time, connection: e.connection, kind: ArchiveEventSource.kind(of: e), record: e.seq))
        case .trailer:
            break
        case .finding(let f, _):
            if [.truncatedFrame, .corruptData, .checksumMismatch].contains(f.kind) { damaged = true }
            if f.kind == .missingTrailer && damaged { return }
            let record = f.line.map { Swift.max(1, $0 - 1) } ?? f.lastSequence + 1
            let text = "archive \(f.kind) at compressed byte \(f.compressedOffset)"
                + (f.line.map { ", line \($0)" } ?? "") + ", after seq \(f.lastSequence): \(f.message)"
            out.append(.captureEvent(seq: record, time: lastTime, connection: nil,
                                     kind: f.kind == .sequenceGap ? .lost(text) : .error(text), record: record))
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
}
