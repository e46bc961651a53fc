import ArgumentParser
import BridgeFuzz
import BridgeHost
import BridgeReplay
import BridgeTransport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bridgescope fuzz`: structure-aware, stateful fuzzing of a host (docs/FUZZING.md).
struct FuzzCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Fuzz a host's decoding and routing; write minimized findings to corpus/regressions.",
        discussion: """
            Mutates envelope sequences from the corpus (and recorded sessions) and judges every \
            run with named oracles: no crash or hang, exactly one final response per request, \
            host output that passes the rule catalogue, one capture per slot, capability.query \
            consistent with the scenario, pending state that drains, stable round trips, and \
            agreement with JSONSerialization. In-process runs use worker processes so a trap is \
            caught and its case kept. Exit status: 0 nothing new found, 1 findings written, \
            2 usage or I/O errors. --reproduce FILE replays one case: 1 when it still fails.

            Examples:
              bridgescope fuzz --time 60s
              bridgescope fuzz --target stdio:'python3 my_host.py' --runs 2000 --seed 1
              bridgescope fuzz --reproduce corpus/regressions/crash-1234.jsonl
            """
    )

    @Option(help: "inproc, ws://HOST:PORT/bridge, stdio:'COMMAND', cdp:http://HOST:PORT[#URL] or webkit:http://HOST:PORT[#URL] (a WebView's bridge, docs/WEBVIEW-TARGETS.md).")
    var target = "inproc"
    @Option(help: "Scenario file the host runs (docs/SCENARIOS.md).")
    var scenario: String?
    @Option(help: ArgumentHelp("Corpus folder (seeds/, regressions/, generated/); default: the first corpus/ with seeds/ on the resource search path (BRIDGESCOPE_HOME, the current directory, the executable's checkout).", valueName: "DIR"))
    var corpus: String?
    @Option(help: "Time budget: 90s, 10m, 2h.")
    var time: String?
    @Option(help: "Execution budget.")
    var runs: UInt64?
    @Option(help: "Seed of the run's random generator.")
    var seed: UInt64 = 1
    @Option(name: .customLong("max-findings"), help: ArgumentHelp("Stop once N new findings were written (a nightly job that needs one reproducer, a test).", valueName: "N"))
    var maxFindings: Int?

    @Option(help: "Worker processes (in-process target), or runs side by side against a black-box target, each with its own host processes.")
    var jobs = 1
    @Option(help: "Report format: text, json or junit.")
    var format = "text"
    @Option(help: "Replay one case file and report whether it still fails.")
    var reproduce: String?
    @Flag(name: .customLong("reproduce-all"), help: .hidden)
    var reproduceAll = false
    @Argument(help: .hidden)
    var files: [String] = []
    @Option(name: .customLong("seed-archive"), help: "Seed from a recorded session (JSON Lines tap log or envelopes).")
    var seedArchive: [String] = []
    @Option(help: "Folder for findings (default CORPUS/regressions).")
    var findings: String?
    @Flag(name: .customLong("save-corpus"), help: "Save interesting cases under CORPUS/generated/bridgescope.")
    var saveCorpus = false
    @Flag(name: .customLong("no-generated"), help: "Seed from CORPUS/seeds and CORPUS/regressions only, not from the cases --save-corpus kept on this machine: a fixed --seed then runs the same on every checkout.")
    var noGenerated = false
    @Option(help: "structure (default) or bytes (plain byte mutation, for comparison).")
    var mode = "structure"
    @Option(help: "Stub picture size in-process: small (default) or full.")
    var images = "small"
    @Flag(help: "Black-box targets: judge by this project's choices where PROTOCOL.md §7 leaves one (for fuzzing the reference host over the wire). Default: accept every answer §7 allows.")
    var strict = false

    @Option(name: .customLong("response-timeout"), help: ArgumentHelp("Black-box: milliseconds a request may wait for its final answer (default: PROTOCOL.md §2's 5 s for capability.query and 30 s otherwise, stretched to the scenario's latencies).", valueName: "MS"))
    var responseTimeout: Int64?

    @Option(name: .customLong("cases-per-process"), help: ArgumentHelp("stdio: cases one host process runs before it is replaced (default 200; 1 starts one per case).", valueName: "N"))
    var casesPerProcess: Int?

    @Flag(name: .customLong("ws-deflate"), help: "Offer permessage-deflate to ws:// targets.")
    var wsDeflate = false
    @Option(name: .customLong("hang-timeout"), help: "Seconds without progress before a worker counts as hung.")
    var hangTimeout: Double = 10
    @Option(name: .customLong("export-libfuzzer-seeds"), help: "Write libFuzzer seed folders (json, envelope, host, websocket, archive) under DIR and exit.")
    var exportLibFuzzerSeeds: String?
    @Option(name: .customLong("import-crash"), help: "Turn a libFuzzer crash artifact into a regression file (with --harness).")
    var importCrash: String?
    @Option(help: "The libFuzzer target of --import-crash, or run --reproduce FILE through it: json, envelope, host, websocket or archive.")
    var harness: String?
    @Option(name: .customLong("crash-line"), help: "The crash's Fatal error line, for --import-crash's signature.")
    var crashLine: String?
    @Option(name: .customLong("selftest-trap"), help: .hidden) var selfTestTrap: String?
    @Option(help: .hidden) var quarantine: String?
    @Flag(help: .hidden) var worker = false
    @Flag(help: .hidden) var replay = false
    @Option(help: .hidden) var slot: String?

    func options() throws -> FuzzOptions {
        var o = FuzzOptions()
        do { o.target = try FuzzOptions.TargetSpec(parsing: target) } catch { throw ValidationError("\(error)") }
        o.pageOpener = WebViewOpener.opener()
        if case .webView = o.target, jobs > 1 { throw ValidationError("--jobs: a WebView target is one page; run it with one job") }
        do throws(HostError) {
            o.scenarioPath = try scenario.map { spec throws(HostError) in
                try Scenario.locate(spec, in: ReplayTarget.defaultScenarioDirectories(), searched: ResourceLocator.searched("tools/scenarios"))
            }
        } catch {
            throw ValidationError(error.message)
        }
        if let corpus {
            guard FileManager.default.fileExists(atPath: corpus) else {
                throw ValidationError("--corpus \(corpus): no such directory")
            }
            o.corpus = corpus
        } else if let found = ResourceLocator.find("corpus", holding: "seeds") {
            o.corpus = found
        } else {
            printError("warning: no corpus/seeds found (\(ResourceLocator.searched("corpus"))): fuzzing from recorded sessions and built-in envelopes only")
            o.corpus = "corpus"
        }
        o.findingsDir = findings
        if let time {
            guard let s = FuzzOptions.parseDuration(time) else { throw ValidationError("--time must look like 90s, 10m or 2h, not \(time)") }
            o.seconds = s
        }
        o.runs = runs
        if let maxFindings, maxFindings < 1 { throw ValidationError("--max-findings must be at least 1") }
        o.maxFindings = maxFindings
        if time == nil && runs == nil && reproduce == nil && !replay { o.seconds = 600 }
        o.seed = seed
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64") }
        o.jobs = jobs
        guard let f = FuzzOptions.OutputFormat(rawValue: format) else { throw ValidationError("--format must be text, json or junit") }
        o.format = f
        o.seedArchives = seedArchive
        o.saveCorpus = saveCorpus
        o.includeGenerated = !noGenerated
        guard let m = FuzzMutator.Mode(rawValue: mode) else { throw ValidationError("--mode must be structure or bytes") }
        o.mode = m
        guard let i = StubImages(rawValue: images) else { throw ValidationError("--images must be small or full") }
        o.images = i
        o.hangTimeout = hangTimeout
        o.webSocketDeflate = wsDeflate
        o.strict = strict
        if let r = responseTimeout {
            guard r >= 1 && r <= 600_000 else { throw ValidationError("--response-timeout must be between 1 and 600000 milliseconds") }
            o.responseTimeoutMs = r
        }
        if let n = casesPerProcess {
            guard n >= 1 else { throw ValidationError("--cases-per-process must be at least 1") }
            o.casesPerProcess = n
        }
        o.selfTestTrap = selfTestTrap
        o.quarantine = quarantine
        o.statusLine = isatty(2) == 1 && !worker
        return o
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let o = try options()
        do {
            if replay { try FuzzWorker.replay(o); return }
            if worker {
                guard let slot else { throw ValidationError("--worker needs --slot") }
                try await FuzzWorker.run(o, slotPath: slot)
                return
            }
            if reproduceAll, let h = harness {
                for f in files { try runHarness(h, f) }
                print("\(files.count) file(s) ran through fuzz-\(h) without a trap")
                return
            }
            if let reproduce { try await reproduceCase(reproduce, o) }
            if let dir = exportLibFuzzerSeeds {
                let counts = try LibFuzzerBridge.exportSeeds(corpus: o.corpus, to: dir)
                print(LibFuzzerBridge.Harness.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", "))
                return
            }
            if let artifact = importCrash {
                guard let h = harness.flatMap(LibFuzzerBridge.Harness.init(rawValue:)) else {
                    throw ValidationError("--import-crash needs --harness json, envelope, host, websocket or archive")
                }
                let written = try LibFuzzerBridge.importCrash(artifact, harness: h, crashLine: crashLine, corpus: o.corpus)
                print(written.map { "written \($0)" } ?? "known: a regression with this signature exists")
                if written != nil { throw Exit.findings }
                return
            }
            let store = CorpusStore(root: o.corpus, regressions: o.findingsDir, includeGenerated: o.includeGenerated)
            for reason in store.skippedSeedFiles() { printError("warning: \(reason); not used as a seed") }
            let summary = try await FuzzSupervisor(options: o).run()
            print(summary.render(o.format), terminator: "")
            if summary.wroteFindings { throw Exit.findings }
        } catch let e as FuzzError {
            printError("bridgescope fuzz: \(e)")
            throw Exit.usage
        }
    }

    /// Runs one libFuzzer input through its harness (a trap ends the process).
    func runHarness(_ h: String, _ path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw FuzzError(.io, "cannot read \(path)") }
        switch LibFuzzerBridge.Harness(rawValue: h) {
        case .json?: data.withUnsafeBytes { FuzzHarness.jsonParser($0) }
        case .envelope?: data.withUnsafeBytes { FuzzHarness.envelopeDecoder($0) }
        case .host?: data.withUnsafeBytes { FuzzHarness.hostRouting($0) }
        case .websocket?: data.withUnsafeBytes { FuzzHarness.messageAssembler($0) }
        case .archive?: data.withUnsafeBytes { FuzzHarness.archiveReader($0) }
        case nil: throw ValidationError("--harness must be json, envelope, host, websocket or archive")
        }
    }

    func reproduceCase(_ path: String, _ o: FuzzOptions) async throws -> Never {
        if let h = harness {
            try runHarness(h, path)
            print("\(path): fuzz-\(h) ran it to the end without a trap")
            throw ExitCode.success
        }
        let c = try CorpusStore.readCase(path)
        let scenario = try o.scenarioPath.map { _ in try o.loadScenario().0 }
        let target: any FuzzTarget
        switch o.target {
        case .inproc: target = o.inProcessTarget(try FuzzReproducer.scenario(for: c, override: scenario))
        case .stdio(let cmd):
            var t = StdioTarget(command: cmd, scenario: scenario)
            t.strict = o.strict
            t.responseTimeoutMs = o.responseTimeoutMs
            target = t
        case .webSocket(let url):
            var t = WebSocketTarget(url: url, scenario: scenario)
            t.deflate = o.webSocketDeflate
            t.strict = o.strict
            t.responseTimeoutMs = o.responseTimeoutMs
            target = t
        case .webView(let spec):
            var t = WebViewTarget(spec: spec, scenario: scenario, open: WebViewOpener.opener())
            t.strict = o.strict
            t.responseTimeoutMs = o.responseTimeoutMs
            target = t
        }
        let outcome = try await FuzzReproducer.replay(c, target: target, scenario: scenario, images: o.images)
        print("\(path): \(c.input.steps.count) step(s), \(outcome.received) host message(s)")
        if let oracle = c.oracle { print("recorded: \(oracle): \(c.signature ?? "")") }
        if outcome.violations.isEmpty {
            print("no violation: the case passes every oracle")
            throw ExitCode.success
        }
        for v in outcome.violations { print("\(v.oracle) [\(v.signature)]: \(v.message)") }
        throw Exit.findings
    }
}
