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

/// A process of WebKit or of a display server the shell starts (Xvfb, broadwayd) that is
/// orphaned to PID 1: what a run that ended left behind, running or a zombie. PID 1 on
/// these machines reaps late or never (this one after about 2 s), so a child the shell
/// did not wait for shows as `<defunct>` under PID 1 right after the run. (A running
/// shell's processes are its children, not orphans, so runs in parallel do not count.)
/// A process is its PID and start time: a reused PID is another.
struct OrphanProcess: Hashable, CustomStringConvertible {
    var pid: Int
    /// Clock ticks after boot (`/proc/PID/stat` field 22).
    var start: UInt64
    var name: String
    var zombie: Bool
    var description: String { "\(pid) \(name)" + (zombie ? " <defunct>" : "") }

    static func == (a: Self, b: Self) -> Bool { a.pid == b.pid && a.start == b.start }
    func hash(into h: inout Hasher) { h.combine(pid); h.combine(start) }

    /// The WebKit and display-server processes whose parent is PID 1, zombies included.
    static func all() -> Set<OrphanProcess> {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var found: Set<OrphanProcess> = []
        for e in entries {
            guard let pid = Int(e), let stat = try? String(contentsOfFile: "/proc/\(e)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            // After the name: state (field 3), ppid (4), ..., starttime (22).
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 19, fields[1] == "1",
                  name.hasPrefix("WebKit") || name == "Xvfb" || name == "broadwayd" else { continue }
            found.insert(OrphanProcess(pid: pid, start: UInt64(fields[19]) ?? 0, name: name, zombie: fields[0] == "Z"))
        }
        return found
    }
}

/// What a run leaves behind: the orphaned WebKit and display-server processes (running or
/// zombies) that appeared after this snapshot was taken. Those from before (older runs,
/// other tests' SIGKILLs) do not count.
struct LeftoverProcesses {
    let before = OrphanProcess.all()

    /// The orphans that appeared since the snapshot, sorted; zombies too unless
    /// `countingZombies` is false. Waits up to `seconds` for the list to empty (what a
    /// killed shell's children take to end).
    func appeared(countingZombies: Bool = true, waiting seconds: Double = 0) -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let new = OrphanProcess.all().subtracting(before).filter { countingZombies || !$0.zombie }
            if new.isEmpty || Date() >= deadline { return new.sorted { $0.pid < $1.pid }.map(\.description) }
            usleep(100_000)
        }
    }
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
