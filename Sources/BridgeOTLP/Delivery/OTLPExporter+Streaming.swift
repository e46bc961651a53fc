/// Delivery of the batches a streamed export writes on its producer thread
/// (``OTLPSessionExport/run(_:)``, ``OTLPStreamOutput``).
extension OTLPExporter {
    /// Posts a body of `spans` spans encoded elsewhere, counting its spans as mapped;
    /// throws as ``add(_:)`` does when the collector stays unreachable.
    func deliverStreamed(_ body: [UInt8], spans: Int) async throws(OTLPError) {
        summary.spans += spans
        largestBatch = (Swift.max(largestBatch.spans, spans), Swift.max(largestBatch.bytes, body.count))
        try await deliver(body, spans: spans)
    }
}
