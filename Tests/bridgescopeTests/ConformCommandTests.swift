import BridgeTestSupport
import Foundation
import Testing

/// `bridgescope conform` against the in-process reference host: every case passes, fast,
/// in every format; the case list in docs/CONFORMANCE.md is the suite's.
@Suite struct ConformCommandTests {
    @Test func theReferenceHostPassesEveryCaseQuickly() throws {
        let started = Date()
        let r = try runBridgescope(["conform", "--format", "json"])
        let seconds = Date().timeIntervalSince(started)
        #expect(r.status == 0, "\(r.stderr.prefix(500))")
        #expect(seconds < 10, "conform took \(seconds) s in-process")
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let host = (doc?["hosts"] as? [[String: Any]])?.first
        let cases = host?["cases"] as? [[String: Any]] ?? []
        #expect(cases.count >= 40)
        let bad = cases.filter { !["pass", "informational"].contains($0["verdict"] as? String ?? "") }
        #expect(bad.isEmpty, "\(bad.map { "\($0["id"] ?? "") \($0["verdict"] ?? "") \($0["reason"] ?? "")" })")
    }

    @Test func everyFormatRendersAndCasesSelect() throws {
        let text = try runBridgescope(["conform", "--cases", "2.3", "--cases", "7.*"])
        #expect(text.status == 0 && text.stdout.contains("2.3 ") && text.stdout.contains("7.4 ") && !text.stdout.contains("1.1 "))
        let junit = try runBridgescope(["conform", "--cases", "1", "--format", "junit"])
        #expect(junit.stdout.contains("<testsuites") && junit.stdout.contains("1.10 a response from the web side"))
        let out = TestScratch.rootURL.appendingPathComponent("conform-\(UUID().uuidString).html").path
        let html = try runBridgescope(["conform", "--cases", "2", "--format", "html", "-o", out])
        #expect(html.status == 0)
        let page = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(page.contains("<details>") && page.contains("c2-3b"))
    }

    @Test func badArgumentsExitTwo() throws {
        for bad in [["--format", "xml"], ["--cases", "99"], ["--target", "tcp://x"], ["--response-timeout", "0"]] {
            let r = try runBridgescope(["conform"] + bad)
            #expect(r.status == 2, "\(bad): \(r.stderr)")
        }
    }

    @Test func aHostThatCannotRunAndAFullDiskExitTwo() throws {
        let missing = try runBridgescope(["conform", "--target", "stdio:/nonexistent/host --stdio"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot run"), "\(missing.stderr)")
        // A host that exits at once fails its cases (no crash on any input), and conform
        // survives writing to it.
        let exits = try runBridgescope(["conform", "--target", "stdio:exit 0", "--cases", "1.1", "--cases", "2.10"])
        #expect(exits.status == 1 && exits.stdout.contains("FAIL"), "\(exits.status) \(exits.stdout) \(exits.stderr)")
        let full = try runBridgescope(["conform", "--cases", "1.1", "-o", "/dev/full"])
        #expect(full.status == 2 && full.stderr.contains("error"), "\(full.stderr)")
    }

    @Test func theDocumentListsEveryCase() throws {
        let doc = try String(contentsOf: ProjectPaths.root.appendingPathComponent("docs/CONFORMANCE.md"), encoding: .utf8)
        let list = try runBridgescope(["conform", "--list"]).stdout.split(separator: "\n")
        #expect(list.count >= 40)
        for line in list {
            let f = line.split(separator: "\t")
            let row = "| \(f[0]) | \(f[1]) | \(f[2]) |"
            #expect(doc.contains(row), "docs/CONFORMANCE.md lacks: \(row)")
        }
    }
}
