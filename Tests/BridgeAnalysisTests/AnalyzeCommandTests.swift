import BridgeJSON
import BridgeTestSupport
import Foundation
import Testing

/// The `bridgescope analyze` contract on the built binary: formats, -o, --fail-on,
/// --timeout, directories, exit codes 0/1/2. Needs `swift build` first.
@Suite(.serialized)
struct AnalyzeCommandTests {
    let fixtures = Fixtures.directory.path

    func tempDir() throws -> URL {
        let dir = TestScratch.rootURL.appendingPathComponent("bridgescope-analyze-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func cleanSessionExitsZeroAndPrintsTheVerdictFirst() throws {
        let r = try runBridgescope(["analyze", Fixtures.path("happy-id-card.ndjson")])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count > 5)
        #expect(lines[1].hasPrefix("PASS"))
        #expect(!r.stdout.contains("\u{1B}["))  // not a terminal: no colour
    }

    @Test func findingsExitOneUnlessTheThresholdIsNever() throws {
        let path = Fixtures.path("unanswered-request.trigger.ndjson")
        #expect(try runBridgescope(["analyze", path]).status == 1)
        #expect(try runBridgescope(["analyze", "--fail-on", "never", path]).status == 0)
        let warnOnly = Fixtures.path("late-response.trigger.ndjson")
        #expect(try runBridgescope(["analyze", warnOnly]).status == 0)
        #expect(try runBridgescope(["analyze", "--fail-on", "warning", warnOnly]).status == 1)
        #expect(try runBridgescope(["analyze", "--timeout", "camera.selfie.capture=60000", "--fail-on", "warning", warnOnly]).status == 0)
    }

    @Test func usageAndIOErrorsExitTwo() throws {
        let path = Fixtures.path("happy-id-card.ndjson")
        let bad = [
            ["analyze", "--fail-on", "sometimes", path],
            ["analyze", "--timeout", "nfc.read", path],
            ["analyze", "--format", "pdf", path],
            ["analyze", "/nonexistent/session.ndjson"],
            ["analyze", "--jobs", "0", path],
        ]
        for args in bad {
            let r = try runBridgescope(args)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(!r.stderr.isEmpty)
        }
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = dir.appendingPathComponent("s.bsz").path
        _ = FileManager.default.createFile(atPath: archive, contents: Data())
        let r = try runBridgescope(["analyze", archive, path])
        #expect(r.status == 2)
        #expect(r.stderr.contains(".bsz"))
        #expect(r.stdout.contains("PASS"))  // the readable input is still reported
    }

    /// An archive made by `bridgescope record --tap` from a tap log gives the report of
    /// the tap log, with archive `seq` numbers as record numbers.
    @Test func archiveRecordedFromATapLogGivesTheSameFindings() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tap = dir.appendingPathComponent("s.ndjson").path, archive = dir.appendingPathComponent("s.bsz").path
        try Data(ArchiveInputTests.session().joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: tap))
        let rec = try runBridgescope(["record", "-o", archive, "--tap", tap])
        #expect(rec.status == 0, "\(rec.stderr)")
        let a = try runBridgescope(["analyze", "--format", "json", archive])
        let t = try runBridgescope(["analyze", "--format", "json", tap])
        #expect(a.status == 1 && t.status == 1, "\(a.stderr)")
        let av = try JSONParser().parse(a.stdout).value, tv = try JSONParser().parse(t.stdout).value
        let asession = av["sessions"]?.arrayValue?.first, tsession = tv["sessions"]?.arrayValue?.first
        #expect(asession?["ruleCounts"] != nil && asession?["ruleCounts"] == tsession?["ruleCounts"])
        let unanswered = asession?["findings"]?.arrayValue?.first { $0["slug"] == "unanswered-request" }
        #expect(unanswered?["records"] == [8])
        #expect(unanswered?["connection"] == "c1")
    }

    @Test func directoryGivesOneReportPerSessionPlusAnAggregate() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["happy-id-card.ndjson", "busy-retry-storm.trigger.ndjson", "host-silent.trigger.ndjson"] {
            try FileManager.default.copyItem(atPath: Fixtures.path(name), toPath: dir.appendingPathComponent(name).path)
        }
        let out = dir.appendingPathComponent("report.json").path
        let r = try runBridgescope(["analyze", "--format", "json", "--jobs", "2", "-o", out, dir.path])
        #expect(r.status == 1, "\(r.stderr)")
        let v = try JSONParser().parse(String(contentsOfFile: out, encoding: .utf8)).value
        let sources = v["sessions"]?.arrayValue?.compactMap { $0["source"]?.stringValue } ?? []
        #expect(sources.map { ($0 as NSString).lastPathComponent } == ["busy-retry-storm.trigger.ndjson", "happy-id-card.ndjson", "host-silent.trigger.ndjson"])
        #expect(v["aggregate"]?["sessions"] == 3)
        #expect(v["verdict"] == "fail")
        let text = try runBridgescope(["analyze", dir.path])
        #expect(text.stdout.contains("Aggregate: 3 sessions"))
    }

    @Test func everyFormatWritesAFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = Fixtures.path("two-connections.ndjson")
        for (format, check) in [("html", "<svg class=\"lanes\""), ("junit", "<testsuites"), ("json", "\"bridgescopeReport\": 1"), ("text", "Journey on connection c2")] {
            let out = dir.appendingPathComponent("report.\(format)").path
            let r = try runBridgescope(["analyze", "--format", format, "-o", out, path])
            #expect(r.status == 1)
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.contains("wrote \(out)"))
            #expect(try String(contentsOfFile: out, encoding: .utf8).contains(check), "\(format)")
        }
    }

    /// Opens the HTML report in headless Chromium when it is installed
    /// (`tools/setup.sh --with-browser`): the DOM holds the lanes and the findings table,
    /// and the page logs no console error.
    @Test(.enabled(if: RequiredTools.chromiumEnabled, "chromium is not installed: run tools/setup.sh --with-browser"))
    func htmlOpensInHeadlessChromium() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("report.html").path
        _ = try runBridgescope(["analyze", "--format", "html", "-o", out, Fixtures.path("two-connections.ndjson")])
        let r = try runProcess(URL(fileURLWithPath: RequiredTools.chromium ?? "/usr/bin/chromium"),
                               ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.path)/profile",
                                "--enable-logging=stderr", "--v=0", "--dump-dom", "file://\(out)"])
        #expect(r.stdout.contains("<svg class=\"lanes\" data-connection=\"c1\""))
        #expect(r.stdout.contains("<table class=\"findings\">"))
        let consoleErrors = r.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") && $0.contains("ERROR") || $0.contains("Uncaught") }
        #expect(consoleErrors.isEmpty, "\(consoleErrors)")
    }
}
