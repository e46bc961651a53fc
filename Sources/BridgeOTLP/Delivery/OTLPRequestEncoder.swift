/// Builds the body of one `ExportTraceServiceRequest` as its spans are written:
///
/// ```
/// ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
/// ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
/// ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
/// ```
///
/// ``open(resource:scope:)`` starts a trace's piece (its resource and scope, already
/// encoded), ``JourneySpans`` writes spans into ``writer`` after it, ``close()`` ends the
/// piece; a journey cut over two requests has a piece in each, with the same resource.
/// Everything is written by ``ProtobufWriter`` (see there why not by the generated
/// code); the receiver's official classes decode the result (`OTLPExportTests`).
struct OTLPRequestEncoder {
    /// The body so far; spans are written here between ``open(resource:scope:)`` and ``close()``.
    var writer = ProtobufWriter()
    /// Spans in the body.
    private(set) var spans = 0
    private var piece: (start: Int, resourceSpans: Int, scopeSpans: Int, spans: Int)?

    /// Bytes in the body so far.
    var byteCount: Int { writer.count }

    /// Starts a trace's piece.
    mutating func open(resource: [UInt8], scope: [UInt8]) {
        precondition(piece == nil, "a piece is open")
        let start = writer.count
        let rs = writer.begin(1)
        writer.messageField(1, encoded: resource)
        let ss = writer.begin(2)
        writer.messageField(1, encoded: scope)
        piece = (start, rs, ss, 0)
    }

    /// Counts a span just written into ``writer``.
    mutating func spanWritten() {
        spans += 1
        piece?.spans += 1
    }

    /// Ends the open piece; a piece without spans is taken out.
    mutating func close() {
        guard let p = piece else { return }
        piece = nil
        if p.spans == 0 {
            writer.bytes.removeSubrange(p.start...)
            return
        }
        writer.end(p.scopeSpans)
        writer.end(p.resourceSpans)
    }

    /// The finished body (the open piece, if any, is closed); the encoder is empty after.
    mutating func take() -> [UInt8] {
        close()
        let body = writer.bytes
        writer = ProtobufWriter()
        spans = 0
        return body
    }
}
