import BridgeTestSupport
import Foundation

/// bridgescope-webkit, built by `make webkit` (and by `make test`) in the nested package.
let webkitShell = ProjectPaths.root.appendingPathComponent("tools/webkit/.build/debug/bridgescope-webkit")
let webkitShellPresent = FileManager.default.isExecutableFile(atPath: webkitShell.path)
/// Set by `make test`: the WebKit suites then fail, rather than skip, without the shell.
let webkitRequired = ProcessInfo.processInfo.environment["BRIDGESCOPE_REQUIRE_WEBKIT"] != nil
let webkitEnabled = webkitShellPresent || webkitRequired

/// Runs `tools/run-journey` with the given engine.
func runEngineJourney(_ journey: String, engine: String, _ args: [String] = [], timeout: Int = 60) throws -> ProcessResult {
    try runProcess(ProjectPaths.root.appendingPathComponent("tools/run-journey"),
                   [journey, "--engine", engine, "--timeout", String(timeout)] + args)
}

/// Runs the shell directly.
func runShell(_ args: [String], environment: [String: String] = [:]) throws -> ProcessResult {
    try runProcess(webkitShell, args, environment: environment)
}

/// The live (not zombie) orphaned processes of WebKit and of the display servers the shell
/// starts: what a run that ended left behind (a running shell's are its children, not
/// orphans, so runs in parallel do not count).
func liveWebKitProcesses() -> [String] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    var found: [String] = []
    for e in entries where Int(e) != nil {
        guard let stat = try? String(contentsOfFile: "/proc/\(e)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
        let name = String(stat[stat.index(after: open)..<close])
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 1, fields[0] != "Z", fields[1] == "1" else { continue }
        if name.hasPrefix("WebKit") || name == "Xvfb" || name == "broadwayd" { found.append("\(e) \(name)") }
    }
    return found.sorted()
}

/// A static HTTP server for tools/journey (at /journeys/ and /bridge.js, the paths
/// `bridgescope host --listen` serves them at), for runs of the shell without run-journey.
final class JourneyPageServer {
    let port: Int
    private let process = Process()
    private let folder: URL

    init() throws {
        folder = TestScratch.rootURL.appendingPathComponent("pages-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let journeys = ProjectPaths.root.appendingPathComponent("tools/journey")
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("journeys"), withDestinationURL: journeys)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("bridge.js"),
                                                   withDestinationURL: journeys.appendingPathComponent("bridge.js"))
        let probe = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c",
            "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
        port = Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        _ = waitForPort(port, seconds: 5)
    }

    func url(_ page: String) -> String { "http://127.0.0.1:\(port)/journeys/\(page)" }

    deinit {
        // (waitUntilExit can hang here: Foundation's run loop wait on a test thread.)
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
        try? FileManager.default.removeItem(at: folder)
    }
}
