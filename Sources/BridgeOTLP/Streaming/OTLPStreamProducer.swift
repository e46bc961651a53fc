import BridgeAnalysis
import BridgeArchive
import Foundation
import Logging

/// The producer thread of `export --otlp` (``OTLPSessionExport/run(_:)``): each session
/// is analysed twice, one after the other, and never held whole. The first pass
/// (``JourneyPlan``) learns what is known only at a journey's end; the second streams
/// (``SpanStreamer``): the analysis hands each step over as it settles, its span is
/// written into the batch, and a full batch goes to the delivering task through a
/// bounded pipe. Memory: the analysis's open state (open requests, remembered ids,
/// findings up to their cap) plus a few batches, whatever the length of the session.
struct OTLPStreamProducer: Sendable {
    let paths: [String]
    let configuration: OTLPExporter.Configuration
    let analysis: AnalyzerConfiguration
    let logger: Logger

    /// Runs every session into `pipe`, then finishes it.
    func run(into pipe: ThreadPipe<OTLPStreamItem>) {
        let output = OTLPStreamOutput(configuration: configuration, pipe: pipe)
        for path in paths where !output.stopped {
            export(path, to: output)
        }
        output.flush()
        output.send(.done(encodingSeconds: output.encodingSeconds))
        pipe.finish()
    }

    /// Both passes over one session.
    private func export(_ path: String, to output: OTLPStreamOutput) {
        // Standard input or a FIFO is read once: into a file first, for two passes.
        var spooled: URL?
        defer { if let spooled { try? FileManager.default.removeItem(at: spooled) } }
        let readable: String
        do throws(AnalysisError) {
            spooled = try Self.spoolIfNeeded(path)
            readable = spooled?.path ?? path
        } catch {
            output.send(.failure(InputFailure(path: path, error: error)))
            return
        }
        let counter = JourneyPlan.Counter()
        let header: ArchiveHeader?
        do throws(AnalysisError) {
            var source = try SessionInput.open(readable)
            header = (source as? ArchiveEventSource)?.header
            _ = try SessionAnalyzer.analyze(&source, name: path, configuration: analysis, sink: counter, logger: logger)
        } catch {
            output.send(.failure(InputFailure(path: path, error: error)))
            return
        }
        guard let plan = counter.plan else { return }
        output.send(.session(path: path, traces: plan.report.connections.count,
                             damaged: plan.report.ruleCounts.contains { $0.rule == .captureError }))
        let streamer = SpanStreamer(plan: plan, header: header, output: output)
        do throws(AnalysisError) {
            var source = try SessionInput.open(readable)
            _ = try SessionAnalyzer.analyze(&source, name: path, configuration: analysis, sink: streamer, logger: logger)
        } catch {
            output.send(.failure(InputFailure(path: path, error: error)))
        }
    }

    /// A copy in a temporary file of an input that can be read only once (`-`, a FIFO);
    /// nil for a regular file.
    static func spoolIfNeeded(_ path: String) throws(AnalysisError) -> URL? {
        if path != "-" {
            // A file that is not there, a directory: the analysis says what it is.
            guard let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType,
                  type != .typeRegular, type != .typeDirectory else { return nil }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bridgescope-otlp-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let out = FileHandle(forWritingAtPath: url.path),
              let input = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
            throw AnalysisError(.unreadableInput, "\(path): cannot copy it into a temporary file to read it twice")
        }
        defer { try? out.close() }
        while true {
            let chunk: Data?
            do {
                chunk = try input.read(upToCount: 1 << 20)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw AnalysisError(.unreadableInput, "\(path): read error")
            }
            // nil or empty: the end of the input.
            guard let chunk, !chunk.isEmpty else { break }
            out.write(chunk)
        }
        return url
    }
}
