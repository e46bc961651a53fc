import BridgeTestSupport
import Foundation
import Testing

/// `record --webkit` against real WebKit (bridgescope-webkit --inspector): every sample
/// journey recorded over the inspector while the shell records its own page tap; the two
/// hold the same messages, byte for byte, and `analyze` finds the same in both.
@Suite(.serialized, .enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"))
struct WebKitRecordTests {
    struct Journey: CustomStringConvertible, Sendable {
        var page: String
        var host: String?
        var shellStatus: Int32 = 0
        var timeout = 30
        var description: String { page + (host.map { " " + $0 } ?? "") }
    }

    static let journeys: [Journey] = [
        Journey(page: "passport.html"),
        Journey(page: "document-dual.html"),
        Journey(page: "degradation.html", host: "inproc:" + ProjectPaths.root.appendingPathComponent("tools/scenarios/nfc-missing.json").path),
        Journey(page: "degradation.html", host: "inproc:" + ProjectPaths.root.appendingPathComponent("tools/scenarios/nfc-unavailable.json").path),
        Journey(page: "degradation.html", host: "inproc:" + ProjectPaths.root.appendingPathComponent("tools/scenarios/camera-denied.json").path,
                shellStatus: 1),
        Journey(page: "shapes.html"),
        Journey(page: "shapes.html?wrap=1"),
        Journey(page: "shapes.html?reload=1"),
        // A cross-site navigation: the page moves to a new web process (a provisional
        // target, paused, armed with the tap, resumed); its documents are recorded under the next `t`.
        Journey(page: "shapes.html?hop=1"),
        // WebKit never delivers the post holding a function: the page waits until the shell's timeout.
        Journey(page: "unclonable.html", shellStatus: 3, timeout: 8),
    ]

    func scratch(_ name: String) throws -> URL {
        let dir = TestScratch.rootURL.appendingPathComponent("webkit-record-\(name)-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The page's first answer waits `delay` ms (``SlowPageServer``), so the recorder
    /// attaches while the view still shows its first about:blank: the journey's document
    /// is the first the bootstrap script reaches.
    @Test(arguments: journeys)
    func inspectorRecordingEqualsThePageTap(_ journey: Journey) throws {
        let dir = try scratch(journey.page.replacingOccurrences(of: "?", with: "-").replacingOccurrences(of: "=", with: ""))
        let pages = try SlowPageServer(folder: dir)
        let shellArchive = dir.appendingPathComponent("shell.bsz").path
        let inspArchive = dir.appendingPathComponent("insp.bsz").path
        let port = freeTCPPort()
        let shell = Process()
        shell.executableURL = webkitShell
        shell.arguments = [pages.url(journey.page, delay: 2500), "--inspector", "127.0.0.1:\(port)", "--record", shellArchive,
                           "--quiet", "--timeout", String(journey.timeout)] + (journey.host.map { ["--host", $0] } ?? [])
        shell.currentDirectoryURL = ProjectPaths.root
        let shellOut = dir.appendingPathComponent("shell.out")
        _ = FileManager.default.createFile(atPath: shellOut.path, contents: nil)
        let handle = try FileHandle(forWritingTo: shellOut)
        shell.standardOutput = handle
        shell.standardError = handle
        try shell.run()
        defer { if shell.isRunning { kill(shell.processIdentifier, SIGTERM) } }

        // The recorder starts as soon as the inspector lists the page; it ends when the shell does.
        var record = try runBridgescope(["record", "-o", inspArchive, "--webkit", "http://127.0.0.1:\(port)", "--duration", "40"])
        for _ in 0..<200 {
            guard record.status == 2, record.stderr.contains("no WebKit inspector at") || record.stderr.contains("no inspectable page") else { break }
            usleep(50_000)
            record = try runBridgescope(["record", "-o", inspArchive, "--webkit", "http://127.0.0.1:\(port)", "--duration", "40"])
        }
        for _ in 0..<400 where shell.isRunning { usleep(50_000) }
        try? handle.close()
        let shellText = (try? String(contentsOf: shellOut, encoding: .utf8)) ?? ""
        #expect(shell.terminationStatus == journey.shellStatus, "\(shellText)")
        // The app going away ends the recording with one error event naming the endpoint (as --cdp).
        #expect(record.status == 1, "\(record.stderr)")
        #expect(record.stderr.contains("1 error event(s)"), "\(record.stderr)")

        let inspCat = try runBridgescope(["cat", inspArchive])
        let shellCat = try runBridgescope(["cat", shellArchive])
        #expect(inspCat.status == 0 && shellCat.status == 0)
        #expect(inspCat.stdout.contains("\"source\":\"webkit:http://127.0.0.1:\(port)\""))
        let errors = inspCat.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"error\"") }
        #expect(errors.count == 1 && errors[0].contains("WebKit's inspector at http://127.0.0.1:\(port) went away"), "\(errors)")
        let recorded = messages(inspCat.stdout) { _ in true }
        let web = messages(shellCat.stdout) { $0 == "webview-1@web" }
        #expect(recorded.count >= 5, "\(inspCat.stdout)")
        #expect(recorded == web, "inspector:\n\(recorded.joined(separator: "\n"))\nshell:\n\(web.joined(separator: "\n"))")
        if journey.page.contains("reload=1") {
            // A reload is a new document: the journey spans two connections.
            let opens = inspCat.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"open\"") && $0.contains("shapes.html") }
            #expect(opens.count == 2, "\(inspCat.stdout)")
        }
        if journey.page.contains("hop=1") {
            // Two sites, two web processes: the second document is another target's.
            let opens = inspCat.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"open\"") && $0.contains("shapes.html") }
            #expect(opens.count == 2 && opens[0].contains("\"conn\":\"p1.t1.") && opens[1].contains("\"conn\":\"p1.t2.")
                    && opens[1].contains("//localhost:"), "\(inspCat.stdout)")
            #expect(inspCat.stdout.contains("navigation to another process"), "\(inspCat.stdout)")
        }

        // analyze: the same findings as the shell's web side on its own.
        let webLog = dir.appendingPathComponent("web.jsonl")
        let export = try runBridgescope(["export", shellArchive, "--jsonl", "-"])
        try export.stdout.split(separator: "\n").filter { $0.contains("\"conn\":\"webview-1@web\"") }
            .joined(separator: "\n").appending("\n").write(to: webLog, atomically: true, encoding: .utf8)
        let webArchive = dir.appendingPathComponent("web.bsz").path
        let imported = try runBridgescope(["record", "-o", webArchive, "--tap", webLog.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        var recordedFindings = try findings(inspArchive)
        if journey.page.contains("reload=1") || journey.page.contains("hop=1") {
            // One connection per document (as --cdp): the first ends without journey.complete,
            // the second never saw host.ready. The shell's web side is one connection.
            #expect(recordedFindings.contains { $0.hasPrefix("BRG111 ") } && recordedFindings.contains { $0.hasPrefix("BRG114 ") },
                    "\(recordedFindings)")
            recordedFindings.removeAll { $0.hasPrefix("BRG111 ") || $0.hasPrefix("BRG114 ") }
        }
        #expect(try recordedFindings == findings(webArchive))
    }

    /// `--target`, `--count` and `--duration` with `--webkit`, on a WebView that stays open.
    @Test func targetCountAndDurationEndTheRecording() throws {
        let dir = try scratch("options")
        let pages = try SlowPageServer(folder: dir)
        let port = freeTCPPort()
        let shell = try BackgroundProcess(webkitShell.path, [pages.url("shapes.html?delay=3000", delay: 0), "--keep-open",
                                                             "--inspector", "127.0.0.1:\(port)", "--quiet", "--timeout", "120"],
                                          log: dir.appendingPathComponent("shell.log"))
        defer { shell.stop() }
        #expect(waitForPort(port))
        let endpoint = "http://127.0.0.1:\(port)"
        // The page list shows the journey's URL once its document is in.
        var listed = false
        for _ in 0..<100 where !listed {
            listed = (try? runProcess(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", endpoint]))?.stdout.contains("shapes.html") == true
            if !listed { usleep(50_000) }
        }
        #expect(listed, "\(shell.output)")

        let none = try runBridgescope(["record", "-o", dir.appendingPathComponent("none.bsz").path, "--webkit", endpoint,
                                       "--target", "no-such-page"])
        #expect(none.status == 2 && none.stderr.contains("no inspectable page whose URL contains \"no-such-page\""), "\(none.stderr)")

        // The journey starts 3 s after load: its first three messages end the recording.
        let counted = dir.appendingPathComponent("count.bsz").path
        let count = try runBridgescope(["record", "-o", counted, "--webkit", endpoint, "--target", "shapes.html", "--count", "3",
                                        "--duration", "60"])
        #expect(count.status == 0, "\(count.stderr)")
        let cat = try runBridgescope(["cat", counted])
        let records = cat.stdout.split(separator: "\n").filter { $0.contains("\"dir\":") }
        #expect(records.count == 3, "\(cat.stdout)")
        #expect(cat.stdout.contains("\"records\":3,"), "\(cat.stdout)")

        // Nothing more to hear: the duration ends it, with the WebView still open.
        let started = Date()
        let timed = try runBridgescope(["record", "-o", dir.appendingPathComponent("timed.bsz").path, "--webkit", endpoint,
                                        "--target", "shapes.html", "--duration", "2"])
        let took = Date().timeIntervalSince(started)
        #expect(timed.status == 0 && took >= 2 && took < 60, "\(took) s: \(timed.stderr)")
        #expect(shell.process.isRunning, "\(shell.output)")
    }

    /// Errors name the endpoint and what to do, before an archive exists.
    @Test func endpointErrorsSayWhatToDo() throws {
        let dir = try scratch("errors")
        let out = dir.appendingPathComponent("none.bsz").path
        let port = freeTCPPort()
        let refused = try runBridgescope(["record", "-o", out, "--webkit", "http://127.0.0.1:\(port)"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("cannot connect to http://127.0.0.1:\(port)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("WEBKIT_INSPECTOR_HTTP_SERVER=HOST:PORT"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let pages = try SlowPageServer(folder: dir)
        let notWebKit = try runBridgescope(["record", "-o", out, "--webkit", "http://127.0.0.1:\(pages.port)"])
        #expect(notWebKit.status == 2)
        #expect(notWebKit.stderr.contains("is not a WebKit inspector page list"), "\(notWebKit.stderr)")
        let usage = try runBridgescope(["record", "-o", out, "--webkit", "127.0.0.1:9333"])
        #expect(usage.status != 0 && usage.stderr.contains("--webkit takes"), "\(usage.stderr)")
    }

    /// `(t, dir, msg bytes)` of each record of `cat`'s output on a connection `conn` accepts.
    func messages(_ cat: String, conn: (String) -> Bool) -> [String] {
        cat.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("\"dir\":"), let c = line.range(of: "\"conn\":\""),
                  let end = line[c.upperBound...].firstIndex(of: "\""), conn(String(line[c.upperBound..<end])),
                  let t = line.range(of: "\"t\":"), let tEnd = line[t.upperBound...].firstIndex(of: ","),
                  let d = line.range(of: "\"dir\":\""), let m = line.range(of: ",\"msg\":") ?? line.range(of: ",\"text\":") else { return nil }
            return "\(line[t.upperBound..<tEnd]) \(line[d.upperBound...].prefix(3)) \(line[m.lowerBound...].dropLast())"
        }
    }

    /// `rule severity correlationId` of each finding of `analyze --format json`, but the
    /// recorder's capture error for the app going away.
    func findings(_ archive: String) throws -> [String] {
        let r = try runBridgescope(["analyze", "--format", "json", "--accept-incomplete", archive])
        guard let report = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              let sessions = report["sessions"] as? [[String: Any]], let list = sessions.first?["findings"] as? [[String: Any]] else {
            Issue.record("no report: \(r.stdout)\n\(r.stderr)")
            return []
        }
        return list.compactMap { f in
            let message = f["message"] as? String ?? ""
            if f["rule"] as? String == "BRG201", message.contains("went away") { return nil }
            return "\(f["rule"] ?? "") \(f["severity"] ?? "") \(f["correlationId"] as? String ?? "-")"
        }.sorted()
    }
}

/// A free TCP port on 127.0.0.1 (bound and released).
func freeTCPPort() -> Int {
    let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(s) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, len) } }
    _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) } }
    return Int(UInt16(bigEndian: a.sin_port))
}

