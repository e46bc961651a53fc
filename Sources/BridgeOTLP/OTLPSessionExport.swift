import BridgeAnalysis
import BridgeArchive
import BridgeProtocol
import Dispatch
import Logging
import Synchronization

/// `export --otlp` and `analyze --otlp` end to end: analyse each session (one at a
/// time, so memory is one session's analysis plus one batch) and hand it to an
/// ``OTLPExporter``; what could not be read is named, and the run goes on.
public struct OTLPSessionExport: Sendable {
    /// The exporter's configuration.
    public var configuration: OTLPExporter.Configuration
    /// The analysis configuration. `export --otlp` raises the journey-step cap to
    /// ``maxStepsForExport`` so every request of a long journey gets its span.
    public var analysis: AnalyzerConfiguration
    /// The logger.
    public var logger: Logger

    /// Journey steps kept per connection when exporting (the analyzer's default is 2,000).
    public static let maxStepsForExport = 1_000_000

    /// Creates an export.
    public init(configuration: OTLPExporter.Configuration, analysis: AnalyzerConfiguration = Self.exportAnalysis,
                logger: Logger = Logger(label: "bridgescope.otlp")) {
        self.configuration = configuration
        self.analysis = analysis
        self.logger = logger
    }

    /// The analysis configuration `export --otlp` uses (the step cap applies only to a
    /// two-sided recording's `@web` journeys, which the analysis keeps whole).
    public static var exportAnalysis: AnalyzerConfiguration {
        var c = AnalyzerConfiguration()
        c.limits.maxStepsPerConnection = maxStepsForExport
        return c
    }

    /// Replaces the collector in tests (``OTLPExporter/testSink``).
    var testSink: (@Sendable ([UInt8]) -> Void)?

    /// The result: the delivery counts and the inputs that could not be read.
    public struct Outcome: Sendable {
        /// What was delivered.
        public var summary: OTLPExportSummary
        /// Inputs that could not be read, with why.
        public var failures: [InputFailure]
        /// Sessions whose archive is damaged (exported as far as readable).
        public var damaged: [String]
        /// Set when the export stopped because the collector stayed unreachable.
        public var error: OTLPError?

        /// Creates an outcome.
        public init(summary: OTLPExportSummary, failures: [InputFailure], damaged: [String], error: OTLPError?) {
            self.summary = summary
            self.failures = failures
            self.damaged = damaged
            self.error = error
        }
    }

    /// Analyses and exports every archive or tap log in `paths`, streaming
    /// (docs/OTLP.md, "Memory"): each session is analysed twice on a thread of its own
    /// (``OTLPStreamProducer``), the second time handing each step over as it settles,
    /// and the batches go to the collector from here as they fill. When the collector
    /// stays unreachable the export stops: ``Outcome/error`` says why, and the counts
    /// say what was delivered before.
    public func run(_ paths: [String]) async -> Outcome {
        let exporter = OTLPExporter(configuration: configuration, logger: logger)
        exporter.testSink = testSink
        var failures: [InputFailure] = []
        var damaged: [String] = []
        let pipe = ThreadPipe<OTLPStreamItem>(capacity: OTLPStreamOutput.batchesInFlight)
        let producer = OTLPStreamProducer(paths: paths, configuration: configuration, analysis: analysis, logger: logger)
        guard DetachedThread.start(handing: producer, { $0.run(into: pipe) }) else {
            return Outcome(summary: exporter.summary, failures: [], damaged: [],
                           error: OTLPError(.unreachable, "\(configuration.endpoint): no thread could be started to read the sessions"))
        }
        while let item = await Self.take(pipe) {
            switch item {
            case .session(let path, let traces, let isDamaged):
                exporter.summary.sessions += 1
                exporter.summary.traces += traces
                if isDamaged { damaged.append(path) }
            case .failure(let f):
                failures.append(f)
            case .batch(let body, let spans):
                do throws(OTLPError) { try await exporter.deliverStreamed(body, spans: spans) } catch {
                    pipe.cancel()
                    return Outcome(summary: exporter.summary, failures: failures, damaged: damaged, error: error)
                }
            case .done(let seconds):
                exporter.summary.encodingSeconds += seconds
            }
        }
        do throws(OTLPError) {
            let summary = try await exporter.finish()
            return Outcome(summary: summary, failures: failures, damaged: damaged, error: nil)
        } catch {
            return Outcome(summary: exporter.summary, failures: failures, damaged: damaged, error: error)
        }
    }

    /// The producer's next item, waited for off the concurrency pool.
    static func take(_ pipe: ThreadPipe<OTLPStreamItem>) async -> OTLPStreamItem? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: pipe.take()) }
        }
    }

    /// Exports reports already analysed (`analyze --otlp`), with the headers a
    /// ``HeaderRecorder`` collected while they were read.
    public func run(_ reports: [AnalysisReport], headers: HeaderRecorder) async -> Outcome {
        let exporter = OTLPExporter(configuration: configuration, logger: logger)
        do throws(OTLPError) {
            for r in reports {
                try await exporter.add(SessionTrace(report: r, header: headers.header(for: r.source)))
            }
            return Outcome(summary: try await exporter.finish(), failures: [], damaged: [], error: nil)
        } catch {
            return Outcome(summary: exporter.summary, failures: [], damaged: [], error: error)
        }
    }

    /// Remembers each archive's header as ``BatchAnalyzer`` opens it (its `opener`), so
    /// `analyze --otlp` can name the recording without reading the file twice.
    public final class HeaderRecorder: Sendable {
        private let headers = Mutex<[String: ArchiveHeader]>([:])

        /// Creates an empty recorder.
        public init() {}

        /// An opener for ``BatchAnalyzer`` that records archive headers.
        public var opener: BatchAnalyzer.Opener {
            { [self] path, readAhead throws(AnalysisError) in
                let source = try SessionInput.open(path, readAhead: readAhead)
                if let a = source as? ArchiveEventSource { headers.withLock { $0[path] = a.header } }
                return source
            }
        }

        /// The header recorded for `path`, if it was an archive.
        public func header(for path: String) -> ArchiveHeader? { headers.withLock { $0[path] } }
    }
}
