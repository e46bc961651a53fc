import BridgeTransport
import BridgeHost
import BridgeJSON
import Foundation

/// Everything `bridgescope fuzz` can be told (docs/FUZZING.md §"Command line").
public struct FuzzOptions: Sendable {
    /// Where cases run.
    public enum TargetSpec: Sendable, Hashable, CustomStringConvertible {
        /// The reference host in worker processes on a virtual clock.
        case inproc
        /// Any host over WebSocket, black-box.
        case webSocket(WebSocketURL)
        /// Any host speaking one envelope per line on stdin/stdout, started per case with
        /// `/bin/sh -c CMD`.
        case stdio(String)
        /// A host behind a WebView's bridge, reached through its debugging door:
        /// `cdp:http://HOST:PORT[#URL]` or `webkit:http://HOST:PORT[#URL]`, as written
        /// (docs/WEBVIEW-TARGETS.md).
        case webView(String)

        /// Parses `inproc`, `ws://HOST:PORT/PATH`, `stdio:CMD`, `cdp:…` or `webkit:…`.
        public init(parsing text: String) throws {
            if text == "inproc" { self = .inproc; return }
            if text.hasPrefix("cdp:") || text.hasPrefix("webkit:") {
                let rest = text.drop { $0 != ":" }.dropFirst()
                guard rest.hasPrefix("http://") else {
                    throw FuzzError(.usage, "--target \(text): expected cdp:http://HOST:PORT[#URL-SUBSTRING] or webkit:http://HOST:PORT[#URL-SUBSTRING]")
                }
                self = .webView(text)
                return
            }
            if text.hasPrefix("stdio:") {
                let cmd = String(text.dropFirst(6))
                guard !cmd.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw FuzzError(.usage, "--target stdio: needs a command, e.g. stdio:'bridgescope host --stdio'")
                }
                self = .stdio(cmd)
                return
            }
            if let url = WebSocketURL(text) { self = .webSocket(url); return }
            throw FuzzError(.usage, "--target must be inproc, ws://HOST:PORT/bridge, stdio:'COMMAND', cdp:http://HOST:PORT or webkit:http://HOST:PORT, not \(text)")
        }

        /// The spelling.
        public var description: String {
            switch self {
            case .inproc: return "inproc"
            case .webSocket(let u): return u.description
            case .stdio(let c): return "stdio:\(c)"
            case .webView(let s): return s
            }
        }
    }

    /// The report's format.
    public enum OutputFormat: String, Sendable, CaseIterable {
        /// Lines for people.
        case text
        /// One JSON object.
        case json
        /// JUnit XML, one test case per oracle.
        case junit
    }

    /// Where cases run. Default in-process.
    public var target: TargetSpec = .inproc
    /// A scenario file (docs/SCENARIOS.md); nil: the default host.
    public var scenarioPath: String?
    /// The corpus folder. Default `corpus`.
    public var corpus = "corpus"
    /// Where findings go. Default `<corpus>/regressions`.
    public var findingsDir: String?
    /// Time budget in seconds.
    public var seconds: Double?
    /// Execution budget.
    public var runs: UInt64?
    /// Stop once this many new findings were written (`--max-findings`).
    public var maxFindings: Int?
    /// The seed (worker `i` uses `seed + i`).
    public var seed: UInt64 = 1
    /// Worker processes (in-process target only). Default 1.
    public var jobs = 1
    /// The report's format.
    public var format: OutputFormat = .text
    /// Recorded sessions to seed from.
    public var seedArchives: [String] = []
    /// Save interesting cases under `<corpus>/generated/bridgescope/`.
    public var saveCorpus = false
    /// Seed from `<corpus>/generated/bridgescope/` too (what `--save-corpus` kept on this
    /// machine). Default true; false (`--no-generated`) seeds from the tracked folders
    /// only, so a fixed seed gives the same run on every checkout.
    public var includeGenerated = true
    /// Structure-aware (default) or plain bytes.
    public var mode: FuzzMutator.Mode = .structureAware
    /// Seconds without progress before a worker counts as hung. Default 10.
    public var hangTimeout: Double = 10
    /// Stub picture size in-process. Default small.
    public var images: StubImages = .small
    /// The `bridgescope` executable that runs workers (default: this process's).
    public var executable: String = "/proc/self/exe"
    /// Test affordance: the in-process host traps on messages holding this marker.
    public var selfTestTrap: String?
    /// Folder of crash cases to leave out of the seeds (set by the supervisor for restarted workers).
    public var quarantine: String?
    /// Attaches to the page of a `cdp:` or `webkit:` target (set by the command line,
    /// which links the debugging protocols; nil: such targets are refused).
    package var pageOpener: PageBridgeOpener?
    /// Offer permessage-deflate on `ws://` targets (default off, see ``WebSocketTarget/deflate``).
    public var webSocketDeflate = false
    /// Judge black-box hosts by this project's choices where PROTOCOL.md §7 leaves one
    /// (`--strict`: for fuzzing the reference host over the wire).
    public var strict = false
    /// Replaces the protocol's response timeouts for black-box targets (`--response-timeout`).
    public var responseTimeoutMs: Int64?
    /// Cases one stdio host process runs before it is replaced (`--cases-per-process`).
    public var casesPerProcess: Int?
    /// Show a status line on standard error (the CLI sets it when that is a terminal).
    public var statusLine = false

    /// Creates default options.
    public init() {}

    /// Parses `90`, `90s`, `10m`, `2h` into seconds.
    public static func parseDuration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        if let last = text.last, let unit = units[last], let v = Double(text.dropLast()), v > 0 { return v * unit }
        if let v = Double(text), v > 0 { return v }
        return nil
    }

    /// The in-process target these options describe.
    public func inProcessTarget(_ scenario: Scenario) -> InProcessTarget {
        InProcessTarget(scenario: scenario, images: images, interceptor: selfTestTrap.map { SelfTestTrap(marker: $0) })
    }

    /// The scenario and its JSON (for finding headers), from ``scenarioPath``.
    public func loadScenario() throws -> (Scenario, JSONValue?) {
        guard let path = scenarioPath else { return (.default, nil) }
        let scenario: Scenario
        do { scenario = try Scenario.load(path: path) } catch { throw FuzzError(.usage, "\(error)") }
        let json = FileManager.default.contents(atPath: path).flatMap { try? JSONParser().parse([UInt8]($0)).value }
        return (scenario, json)
    }

    /// The arguments that make a worker with the same settings.
    func workerArguments(seed: UInt64, seconds: Double?, runs: UInt64?, slot: String) -> [String] {
        var a = ["fuzz", "--worker", "--slot", slot, "--seed", String(seed), "--corpus", corpus, "--mode", mode.rawValue,
                 "--images", images.rawValue]
        if let maxFindings { a += ["--max-findings", String(maxFindings)] }
        if let seconds { a += ["--time", String(format: "%.3f", seconds)] }
        if let runs { a += ["--runs", String(runs)] }
        if let scenarioPath { a += ["--scenario", scenarioPath] }
        if let findingsDir { a += ["--findings", findingsDir] }
        if saveCorpus { a.append("--save-corpus") }
        if !includeGenerated { a.append("--no-generated") }
        if let selfTestTrap { a += ["--selftest-trap", selfTestTrap] }
        if let quarantine { a += ["--quarantine", quarantine] }
        for s in seedArchives { a += ["--seed-archive", s] }
        return a
    }
}
