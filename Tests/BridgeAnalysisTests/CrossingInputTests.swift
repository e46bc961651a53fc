import BridgeAnalysis
import BridgeArchive
import BridgeJSON
import BridgeProtocol
import Foundation
import FoundationXML
import Testing

/// Two-sided recordings through `record --tap` into an archive, read on one thread and
/// pipelined, and their findings in every renderer and in the rule catalogue.
struct CrossingInputTests {
    /// A session with a function-holding post, a dropped BigInt and an unposted receipt.
    static func session() -> TwoSidedSession {
        var s = TwoSidedSession()
        s.happyJourney()
        s.send("w2h", "request", "n-1", "nfc.read", crossing: BridgeCrossingTests.function, receiver: false)
        s.send("w2h", "event", "web-5", "journey.step", data: #"{"step":5}"#,
               crossing: #"{"delivered":true,"changes":["payload.data.n: a BigInt, dropped"]}"#)
        s.send("w2h", "request", "x-9", "camera.selfie.capture", sender: false)
        return s
    }

    /// `record --tap` writes each crossing event immediately before its record; the
    /// archive analysed (one thread and pipelined) gives the tap log's findings, the
    /// records now numbered by `seq`.
    @Test func recordTapThenAnalyzeTheArchive() throws {
        let s = Self.session()
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tap = dir.appendingPathComponent("two-sided.ndjson").path
        try s.text.write(toFile: tap, atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("two-sided.bsz").path
        let source = try TapSource(path: tap)
        let writer = try ArchiveWriter(path: path, header: ArchiveHeader(source: source.sourceDescription, startTime: TwoSidedSession.t0 * 1_000_000, toolVersion: "test"))
        try source.record(into: writer, control: RecordingControl())
        _ = try writer.finish()

        // Each crossing event is the line before a record of its connection and direction.
        let reader = try ArchiveReader(path: path)
        var items: [ArchiveItem] = []
        while let item = reader.next() { items.append(item) }
        var crossings = 0
        for (i, item) in items.enumerated() {
            guard case .event(let e) = item, e.kind == .crossing else { continue }
            crossings += 1
            guard case .record(let r) = items[i + 1] else { Issue.record("no record after \(e)"); continue }
            #expect(r.seq == e.seq + 1 && r.connection == e.connection && r.direction == e.direction)
            #expect(r.connection == "v1@web")
        }
        #expect(crossings == 2)

        let fromTap = try s.analyze()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let both = try PipelinedAnalysisTests.bothReports(bytes, name: "two-sided.bsz")
        #expect(both.one == both.pipelined)
        let archive = both.one
        #expect(archive.countsBySlug == fromTap.countsBySlug)
        #expect(archive.crossingCounts == ["bridge-not-delivered": 1, "bridge-member-changed": 1, "bridge-unposted-receipt": 1])
        #expect(archive.summary.requests == fromTap.summary.requests)
        let f = try #require(archive.findings("bridge-not-delivered").first)
        guard case .record(let post) = items[f.records[0] - 1] else { Issue.record("record \(f.records)"); return }
        #expect(post.connection == "v1@web")
        #expect(String(decoding: post.payload, as: UTF8.self).contains(#""correlationId":"n-1""#))
        #expect(f.message.hasSuffix("WebKit does not deliver it (payload.data.cb: a function; WebKit does not deliver a message that holds one)"))
    }

    /// The new findings reach every renderer through the finding machinery.
    @Test func everyRendererShowsTheCrossingFindings() throws {
        let report = try Fixtures.analyze("bridge-not-delivered.trigger.ndjson")
        let batch = AnalysisBatch(reports: [report, try Fixtures.analyze("bridge-member-changed.trigger.ndjson")])
        let text = TextReportRenderer().render(batch)
        #expect(text.contains("BRG300 bridge-not-delivered ×1"))
        #expect(text.contains("BRG301 bridge-member-changed ×2"))
        #expect(text.contains("! BRG100 BRG300"))
        // Not delivered explains the unanswered request: it leads the verdict.
        let verdict = text.components(separatedBy: "\n").filter { $0.contains("▶") }
        #expect(verdict.first?.contains("BRG300") == true, "\(verdict)")

        let json = try JSONParser().parse(JSONReportRenderer().render(batch)).value
        let rules = json["sessions"]?.arrayValue?.first?["findings"]?.arrayValue?.compactMap { $0["rule"]?.stringValue } ?? []
        #expect(rules.contains("BRG300"), "\(rules)")

        let html = HTMLReportRenderer().render(batch)
        #expect(html.contains("bridge-not-delivered") && html.contains("bridge-member-changed"))
        #expect(html.contains("capture.crossing not delivered: payload.data.onChip: a function"))

        let xml = try XMLDocument(xmlString: JUnitReportRenderer().render(batch))
        let failed = try xml.nodes(forXPath: "//testcase[failure]/@name").compactMap(\.stringValue)
        #expect(failed.contains("BRG300 bridge-not-delivered"))
        let changed = try xml.nodes(forXPath: "//testcase[@name='BRG301 bridge-member-changed']/system-out")
        #expect(changed.count == 1)
    }

    /// `validate` on a tap log: a malformed crossing member is said for its line, and
    /// the line's message is still checked.
    @Test func validateSaysTheLineWasImportedInPart() throws {
        let dir = try Archives.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("tap.ndjson").path
        let text = #"{"t":1763830000000,"dir":"w2h","conn":"v1@web","msg":{"version":"1.0","correlationId":"a","type":"request","timestamp":1763830000000},"crossing":{"delivered":"no"}}"# + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try InputValidator().validate(path: path)
        #expect(result.messages == 1)
        let messages = result.items.map(\.finding.message)
        #expect(messages.first == #"tap line imported in part: "crossing"."delivered" must be true or false, not string; the message is imported without it"#, "\(messages)")
        // The message itself lacks its payload: found as ever.
        #expect(result.items.contains { $0.finding.rule.rawValue == "BRG004" && $0.number == 1 })
    }

    /// `bridgescope rules` lists the range and each rule; docs/RULES.md is generated from it.
    @Test func theCatalogueListsTheCrossingRules() throws {
        let rules = RuleCatalogue.crossingRules
        #expect(rules.map(\.slug) == ["bridge-not-delivered", "bridge-member-changed", "bridge-unposted-receipt", "bridge-crossing-incomplete"])
        for r in rules {
            let n = Int(r.id.rawValue.dropFirst(3)) ?? 0
            #expect((300...309).contains(n))
            #expect(RuleCatalogue.standard[r.id] == r)
            #expect(r.explanation.contains("Check"), "\(r.slug)")
            #expect(RuleCatalogue.standard.textTable().contains(r.slug))
            // A trigger fixture for each, and the two-sided clean fixture quiet for all.
            #expect(Fixtures.names.contains("\(r.slug).trigger.ndjson"))
            #expect(try Fixtures.expectation("\(r.slug).trigger.ndjson")[r.slug] != nil)
        }
        #expect(try Fixtures.analyze("bridge-crossing.clean.ndjson").ruleCounts.isEmpty)
        #expect(RuleCatalogue.standard.markdown().contains("BRG300–BRG309 bridge crossing (two-sided recordings)"))
    }
}
