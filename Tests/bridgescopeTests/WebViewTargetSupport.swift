import BridgeTestSupport
import Foundation

/// A process a test keeps running beside it (a browser, the WebKit shell, a host): its
/// output goes to a file, and it is stopped (SIGTERM, then SIGKILL) with its process group.
final class BackgroundProcess: @unchecked Sendable {
    let process = Process()
    let log: URL

    /// Starts `executable`; Foundation makes it a process group leader (so `setsid` would
    /// fork and leave), and a browser's helpers stay in its group and go with it.
    init(_ executable: String, _ arguments: [String], log: URL, environment: [String: String] = [:]) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": TestScratch.root]) { $1 }.merging(environment) { $1 }
        process.currentDirectoryURL = ProjectPaths.root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Stops the group: SIGTERM, up to 5 s to end (the WebKit shell waits for its own
    /// children), then SIGKILL. (waitUntilExit can hang on a test thread: polled.)
    func stop() {
        let pid = process.processIdentifier
        guard pid > 1 else { return }   // never started: kill(-0) would be our own group
        guard process.isRunning else { kill(-pid, SIGKILL); return }
        let group = kill(-pid, SIGTERM) == 0
        if !group { kill(pid, SIGTERM) }
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
        if process.isRunning { _ = group ? kill(-pid, SIGKILL) : kill(pid, SIGKILL) }
        if group { kill(-pid, SIGKILL) }   // helpers that outlived their leader
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
    }

    deinit { stop() }
}

/// Waits until something accepts connections on 127.0.0.1:`port` (false after `seconds`).
func waitForPort(_ port: Int, seconds: Double = 20) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
        close(s)
        if ok { return true }
        usleep(50_000)
    }
    return false
}

/// The WebView targets of issue 41, started for a test: the reference host behind
/// headless Chromium with the shim (a tab per shape, `cdp:…#env=ios|android`), and
/// bridgescope-webkit with its host (`webkit:`), each on tools/journey/target.html.
final class WebViewTargets: @unchecked Sendable {
    var processes: [BackgroundProcess] = []
    let folder: URL
    private(set) var cdp = ""
    private(set) var webkit = ""

    init(_ name: String) throws {
        folder = TestScratch.rootURL.appendingPathComponent("webview-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// `bridgescope host --listen` and Chromium on its target page, both shapes.
    func startChromium() throws {
        let hostPort = freeTCPPort(), cdpPort = freeTCPPort()
        processes.append(try BackgroundProcess(ProjectPaths.binary.path, ["host", "--listen", "127.0.0.1:\(hostPort)"],
                                               log: folder.appendingPathComponent("host.log")))
        guard waitForPort(hostPort) else { throw Failure("host --listen did not start: \(processes.last!.output)") }
        let page = "http://127.0.0.1:\(hostPort)/journeys/target.html"
        let profile = folder.appendingPathComponent("chromium")
        let browser = chromiumCandidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "chromium"
        processes.append(try BackgroundProcess(browser, ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-dev-shm-usage", "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--remote-debugging-port=\(cdpPort)", "--user-data-dir=\(profile.path)", page + "?env=android"],
            log: folder.appendingPathComponent("chromium.log"), environment: ["TMPDIR": folder.path]))
        guard waitForPort(cdpPort) else { throw Failure("Chromium did not open its DevTools port: \(processes.last!.output.suffix(800))") }
        // Headless Chromium takes one URL: the iOS tab is opened over /json/new.
        let open = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1], method='PUT'), timeout=10).read()",
            "http://127.0.0.1:\(cdpPort)/json/new?\(page)?env=ios"])
        let failure: String? = open.status == 0 ? nil : open.stderr
        if let failure { throw Failure("cannot open the iOS tab: \(failure)") }
        cdp = "cdp:http://127.0.0.1:\(cdpPort)"
    }

    /// bridgescope-webkit kept open on the target page, with `host` (default: inproc).
    func startWebKit(host: String? = nil) throws {
        let port = freeTCPPort()
        let page = ProjectPaths.root.appendingPathComponent("tools/journey/target.html").path
        processes.append(try BackgroundProcess(webkitShell.path, [page, "--keep-open", "--inspector", "127.0.0.1:\(port)",
            "--quiet", "--timeout", "600"] + (host.map { ["--host", $0] } ?? []),
            log: folder.appendingPathComponent("webkit-\(port).log")))
        guard waitForPort(port) else { throw Failure("bridgescope-webkit did not open its inspector: \(processes.last!.output.suffix(800))") }
        webkit = "webkit:http://127.0.0.1:\(port)"
    }

    func stop() {
        for p in processes.reversed() { p.stop() }
        processes = []
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}
