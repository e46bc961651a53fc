import BridgeHost
import BridgeJSON
@testable import BridgeReplay
import Foundation
import Testing

/// The three report formats and the exit status they go with.
struct ReportTests {
    func differential() async throws -> ReplayReport {
        let missing = try ReplayTarget.inproc(scenario: "nfc-missing").scenario(searchDirectories: [scenarioDirectory])
        return await replay(passportSession(), ReplayOptions(target: .inproc(scenario: "nfc-missing"), scenario: missing))
    }

    @Test func theTextReportGroupsDivergencesByConnectionAndEndsWithASummary() async throws {
        let report = try await differential()
        let text = report.renderText()
        #expect(text.hasPrefix("replay test.bsz -> inproc:nfc-missing (pace asap)\nnormalization: timestamps, event-ids, images\n"))
        #expect(text.contains("\nconn c1: sent 9/9, received 5\n  data-differs capability.query q-1: differs at /payload/data/capabilities/nfc.read"))
        #expect(text.hasSuffix("1 connection(s), 9 sent, 5 received, 2 divergences (1 data-differs, 1 status-differs)\n"), "\(text)")
        let clean = await replay(passportSession(), ReplayOptions(target: .inproc(scenario: nil)))
        #expect(clean.renderText().contains("conn c1: sent 9/9, received 5: no divergences"))
        #expect(clean.renderText().hasSuffix("0 divergences\n"))
    }

    @Test func theJSONReportParsesAndCountsWhatTheTextSays() async throws {
        let report = try await differential()
        let v = try JSONParser().parse(report.renderJSON()).value
        #expect(v["bridgescope"] == "replay-report" && v["reportVersion"] == 1)
        #expect(v["summary"]?["divergences"] == 2)
        #expect(v["summary"]?["byKind"]?["status-differs"] == 1)
        #expect(v["summary"]?["exitStatus"] == 1)
        let d = try #require(v["connections"]?.arrayValue?.first?["divergences"]?.arrayValue)
        #expect(d.map { $0["kind"]?.stringValue } == ["data-differs", "status-differs"])
        #expect(d[1]["expected"] == "success" && d[1]["actual"] == "unsupported" && d[1]["pointer"] == "/payload/status")
        #expect(v["normalization"]?["defaults"] == ["timestamps", "event-ids", "images"])
    }

    @Test func theJUnitReportHasACasePerRequestAndEscapesEverything() async throws {
        let report = try await differential()
        let xml = report.renderJUnit()
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"bridgescope replay test.bsz\""))
        #expect(xml.contains("failures=\"2\""))
        #expect(xml.contains("<testcase classname=\"replay.c1\" name=\"nfc.read n-1\">"))
        #expect(xml.contains("<failure type=\"status-differs\""))
        var hostile = ReplayReport(archive: "a&b.bsz", target: "inproc", pacing: .asap)
        hostile.connections = [.init(id: "<c>", sent: 1, planned: 1, received: 0, timedOut: 0,
                                     divergences: [Divergence(connection: "<c>", kind: .extraEvent, message: "\"x\" <y> & 'z'\u{1}")],
                                     error: nil, uncompared: 0)]
        hostile.skipped = [SkippedPart(connection: nil, messages: 2, reason: "gap")]
        let h = hostile.renderJUnit()
        #expect(h.contains("a&amp;b.bsz") && h.contains("replay conn &lt;c&gt;"))
        #expect(h.contains("&quot;x&quot; &lt;y&gt; &amp; &#39;z&#39;\u{FFFD}"))
        #expect(h.contains("<skipped message=\"2 message(s) skipped: gap\"/>"))
        #expect(!h.contains("\u{1}"))
    }

    @Test func exitStatusIsZeroOneOrTwo() {
        var r = ReplayReport(archive: "a", target: "t", pacing: .asap)
        r.connections = [.init(id: "c", sent: 1, planned: 1, received: 1, timedOut: 0, divergences: [], error: nil, uncompared: 0)]
        #expect(r.exitStatus == 0)
        r.connections[0].divergences = [Divergence(connection: "c", kind: .timing, message: "slow")]
        #expect(r.exitStatus == 1)
        r.connections.append(.init(id: "d", sent: 0, planned: 3, received: 0, timedOut: 0, divergences: [], error: "down", uncompared: 0))
        #expect(r.exitStatus == 2)
        #expect(r.renderText().contains("1 connection error(s)"))
    }
}
