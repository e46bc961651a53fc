@testable import BridgeAnalysis
import BridgeProtocol
import Testing

/// `JSONReportRenderer.write` (the report streamed in chunks, issue 21) is the document
/// the whole JSON tree gives, byte for byte, for every fixture and for a batch of them
/// (empty sessions, failures), whatever the chunk size.
struct JSONStreamingTests {
    static func streamed(_ batch: AnalysisBatch, renderer: JSONReportRenderer, chunkBytes: Int) -> [UInt8] {
        var chunks: [[UInt8]] = []
        renderer.write(batch, chunkBytes: chunkBytes) { (chunk: [UInt8]) throws(Never) in chunks.append(chunk) }
        for chunk in chunks.dropLast() { #expect(chunk.count >= chunkBytes) }
        return chunks.flatMap { $0 }
    }

    @Test(arguments: Fixtures.names)
    func fixtureReportIsTheTreeWritten(_ fixture: String) throws {
        let batch = AnalysisBatch(reports: [try Fixtures.analyze(fixture)])
        let renderer = JSONReportRenderer()
        let tree = Array(PrettyJSON.string(renderer.value(batch)).utf8)
        for chunkBytes in [1, 7, 1 << 16] {
            #expect(Self.streamed(batch, renderer: renderer, chunkBytes: chunkBytes) == tree, "chunks of \(chunkBytes)")
        }
        #expect(Array(renderer.render(batch).utf8) == tree)
    }

    @Test func batchesAndEmptyBatchesAreTheTreeWritten() throws {
        let failure = InputFailure(path: "missing.ndjson", error: AnalysisError(.unreadableInput, "missing.ndjson: cannot open the file"))
        let reports = try Fixtures.names.prefix(6).map { try Fixtures.analyze($0) }
        let renderer = JSONReportRenderer(options: RenderOptions(threshold: .warning))
        for batch in [AnalysisBatch(reports: reports, failures: [failure]), AnalysisBatch(reports: [], failures: [failure]),
                      AnalysisBatch(reports: [], failures: [])] {
            let tree = Array(PrettyJSON.string(renderer.value(batch)).utf8)
            #expect(Self.streamed(batch, renderer: renderer, chunkBytes: 5) == tree)
        }
    }
}