/// tools/journey served as `bridgescope host --listen` serves it (/journeys/, /bridge.js),
/// where `/slow/MS/PATH` answers PATH after MS milliseconds: the page a recorder must be
/// attached to before it starts (python3's http.server, threaded).
final class SlowPageServer {
    let port: Int
    private let process = Process()

    static let script = """
        import http.server, socketserver, sys, time
        root = sys.argv[1]
        class H(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **k): super().__init__(*a, directory=root, **k)
            def log_message(self, *a): pass
            def do_GET(self):
                parts = self.path.split("/", 3)
                if len(parts) == 4 and parts[1] == "slow" and parts[2].isdigit():
                    time.sleep(int(parts[2]) / 1000)
                    self.path = "/" + parts[3]
                super().do_GET()
        class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
        s = S(("127.0.0.1", 0), H)
        print(s.server_address[1], flush=True)
        s.serve_forever()
        """

    init(folder: URL) throws {
        let root = folder.appendingPathComponent("site")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let journeys = ProjectPaths.root.appendingPathComponent("tools/journey")
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("journeys"), withDestinationURL: journeys)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("bridge.js"),
                                                   withDestinationURL: journeys.appendingPathComponent("bridge.js"))
        let script = folder.appendingPathComponent("slow-server.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, root.path]
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = out.fileHandleForReading.availableData
        port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func url(_ page: String, delay: Int) -> String { "http://127.0.0.1:\(port)/slow/\(delay)/journeys/\(page)" }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
    }
}
