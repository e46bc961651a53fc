import ArgumentParser
import BridgeHost
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
            """
    )

    @Flag(help: "Serve one web side over standard input and output, one envelope per line.")
    var stdio = false

    @Option(help: "A scenario file (docs/SCENARIOS.md) scripting the host.")
    var scenario: String?

    @Option(help: "Log level on standard error: debug, info, notice, warning or error.")
    var logLevel: String = "notice"

    @Option(help: "Seed for host event ids, for reproducible output.")
    var seed: UInt64?

    func validate() throws {
        guard stdio else {
            printError("bridgescope host: choose a transport: --stdio")
            throw Exit.usage
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
            script = try scenario.map { path throws(HostError) in try Scenario.load(path: path) } ?? .default
        } catch {
            printError("bridgescope host: \(error)")
            throw Exit.usage
        }
        let host = script.makeHost(clock: SystemClock(), logger: Logger(label: "bridgescope.host"), eventIDSeed: seed)
        signal(SIGPIPE, SIG_IGN)
        await host.run(transport: StdioTransport())
    }
}
