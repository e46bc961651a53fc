import BridgeAnalysis
import BridgeProtocol
import Foundation
import Testing

/// Text and JSON reports compared byte for byte with committed golden files in
/// Tests/BridgeAnalysisTests/Golden.
///
/// To regenerate after an intended change: `BRIDGESCOPE_UPDATE_GOLDENS=1 swift test
/// --filter GoldenTests`, then review the diff with `git diff Tests/BridgeAnalysisTests/Golden`.
struct GoldenTests {
    static let update = ProcessInfo.processInfo.environment["BRIDGESCOPE_UPDATE_GOLDENS"] == "1"

    func check(_ actual: String, golden name: String) throws {
        let url = Fixtures.goldenDirectory.appendingPathComponent(name)
        if Self.update {
            try Data(actual.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "\(name) differs from the golden file; if intended, regenerate with BRIDGESCOPE_UPDATE_GOLDENS=1 swift test --filter GoldenTests")
    }

    static let sessions = ["malformed-traffic.ndjson", "two-connections.ndjson", "busy-retry-storm.trigger.ndjson"]

    @Test(arguments: sessions)
    func textReport(_ fixture: String) throws {
        let batch = AnalysisBatch(reports: [try Fixtures.analyze(fixture)])
        let base = fixture.replacingOccurrences(of: ".ndjson", with: "")
        try check(TextReportRenderer().render(batch), golden: base + ".txt")
    }

    @Test(arguments: sessions)
    func jsonReport(_ fixture: String) throws {
        let batch = AnalysisBatch(reports: [try Fixtures.analyze(fixture)])
        let base = fixture.replacingOccurrences(of: ".ndjson", with: "")
        try check(JSONReportRenderer().render(batch), golden: base + ".json")
    }

    @Test func batchWithAggregate() throws {
        let batch = AnalysisBatch(reports: try Self.sessions.map { try Fixtures.analyze($0) },
                                  failures: [InputFailure(path: "missing.ndjson", error: AnalysisError(.unreadableInput, "missing.ndjson: cannot open the file"))])
        try check(TextReportRenderer(options: RenderOptions(threshold: .warning)).render(batch), golden: "batch.txt")
        try check(JSONReportRenderer(options: RenderOptions(threshold: .warning)).render(batch), golden: "batch.json")
    }

    /// A long journey with UUID ids: columns aligned on the widest value, record numbers
    /// shown, 600 alike queries folded with counts, the BUSY storm kept whole.
    @Test func longSessionWithUUIDs() throws {
        let batch = AnalysisBatch(reports: [try Fixtures.analyze("long-session-uuids.ndjson")])
        try check(TextReportRenderer().render(batch), golden: "long-session-uuids.txt")
    }

    /// `bridgescope rules`: a header row, no slug glued to its severity.
    @Test func rulesTable() throws {
        try check(RuleCatalogue.standard.textTable(), golden: "rules.txt")
    }

    @Test func colourOnlyWhenAsked() throws {
        let batch = AnalysisBatch(reports: [try Fixtures.analyze("malformed-traffic.ndjson")])
        #expect(!TextReportRenderer().render(batch).contains("\u{1B}["))
        let coloured = TextReportRenderer(options: RenderOptions(color: true)).render(batch)
        #expect(coloured.contains("\u{1B}[31mFAIL\u{1B}[0m"))
    }
}
