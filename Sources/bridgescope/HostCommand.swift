import BridgeClock
import ArgumentParser
import BridgeHost
import BridgeReplay
import BridgeServer
import BridgeTransport
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bridgescope host`: runs the reference host with stub capabilities.
///
/// Transports: `--stdio` (one envelope per line on stdin/stdout). The WebSocket server
/// (`--listen`) is a second transport flag beside it; everything after choosing the
/// transport is shared.
struct HostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "host",
        abstract: "Run the reference host (stub cameras, NFC, scripted scenarios).",
        discussion: """
            With --stdio, reads envelopes from standard input as the web side, one per line, \
            writes every host-to-web envelope to standard output, one per line, logs to standard \
            error, and exits when input closes and the requests in progress are answered. \
            Without --scenario: hostVersion 1.0.0, environment ios, camera.document and \
            camera.selfie granted and succeeding after 100 ms, nfc.read (1.0) succeeding after \
            100 ms, host.ready first. Scenario format: docs/SCENARIOS.md.

            Examples:
              bridgescope host --listen 127.0.0.1:8787
              bridgescope host --stdio --scenario nfc-missing
            """
    )

    @Flag(help: "Serve one web side over standard input and output, one envelope per line.")
    var stdio = false

    @Option(help: "Serve WebSocket (/bridge) and HTTP (/bridge.js, /journeys/, /healthz) on HOST:PORT (default 127.0.0.1:8787 when --stdio is not given).")
    var listen: String?

    @Option(help: "Allowed WebSocket Origin (repeatable). Default: loopback origins only.")
    var origin: [String] = []

    @Option(help: "Largest WebSocket message in bytes.")
    var maxMessage: Int = 16 << 20

    @Flag(help: "Do not negotiate permessage-deflate.")
    var noDeflate = false

    @Option(help: "Folder of journeys served under /journeys/ (default: tools/journey).")
    var journeys: String?

    @Option(help: "Seconds without traffic before an idle WebSocket is closed.")
    var idleTimeout: Double = 120

    @Option(help: ArgumentHelp("Memory the server may hold in unfinished frames, large messages and send queues, across connections, in MiB (docs/SECURITY.md).", valueName: "mib"))
    var memoryBudget: Int = 256

    @Option(help: ArgumentHelp("Connections (HTTP and WebSocket) served at once, at most (and by default) what the open-files limit allows after a reserve; half of them per peer address (docs/SECURITY.md).", valueName: "n"))
    var maxConnections: Int?

    @Flag(help: "Stop after the first journey.complete or journey.error; exit 0 on complete, 1 on error.")
    var exitOnJourneyEnd = false

    @Option(help: "Write every message of the run as a tap log (docs/FORMAT.md) to this file.")
    var transcript: String?

    @Option(help: "A scenario scripting the host: a file, or the name of one in tools/scenarios (docs/SCENARIOS.md).")
    var scenario: String?

    @Option(help: "Log level on standard error: debug, info, notice, warning or error.")
    var logLevel: String = "notice"

    @Option(help: "Seed for host event ids, for reproducible output.")
    var seed: UInt64?

    func validate() throws {
        if stdio && listen != nil {
            printError("bridgescope host: choose one transport: --stdio or --listen")
            throw Exit.usage
        }
        if !stdio, parseListen(listen ?? "127.0.0.1:8787") == nil {
            printError("bridgescope host: --listen takes HOST:PORT, e.g. 127.0.0.1:8787")
            throw Exit.usage
        }
        guard maxMessage > 0 && maxMessage <= 1 << 30 else {
            printError("bridgescope host: --max-message must be between 1 and 1073741824 bytes")
            throw Exit.usage
        }
        guard memoryBudget >= 1 && memoryBudget <= 1 << 20 else {
            printError("bridgescope host: --memory-budget takes MiB, from 1 to 1048576 (default 256)")
            throw Exit.usage
        }
        if let n = maxConnections {
            let cap = AdmissionLimits.derivedCap(perConnection: 1)
            guard n >= 1 && n <= cap else {
                printError("bridgescope host: --max-connections takes 1 to \(cap) here: the open-files limit (ulimit -n) of "
                           + "\(AdmissionLimits.descriptorLimit()) allows \(cap) connections after a reserve of "
                           + "\(AdmissionLimits.descriptorLimit() - cap) descriptors (docs/SECURITY.md); raise the limit for more")
                throw Exit.usage
            }
            if stdio {
                printError("bridgescope host: --max-connections needs --listen")
                throw Exit.usage
            }
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            printError("bridgescope host: --log-level must be debug, info, notice, warning or error")
            throw Exit.usage
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let script: Scenario
        do {
            script = try scenario.map { spec throws(HostError) in
                try Scenario.load(path: Scenario.locate(spec, in: ReplayTarget.defaultScenarioDirectories(),
                                                        searched: "tools/scenarios on the search path (BRIDGESCOPE_HOME, the current directory, the executable's checkout)"))
            } ?? .default
        } catch {
            printError("bridgescope host: \(error)")
            throw Exit.usage
        }
        signal(SIGPIPE, SIG_IGN)
        if stdio {
            let host = script.makeHost(clock: WallClock(), logger: Logger(label: "bridgescope.host"), eventIDSeed: seed)
            await host.run(transport: StdioTransport())
            return
        }
        try await serve(script)
    }

    func parseListen(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        let host = text[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host.isEmpty ? nil : (host, port)
    }

    func serve(_ script: Scenario) async throws {
        let (host, port) = parseListen(listen ?? "127.0.0.1:8787")!
        var config = WebSocketServerConfiguration(
            host: host, port: port, maxMessageBytes: maxMessage, allowedOrigins: origin, deflate: !noDeflate,
            idleTimeout: idleTimeout, journeysDirectory: journeys ?? HostServerRunner.defaultJourneysDirectory())
        config.memoryBudget = memoryBudget << 20
        config.maxConnections = maxConnections
        let runner: HostServerRunner
        do {
            runner = try HostServerRunner(
                options: .init(server: config, scenario: script, exitOnJourneyEnd: exitOnJourneyEnd,
                               transcriptPath: transcript, seed: seed),
                logger: Logger(label: "bridgescope.host"))
        } catch {
            printError("bridgescope host: cannot write the transcript \(transcript ?? ""): \(error)")
            throw Exit.usage
        }
        let signals = SignalWatcher.shutdown { Task { await runner.shutdown() } }
        defer { signals.cancel() }
        let outcome: JourneyEnd?
        do {
            outcome = try await runner.run { listening in
                printError("bridgescope host: listening on \(listening.webSocketURL)")
                for url in listening.journeyURLs { printError("  journey: \(url)") }
            }
        } catch {
            printError("bridgescope host: cannot listen on \(host):\(port): \(error) (is another host running? try another --listen port)")
            throw Exit.usage
        }
        if exitOnJourneyEnd, let outcome, !outcome.completed { throw Exit.findings }
    }
}
