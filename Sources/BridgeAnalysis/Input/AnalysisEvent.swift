import BridgeProtocol

/// One input record for ``SessionAnalyzer``: a message as captured, or a capture event.
///
/// The analyzer consumes this small type instead of an archive format, so any source
/// (a tap log, a session archive, a live recorder) can feed it. `record` is the 1-based
/// record number in the source (the line number for JSON Lines inputs); findings cite it.
public enum AnalysisEvent: Sendable, Hashable {
    /// A message: `seq` is the recorder's sequence number, `time` the capture time in
    /// nanoseconds since the Unix epoch, `bytes` the message exactly as seen.
    case message(seq: Int, time: Int64, direction: Direction, connection: String, bytes: ArraySlice<UInt8>, record: Int)
    /// A capture event (connection open/close, gap, drop, reader error). `connection` is
    /// nil for events about the whole capture.
    case captureEvent(seq: Int, time: Int64, connection: String?, kind: CaptureEventKind, record: Int)

    /// The capture time in nanoseconds since the Unix epoch.
    public var time: Int64 {
        switch self {
        case .message(_, let t, _, _, _, _), .captureEvent(_, let t, _, _, _): return t
        }
    }

    /// The 1-based record number in the source.
    public var record: Int {
        switch self {
        case .message(_, _, _, _, _, let r), .captureEvent(_, _, _, _, let r): return r
        }
    }
}

/// What a capture event says happened.
public enum CaptureEventKind: Sendable, Hashable {
    /// A connection was opened (seen from its start).
    case open
    /// A connection was closed.
    case close
    /// Bytes of a stream were lost (TCP reassembly gap); the count is what is missing.
    case gap(bytes: Int64)
    /// Packets were dropped by the capture (libpcap drop counter).
    case drop(count: Int64)
    /// The recorder or the input reader reported an error (corrupt or truncated input).
    case error(String)
    /// Records of the input were lost (an archive's `seq` jumps): the sentence says how
    /// many. Reported as `capture-gap`.
    case lost(String)
    /// What WebKit does to the connection's next record of `direction` as it crosses the
    /// bridge (a `crossing` event, docs/FORMAT.md §5): `reason` is `not delivered: ...`
    /// or `changed: ...`. A journey step `capture.crossing`; on a two-sided recording's
    /// connection, the note the crossing analysis reads.
    case crossing(direction: Direction?, reason: String)
    /// A capture event of a kind this build does not know (an archive written by a newer
    /// tool): shown in the journey as `capture.<kind>`, no finding.
    case other(String)
}
