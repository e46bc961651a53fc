import BridgeAnalysis
import BridgeArchive

/// What the export's producer thread hands the delivering task (``OTLPSessionExport``).
enum OTLPStreamItem: Sendable {
    /// A request body of `spans` spans to post.
    case batch([UInt8], spans: Int)
    /// A session was analysed once and is being mapped: its journeys (traces), and
    /// whether its archive is damaged.
    case session(path: String, traces: Int, damaged: Bool)
    /// An input that could not be read.
    case failure(InputFailure)
    /// The end: the producer's mapping and encoding time.
    case done(encodingSeconds: Double)
}

/// The producer's side of a streamed export: the batch being written and the pipe to
/// the delivering task. A batch is handed over as soon as it holds
/// ``OTLPExporter/Configuration/maxBatchSpans`` spans or about
/// ``OTLPExporter/Configuration/maxBatchBytes`` bytes; the pipe holds at most
/// ``batchesInFlight`` of them, and the producer waits while it is full, so memory is a
/// few batches whatever the length of the session. Used by the producer thread only.
final class OTLPStreamOutput: @unchecked Sendable {
    /// Bodies that may wait for delivery (plus the one being written, and the one posted).
    static let batchesInFlight = 1
    let configuration: OTLPExporter.Configuration
    let pipe: ThreadPipe<OTLPStreamItem>
    private var batch = OTLPSpanBatch()
    /// Set when the delivering task gave up (the collector stayed unreachable): nothing
    /// more is mapped.
    private(set) var stopped = false
    /// Time spent mapping and encoding spans.
    private(set) var encodingSeconds = 0.0
    /// Time spent waiting for room in the pipe (the collector's pace).
    private var waited = 0.0
    /// Keys of journeys handed out so far (one per journey of every session).
    private var keys = 0

    init(configuration: OTLPExporter.Configuration, pipe: ThreadPipe<OTLPStreamItem>) {
        self.configuration = configuration
        self.pipe = pipe
    }

    /// `count` fresh journey keys: the first.
    func journeyKeys(_ count: Int) -> Int {
        defer { keys += count }
        return keys
    }

    /// Lets `write` write a span (or not) into journey `key`'s piece; hands the batch
    /// over when full.
    func write(key: Int, resource: () -> [UInt8], _ write: (inout ProtobufWriter) -> Bool) {
        guard !stopped else { return }
        let started = ContinuousClock.now, waitedBefore = waited
        if batch.write(key: key, resource: resource, write),
           batch.spans >= configuration.maxBatchSpans || batch.byteCount >= configuration.maxBatchBytes {
            flush()
        }
        encodingSeconds += OTLPHTTPConnection.seconds(ContinuousClock.now - started) - (waited - waitedBefore)
    }

    /// Hands the batch over, if it holds spans.
    func flush() {
        guard batch.spans > 0, !stopped else { return }
        let spans = batch.spans
        send(.batch(batch.take(), spans: spans))
    }

    /// Hands `item` over, waiting for room; marks the export stopped when the delivering
    /// task gave up.
    func send(_ item: OTLPStreamItem) {
        guard !stopped else { return }
        let started = ContinuousClock.now
        if !pipe.put(item) { stopped = true }
        waited += OTLPHTTPConnection.seconds(ContinuousClock.now - started)
    }
}
