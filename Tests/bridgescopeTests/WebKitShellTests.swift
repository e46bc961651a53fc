import BridgeTestSupport
import Foundation
import Testing

/// bridgescope-webkit on its own: hosts behind the real bridge, both-sided recordings,
/// what the real bridge carries, exit statuses, and the processes it leaves (none).
@Suite(.serialized, .enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"))
struct WebKitShellTests {
    func scratch(_ name: String) throws -> URL {
        let dir = TestScratch.rootURL.appendingPathComponent("webkit-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func theShellIsBuilt() {
        #expect(webkitShellPresent, "make test builds it (swift build --package-path tools/webkit)")
    }

    /// Any host that speaks `host --stdio`'s contract runs behind the real bridge: the
    /// reference host as a child process, and the Python host written apart from it.
    @Test(arguments: [
        ProjectPaths.binary.path + " host --stdio",
        "python3 " + ProjectPaths.root.appendingPathComponent("tools/hosts/python/bridge_host.py").path,
    ])
    func stdioHostBehindTheRealBridge(_ command: String) throws {
        let pages = try JourneyPageServer()
        let r = try runShell([pages.url("passport.html"), "--host", "stdio:" + command, "--timeout", "30"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        for action in ["host.ready", "capability.query", "camera.document.capture", "nfc.read", "camera.selfie.capture"] {
            #expect(r.stdout.contains(action), "\(action) missing\n\(r.stdout)")
        }
    }

    /// A stdio host's line that is not JSON reaches the page as a string, never as code: a
    /// line that would post journey.complete if evaluated leaves the journey unfinished.
    @Test func aHostLineThatIsNotJSONIsNeverEvaluated() throws {
        let pages = try JourneyPageServer()
        let hostile = #"0); window.webkit.messageHandlers.gbgBridge.postMessage({version:'1.0',correlationId:'x',type:'event',timestamp:1,payload:{action:'journey.complete',data:{}}}); (0"#
        let script = dirOfScratch().appendingPathComponent("hostile-host.sh")
        try "printf '%s\\n' \"$(cat \"$0.line\")\"; cat > /dev/null\n".write(to: script, atomically: true, encoding: .utf8)
        try hostile.write(toFile: script.path + ".line", atomically: true, encoding: .utf8)
        let r = try runShell([pages.url("unclonable.html"), "--host", "stdio:sh \(script.path)", "--timeout", "4"])
        #expect(r.status == 3, "\(r.stdout)\n\(r.stderr)")
        #expect(!r.stdout.contains("journey complete"), "\(r.stdout)")
        #expect(r.stderr.contains("not JSON; passed to the page as a string"), "\(r.stderr)")
    }

    /// `--keep-open`: the journey's end does not end the run (a tool drives the page
    /// through the inspector); the timeout then ends it with exit 0.
    @Test func keepOpenOutlivesTheJourneyAndEndsWithTheTimeout() throws {
        let pages = try JourneyPageServer()
        let r = try runShell([pages.url("passport.html"), "--keep-open", "--timeout", "6"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("journey.complete"), "the journey ran to its end first: \(r.stdout.suffix(600))")
        #expect(r.stdout.contains("kept open for 6 s (--keep-open)"), "\(r.stdout.suffix(600))")
    }

    /// A stdio host whose output ends (it exited) ends the shell with exit 1, as an app
    /// whose host crashed: the page can get no answer any more.
    @Test func aStdioHostThatExitsEndsTheShellAsACrash() throws {
        let pages = try JourneyPageServer()
        let r = try runShell([pages.url("passport.html"), "--host", "stdio:exit 0", "--timeout", "20"])
        #expect(r.status == 1, "\(r.stdout)\n\(r.stderr)")
        #expect((r.stdout + r.stderr).contains("the host's output ended"), "\(r.stdout)\n\(r.stderr)")
    }

    func dirOfScratch() -> URL { (try? scratch("hostile")) ?? TestScratch.rootURL }

    /// The same hostile bodies through real WebKit and through the shim in Chromium: the
    /// host side sees the same JSON (member order aside), or nothing, for every probe.
    @Test(.enabled(if: chromiumEnabled, "chromium is not installed")) func theShimCarriesWhatWebKitCarries() throws {
        let dir = try scratch("differential")
        let native = dir.appendingPathComponent("native.jsonl").path
        let transcript = dir.appendingPathComponent("chromium.jsonl").path
        let pages = try JourneyPageServer()
        let wk = try runShell([pages.url("differential.html"), "--host", "stdio:cat > '\(native)'", "--timeout", "30", "--quiet"])
        #expect(wk.status == 0, "\(wk.stdout)\n\(wk.stderr)")
        let cr = try runEngineJourney("differential", engine: "chromium", ["--transcript", transcript, "--quiet"])
        #expect(cr.status == 0, "\(cr.stdout)\n\(cr.stderr)")
        let compare = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                     ["python3", ProjectPaths.root.appendingPathComponent("tools/webkit/differential/compare.py").path,
                                      native, transcript])
        #expect(compare.status == 0, "\(compare.stdout)\n\(compare.stderr)")
        // The probes that must not cross did not, on either side; the others did.
        for line in compare.stdout.split(separator: "\n") {
            let name = line.split(separator: " ").first.map(String.init) ?? ""
            if ["function", "nested-function", "symbol"].contains(name) {
                #expect(line.contains("webkit=not delivered"), "\(line)")
            } else {
                #expect(!line.contains("not delivered"), "\(line)")
            }
        }
        #expect(compare.stdout.split(separator: "\n").count == 23, "\(compare.stdout)")
    }

    /// `--record` writes both sides: what the page's tap saw (`webview-1@web`) and what the
    /// host's side saw (`webview-1@native`); every web-side post reached the native side.
    @Test func recordHoldsBothSides() throws {
        let dir = try scratch("record")
        let archive = dir.appendingPathComponent("passport.bsz").path
        let r = try runEngineJourney("passport", engine: "webkit", ["--record", archive, "--quiet"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let cat = try runBridgescope(["cat", archive])
        #expect(cat.status == 0, "\(cat.stderr)")
        var web: [String] = [], native: [String] = []
        for line in cat.stdout.split(separator: "\n") {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  o["dir"] as? String == "w2h", let msg = o["msg"] as? [String: Any],
                  let id = msg["correlationId"] as? String else { continue }
            if o["conn"] as? String == "webview-1@web" { web.append(id) }
            if o["conn"] as? String == "webview-1@native" { native.append(id) }
        }
        #expect(web.count >= 8, "\(cat.stdout)")
        #expect(web.sorted() == native.sorted(), "web \(web)\nnative \(native)")
        #expect(cat.stdout.contains("\"event\":\"open\",\"conn\":\"webview-1@web\""))
        #expect(cat.stdout.contains("\"event\":\"close\",\"conn\":\"webview-1@native\""))
    }

    /// A page that looks the handler up for every post, past garbage collections (WebKit
    /// then makes its JavaScript object afresh): the page's tap records every post.
    @Test func thePageTapRecordsEveryPostOfALongSession() throws {
        let dir = try scratch("stress")
        let archive = dir.appendingPathComponent("stress.bsz").path
        let pages = try JourneyPageServer()
        let r = try runShell([pages.url("stress.html?n=1000"), "--record", archive, "--quiet", "--timeout", "60"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let cat = try runBridgescope(["cat", archive]).stdout
        let web = cat.components(separatedBy: "\"dir\":\"w2h\",\"conn\":\"webview-1@web\",\"msg\"").count - 1
        let native = cat.components(separatedBy: "\"dir\":\"w2h\",\"conn\":\"webview-1@native\",\"msg\"").count - 1
        #expect(web == 1001 && native == 1001, "web \(web), native \(native)")
    }

    /// The journey that hangs on every iPhone: `analyze` of the shell's recording names the
    /// request the page posted and the host never received, and says why.
    @Test func analyzeNamesThePostWebKitDidNotDeliver() throws {
        let dir = try scratch("unclonable")
        let archive = dir.appendingPathComponent("unclonable.bsz").path
        let r = try runEngineJourney("unclonable", engine: "webkit", ["--record", archive, "--quiet"], timeout: 5)
        #expect(r.status == 3, "\(r.stdout)\n\(r.stderr)")
        let a = try runBridgescope(["analyze", archive])
        #expect(a.status == 1, "\(a.stdout)\n\(a.stderr)")
        let line = a.stdout.split(separator: "\n").first { $0.contains("BRG300 bridge-not-delivered") }.map(String.init) ?? ""
        #expect(line.contains("request camera.document.capture"), "\(a.stdout)")
        #expect(line.contains("payload.data.onProgress: a function"), "\(a.stdout)")
        // The fixed journey crosses whole: no crossing finding.
        let fixed = dir.appendingPathComponent("fixed.bsz").path
        let f = try runEngineJourney("unclonable", engine: "webkit", ["--record", fixed, "--quiet", "--page-args", "fixed=1"])
        #expect(f.status == 0, "\(f.stdout)\n\(f.stderr)")
        let fa = try runBridgescope(["analyze", fixed])
        #expect(fa.status == 0, "\(fa.stdout)")
        #expect(!fa.stdout.contains("BRG30"), "\(fa.stdout)")
    }

    /// BRG301 on real WebKit: a request whose data holds a BigInt, `undefined` and a Date
    /// (unclonable.html?members=1) arrives, changed; `analyze` of the shell's recording names
    /// each changed member, and the native side's record shows WebKit made those changes.
    /// 2^53+1 is not among them: the page's number is 2^53 already (a JavaScript number
    /// cannot hold 2^53+1), and that is what crosses.
    @Test func analyzeNamesEachMemberTheCrossingChanged() throws {
        let dir = try scratch("members")
        let archive = dir.appendingPathComponent("members.bsz").path
        let r = try runEngineJourney("unclonable", engine: "webkit", ["--record", archive, "--quiet", "--page-args", "members=1"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let a = try runBridgescope(["analyze", archive, "--format", "json"])
        #expect(a.status == 0, "BRG301 is a warning: \(a.stdout)\n\(a.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(a.stdout.utf8)) as? [String: Any]
        let findings = (report?["sessions"] as? [[String: Any]] ?? []).flatMap { $0["findings"] as? [[String: Any]] ?? [] }
        let crossing = findings.filter { ($0["rule"] as? String ?? "").hasPrefix("BRG30") }
        #expect(crossing.count == 1 && crossing.first?["rule"] as? String == "BRG301", "\(crossing)")
        let message = crossing.first?["message"] as? String ?? ""
        #expect(message.hasPrefix("request camera.document.capture"), "\(message)")
        #expect(message.contains("changed crossing from the page to the host"), "\(message)")
        for change in ["payload.data.sessionNonce: a BigInt, the member was dropped",
                       "payload.data.retryAfter: undefined, the member was dropped",
                       "payload.data.requestedAt: a Date, became an ISO string"] {
            #expect(message.contains(change), "\(change) missing: \(message)")
        }
        #expect(!message.contains("frameCounter"), "\(message)")
        // What each side recorded of the request.
        var data: [String: [String: Any]] = [:]
        for line in try runBridgescope(["cat", archive]).stdout.split(separator: "\n") {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  o["dir"] as? String == "w2h", let conn = o["conn"] as? String, let msg = o["msg"] as? [String: Any],
                  let payload = msg["payload"] as? [String: Any], payload["action"] as? String == "camera.document.capture" else { continue }
            data[conn] = payload["data"] as? [String: Any] ?? [:]
        }
        let native = data["webview-1@native"] ?? [:]
        #expect(Set(native.keys) == ["documentType", "side", "requestedAt", "frameCounter"], "\(native)")
        #expect(native["requestedAt"] as? String == "2026-11-29T12:00:00.005Z", "\(native)")
        for side in ["webview-1@web", "webview-1@native"] {
            #expect((data[side]?["frameCounter"] as? NSNumber)?.int64Value == 9_007_199_254_740_992, "\(side): \(data[side] ?? [:])")
        }
    }

    /// `record --cdp` in Chromium keeps the tap's crossing notes as `crossing` events (the
    /// shim converts as WebKit does), not as errors.
    @Test(.enabled(if: chromiumEnabled, "chromium is not installed")) func cdpRecordingKeepsCrossingNotes() throws {
        let dir = try scratch("cdp-crossing")
        let archive = dir.appendingPathComponent("cdp.bsz").path
        let r = try runEngineJourney("unclonable", engine: "chromium", ["--record", archive, "--quiet"], timeout: 6)
        #expect(r.status == 3, "\(r.stdout)\n\(r.stderr)")
        let cat = try runBridgescope(["cat", archive])
        let crossing = cat.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"crossing\"") }
        #expect(crossing.count == 1, "\(cat.stdout)")
        #expect(crossing.first?.contains("not delivered: payload.data.onProgress: a function") == true)
        #expect(!cat.stdout.contains("\"event\":\"error\""), "\(cat.stdout)")
    }

    /// A killed shell leaves an archive whose complete records read back, and no live
    /// WebKit or display server process. (Zombies are not counted here: the killed shell
    /// cannot wait for its children, and PID 1 may never reap them, docs/WEBKIT.md.)
    @Test func sigkillLeavesAReadableArchiveAndNoProcesses() throws {
        let leftovers = LeftoverProcesses()
        let dir = try scratch("sigkill")
        let archive = dir.appendingPathComponent("killed.bsz").path
        let pages = try JourneyPageServer()
        let p = Process()
        p.executableURL = webkitShell
        p.arguments = [pages.url("unclonable.html"), "--record", archive, "--timeout", "60", "--quiet"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // The page posts its query and the request WebKit drops within a second of loading.
        var seen = false
        for _ in 0..<100 where !seen {
            usleep(100_000)
            let cat = try runBridgescope(["cat", archive])
            seen = cat.stdout.contains("camera.document.capture")
        }
        #expect(seen, "the web side's request never reached the archive")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let cat = try runBridgescope(["cat", archive])
        #expect(cat.stdout.contains("\"conn\":\"webview-1@native\""), "\(cat.stderr)")
        #expect(cat.stdout.contains("capability.query"), "\(cat.stdout)")
        let left = leftovers.appeared(countingZombies: false, waiting: 5)
        #expect(left.isEmpty, "left running: \(left)")
    }

    /// Every run ends with the processes it started, and waits for them: WebKit's and the
    /// display server, none left running or unreaped (a zombie under PID 1).
    @Test func aRunLeavesNoProcess() throws {
        let leftovers = LeftoverProcesses()
        let r = try runEngineJourney("passport", engine: "webkit", ["--quiet"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let left = leftovers.appeared()
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// `--inspector HOST:PORT` starts WebKit's inspector server: its page list (HTML, no
    /// `/json`) names the page and its socket; SIGTERM then ends the run (exit 3).
    @Test func inspectorServerListsThePage() throws {
        let pages = try JourneyPageServer()
        let probe = try runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c",
            "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
        let port = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let p = Process()
        p.executableURL = webkitShell
        p.arguments = [pages.url("unclonable.html"), "--inspector", "127.0.0.1:\(port)", "--timeout", "60", "--quiet"]
        let errors = try scratch("inspector").appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = try FileHandle(forWritingTo: errors)
        try p.run()
        var list = ""
        for _ in 0..<100 where !list.contains("/socket/") {
            usleep(100_000)
            list = (try? runProcess(URL(fileURLWithPath: "/usr/bin/curl"), ["-fs", "http://127.0.0.1:\(port)/"]).stdout) ?? ""
        }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(list.contains("Inspectable targets"), "\(list)")
        #expect(list.contains("/socket/") && list.contains("/WebPage"), "\(list)")
        #expect(p.terminationStatus == 3)
        // Ended by the signal, not by its timeout (the test runner starts children with
        // SIGTERM blocked; the shell unblocks it).
        #expect(try String(contentsOf: errors, encoding: .utf8).contains("stopped by a signal"))
    }

    @Test func usageAndSetUpErrorsExitTwo() throws {
        let none = try runShell([])
        #expect(none.status == 2)
        #expect(none.stderr.contains("usage: bridgescope-webkit URL"))
        let badHost = try runShell(["about:blank", "--host", "tcp:1234"])
        #expect(badHost.status == 2)
        #expect(badHost.stderr.contains("--host must be inproc, inproc:SCENARIO or stdio:'CMD'"))
        let missing = try runShell(["no-such-page.html"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("neither a URL nor an existing file"))
        let scenario = try runShell(["about:blank", "--host", "inproc:no-such-scenario"])
        #expect(scenario.status == 2, "\(scenario.stderr)")
        // (Not port 1: WebKit blocks such ports without a load-failed signal.)
        let probe = try runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c",
            "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
        let port = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let unreachable = try runShell(["http://127.0.0.1:\(port)/", "--timeout", "20"])
        #expect(unreachable.status == 2, "\(unreachable.stdout)\n\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("cannot load http://127.0.0.1:\(port)/"))
        let help = try runShell(["--help"])
        #expect(help.status == 0)
        let timeout = try runShell(["about:blank", "--timeout", "1", "--quiet"])
        #expect(timeout.status == 3)
        #expect(timeout.stderr.contains("timed out after 1 s"))
    }
}
