/// The body of one `ExportTraceServiceRequest` while a streamed export writes it
/// (``OTLPStreamOutput``): journeys' spans arrive interleaved, as their steps settle, so
/// each journey in the batch has its own piece (its resource, the scope, its spans),
/// written out in order of first use when the batch is taken. The bytes of each span are
/// those ``JourneySpans`` writes; only how they are grouped into `ResourceSpans` differs
/// from ``OTLPRequestEncoder`` (a collector sees the same spans with the same resource).
struct OTLPSpanBatch {
    /// Piece index by journey key.
    private var pieceOf: [Int: Int] = [:]
    /// The pieces in order of first use: the encoded resource, and the `ScopeSpans.spans`
    /// fields written so far.
    private var pieces: [(resource: [UInt8], spans: ProtobufWriter)] = []
    /// Spans in the batch.
    private(set) var spans = 0
    /// Bytes of the body if it were taken now, nearly (the framing of each piece is
    /// counted as 16 bytes).
    private(set) var byteCount = 0

    /// Lets `write` write into the piece of journey `key` (made on first use, with the
    /// resource `resource` gives); `write` returns whether it wrote a span.
    mutating func write(key: Int, resource: () -> [UInt8], _ write: (inout ProtobufWriter) -> Bool) -> Bool {
        let i: Int
        if let found = pieceOf[key] {
            i = found
        } else {
            i = pieces.count
            pieceOf[key] = i
            let r = resource()
            pieces.append((r, ProtobufWriter()))
            byteCount += r.count + TraceMapper.scope.count + 16
        }
        let before = pieces[i].spans.count
        let wrote = write(&pieces[i].spans)
        byteCount += pieces[i].spans.count - before
        if wrote { spans += 1 }
        return wrote
    }

    /// The finished body; the batch is empty after. Pieces without spans are left out.
    mutating func take() -> [UInt8] {
        var w = ProtobufWriter()
        w.bytes.reserveCapacity(byteCount)
        for p in pieces where p.spans.count > 0 {
            let rs = w.begin(1)
            w.messageField(1, encoded: p.resource)
            let ss = w.begin(2)
            w.messageField(1, encoded: TraceMapper.scope)
            w.bytes.append(contentsOf: p.spans.bytes)
            w.end(ss)
            w.end(rs)
        }
        self = OTLPSpanBatch()
        return w.bytes
    }
}
