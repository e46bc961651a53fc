import BridgeAnalysis
import BridgeJSON
import BridgeProtocol
import Foundation
import FoundationXML
import Testing

/// JUnit XML is well formed with one test case per rule; the HTML report is one
/// self-contained, well-formed document with the expected elements; JSON parses and
/// carries its schema version.
struct RendererTests {
    func batch(_ names: [String]) throws -> AnalysisBatch {
        AnalysisBatch(reports: try names.map { try Fixtures.analyze($0) })
    }

    @Test func junitIsWellFormedWithOneTestCasePerRuleAndOneForCompleteInput() throws {
        let b = try batch(["unanswered-request.trigger.ndjson", "late-response.trigger.ndjson", "happy-id-card.ndjson"])
        let xml = JUnitReportRenderer().render(b)
        let doc = try XMLDocument(xmlString: xml)
        let suites = try doc.nodes(forXPath: "/testsuites/testsuite")
        #expect(suites.count == 3)
        let ruleCount = RuleCatalogue.standard.rules.count
        for s in suites {
            #expect(try s.nodes(forXPath: "testcase").count == ruleCount + 1)
        }
        // fail-on error: unanswered-request fails, late-response (warning) does not.
        let failed = try doc.nodes(forXPath: "//testcase[failure]/@name").compactMap(\.stringValue)
        #expect(failed == ["BRG100 unanswered-request"])
        let late = try doc.nodes(forXPath: "//testcase[@name='BRG101 late-response']/system-out")
        #expect(late.count == 1)
        #expect(try doc.nodes(forXPath: "/testsuites/@failures").first?.stringValue == "1")

        let strict = try XMLDocument(xmlString: JUnitReportRenderer(options: RenderOptions(threshold: .warning)).render(b))
        #expect(try strict.nodes(forXPath: "//testcase[failure]").count == 2)
        let never = try XMLDocument(xmlString: JUnitReportRenderer(options: RenderOptions(threshold: .never)).render(b))
        #expect(try never.nodes(forXPath: "//testcase[failure]").isEmpty)
    }

    @Test func junitEscapesHostileTextAndReportsUnreadableInputs() throws {
        var b = TapBuilder()
        b.start()
        b.request(100, "<&\\\"'\\u0001]]>", "app.ping")
        let report = try Fixtures.analyze(text: b.text)
        let batch = AnalysisBatch(reports: [report], failures: [InputFailure(path: "a<b>.ndjson", error: AnalysisError(.unreadableInput, "a<b>: no"))])
        let doc = try XMLDocument(xmlString: JUnitReportRenderer().render(batch))
        #expect(try doc.nodes(forXPath: "//testcase/error").count == 1)
        let failure = try #require(try doc.nodes(forXPath: "//failure").first?.stringValue)
        #expect(failure.contains("<&\"'\u{FFFD}]]>"))
        let html = HTMLReportRenderer().render(batch)
        _ = try XMLDocument(xmlString: html)
        #expect(!html.contains("<&"))
    }

    @Test func htmlIsSelfContainedWithLanesHistogramsAndFindings() throws {
        let b = try batch(["two-connections.ndjson", "busy-retry-storm.trigger.ndjson"])
        let html = HTMLReportRenderer().render(b)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("src="))
        let doc = try XMLDocument(xmlString: html)
        func count(_ xpath: String) throws -> Int { try doc.nodes(forXPath: xpath).count }
        // One swim-lane timeline per connection (2 + 1), each with a web and a host lane.
        #expect(try count("//svg[@class='lanes']") == 3)
        #expect(try count("//svg[@class='lanes']/g[contains(@class,'lane-web')]") == 3)
        #expect(try count("//svg[@class='lanes']/g[contains(@class,'lane-host')]") == 3)
        // The unanswered capture on c1 is drawn open-ended; answered requests are joined.
        #expect(try count("//svg[@data-connection='c1']//g[contains(@class,'open-ended')]") >= 1)
        #expect(try count("//g[contains(@class,'request') and contains(@class,'outcome-success')]/polyline") >= 4)
        // Findings are marked on the timeline and listed in the table.
        #expect(try count("//path[contains(@class,'finding-marker')]") == 3)
        #expect(try count("//table[@class='findings']/tbody/tr") == 3)
        #expect(try count("//table[@class='findings']/tbody/tr[@data-rule='BRG120']") == 1)
        // A latency histogram per action per session (2 + 2) and the aggregate section.
        #expect(try count("//svg[@class='histogram']") == 4)
        #expect(try count("//section[@id='aggregate']") == 1)
        #expect(try doc.nodes(forXPath: "//span[@id='verdict']").first?.stringValue == "FAIL")
    }

    @Test func htmlWithNoFindingsSaysSo() throws {
        let html = HTMLReportRenderer().render(try batch(["happy-id-card.ndjson"]))
        let doc = try XMLDocument(xmlString: html)
        #expect(try doc.nodes(forXPath: "//p[@id='no-findings']").count == 1)
        #expect(try doc.nodes(forXPath: "//span[@id='verdict']").first?.stringValue == "PASS")
    }

    @Test func jsonCarriesSchemaVersionAndEveryFindingField() throws {
        let json = JSONReportRenderer().render(try batch(["malformed-traffic.ndjson"]))
        let v = try JSONParser().parse(json).value
        #expect(v["bridgescopeReport"] == 1)
        let session = try #require(v["sessions"]?.arrayValue?.first)
        let findings = try #require(session["findings"]?.arrayValue)
        #expect(findings.count == 6)
        for f in findings {
            #expect(f.objectValue?.keys == ["rule", "slug", "severity", "connection", "records", "correlationId", "offset", "time", "message"])
        }
        #expect(session["summary"]?["undecodable"] == 2)
        #expect(v["aggregate"]?["sessions"] == 1)
    }
}
