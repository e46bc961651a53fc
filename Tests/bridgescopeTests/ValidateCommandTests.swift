import BridgeJSON
import BridgeProtocol
import BridgeTestSupport
import Foundation
import Testing

/// The `validate` and `rules` CLI contracts, exercised on the real binary.
@Suite(.serialized)
struct ValidateCommandTests {
    func temp(_ name: String, _ contents: String) throws -> String {
        let dir = TestScratch.rootURL.appendingPathComponent("bridgescope-cli-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    /// Issue 20: 80,000 duplicate keys in one object took 22 s (each finding's line and
    /// column were found by scanning from the start); now one pass places them all, and
    /// the places are the ones a scan per finding gives.
    @Test func eightyThousandDuplicateKeysArePlacedInOnePass() throws {
        let text = "{\n" + Array(repeating: "\"a\":1", count: 80_000).joined(separator: ",\n") + "\n}"
        let report = MessageValidator(layout: .single).validate(Array(text.utf8))
        let duplicates = report.findings.filter { $0.finding.rule == .duplicateKey }
        #expect(duplicates.count == 79_999)
        #expect(duplicates.first?.line == 3 && duplicates.first?.column == 1)
        #expect(duplicates.last?.line == 80_001 && duplicates.last?.column == 1)
    }

    @Test func cleanSessionExitsZero() throws {
        let path = ProjectPaths.root.appendingPathComponent("captures/sample-passport.jsonl").path
        let r = try runBridgescope(["validate", path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("11 message(s), 0 finding(s)"))
    }

    @Test func brokenSessionListsFindingsLikeACompiler() throws {
        let path = ProjectPaths.root.appendingPathComponent("captures/sample-broken.jsonl").path
        let r = try runBridgescope(["validate", path])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.contains { $0.hasPrefix("\(path):3:69: warning:") && $0.hasSuffix("[BRG016 timestamp-in-seconds]") })
        #expect(lines.contains { $0.hasPrefix("\(path):7:1: error:") && $0.contains("not-an-object") })
    }

    @Test func jsonlFormatHasTheContractFields() throws {
        let path = ProjectPaths.root.appendingPathComponent("captures/sample-broken.jsonl").path
        let r = try runBridgescope(["validate", "--format", "jsonl", path])
        #expect(r.status == 1)
        let objects = try r.stdout.split(separator: "\n").map { try JSONParser().parse(String($0)).value }
        #expect(objects.count == 6)
        for o in objects {
            #expect(o.objectValue?.keys == ["file", "line", "offset", "rule", "slug", "severity", "message"])
        }
        let dup = try #require(objects.first { $0["slug"] == "duplicate-key" })
        #expect(dup["line"] == 5)
        #expect(dup["rule"] == "BRG002")
    }

    @Test func singleJSONFileAndSyntaxOnly() throws {
        let one = try temp("one.json", #"{"version":"1.0","correlationId":"a","type":"event","timestamp":1700000000000,"payload":{"action":"a.b"}}"#)
        #expect(try runBridgescope(["validate", one]).status == 0)
        let two = try temp("two.json", "{}\n{}\n")
        let r = try runBridgescope(["validate", "--syntax-only", two])
        #expect(r.status == 1)
        #expect(r.stdout.contains("two.json:2:1: error:"))
        // The same two objects as lines are fine syntactically...
        #expect(try runBridgescope(["validate", "--syntax-only", "--lines", two]).status == 0)
        // ...but not as envelopes.
        #expect(try runBridgescope(["validate", "--lines", two]).status == 1)
    }

    @Test func unreadableFileIsExitTwo() throws {
        let r = try runBridgescope(["validate", "/nonexistent/file.jsonl"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/nonexistent/file.jsonl"))
    }

    @Test func badOptionIsExitTwo() throws {
        #expect(try runBridgescope(["validate", "--format", "xml", "x.json"]).status == 2)
    }

    @Test func rulesMarkdownIsTheCommittedDoc() throws {
        let r = try runBridgescope(["rules", "--markdown"])
        let doc = try String(contentsOf: ProjectPaths.root.appendingPathComponent("docs/RULES.md"), encoding: .utf8)
        #expect(r.status == 0)
        #expect(r.stdout == doc)
        let json = try runBridgescope(["rules", "--json"])
        let value = try JSONParser().parse(json.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).value
        #expect(value["rules"]?.arrayValue?.count == RuleCatalogue.standard.rules.count)
    }

    @Test func versionHelpAndCompletion() throws {
        #expect(try runBridgescope(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
        let help = try runBridgescope(["validate", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--syntax-only"))
        let completion = try runBridgescope(["--generate-completion-script", "bash"])
        #expect(completion.status == 0 && completion.stdout.contains("validate"))
    }
}
