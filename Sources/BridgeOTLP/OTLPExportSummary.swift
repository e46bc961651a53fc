/// What an export delivered, counted as the collector answered: every span sent is
/// either accepted or rejected (partial success, or a final error status), or still
/// unsent when the export stopped.
public struct OTLPExportSummary: Sendable, Hashable {
    /// Sessions mapped to traces.
    public var sessions = 0
    /// Traces (journeys: one per connection).
    public var traces = 0
    /// Spans mapped so far (spans are mapped as batches go: an export that stopped on an
    /// error has not mapped the rest of its session).
    public var spans = 0
    /// Spans in requests the collector answered.
    public var sent = 0
    /// Spans the collector accepted.
    public var accepted = 0
    /// Spans the collector rejected (`partial_success.rejected_spans`, or a whole batch
    /// answered with a final error status).
    public var rejected = 0
    /// HTTP requests that got an answer, and attempts that were retried.
    public var requests = 0, retries = 0
    /// What the collector said about rejected spans (at most 5 distinct messages).
    public var rejectionMessages: [String] = []
    /// Seconds spent mapping sessions to spans and encoding batches (this side's work).
    public var encodingSeconds = 0.0
    /// Seconds spent waiting for the collector (sending, its work, its answer, retries).
    public var waitingSeconds = 0.0

    /// Creates an empty summary.
    public init() {}

    /// Spans mapped but never answered (the export stopped on an error).
    public var unsent: Int { spans - sent }

    /// `sent N spans (T traces from S sessions): A accepted, R rejected`.
    public var line: String {
        var s = "sent \(sent) span\(sent == 1 ? "" : "s") (\(traces) trace\(traces == 1 ? "" : "s") from \(sessions) session\(sessions == 1 ? "" : "s")) in \(requests) request\(requests == 1 ? "" : "s"): \(accepted) accepted, \(rejected) rejected"
        if retries > 0 { s += ", \(retries) retr\(retries == 1 ? "y" : "ies")" }
        if unsent > 0 { s += "; \(unsent) not sent" }
        s += "; mapping and encoding \(Self.format(encodingSeconds)) s, waiting for the collector \(Self.format(waitingSeconds)) s"
        return s
    }

    static func format(_ seconds: Double) -> String {
        let ms = Int((seconds * 1000).rounded())
        return "\(ms / 1000).\(String(ms % 1000 / 10 + 100).dropFirst())"
    }
}
