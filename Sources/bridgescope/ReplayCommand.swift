import ArgumentParser
import BridgeTransport
import BridgeReplay
import BridgeServer
import Foundation
import Logging

/// `bridgescope replay`: a recorded session against a host, or a recorded host against
/// a live journey (docs/REPLAY.md).
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recorded session against a host and diff the answers, or play a recording back as the host.",
        discussion: """
        Toward a host (default): sends the web side of each recorded connection to --target \
        in recorded order, keeping causality (a message that followed a response waits for \
        that response in the replay, or for --response-timeout), pairs the answers by \
        correlationId and reports divergences: missing-response, extra-response, \
        status-differs, data-differs, timing, missing-event, extra-event, closed-early. \
        Targets: inproc[:SCENARIO] (the reference host in this process, on virtual time \
        unless --real-clock; SCENARIO is a file or a name in tools/scenarios), \
        ws://HOST:PORT/bridge, stdio:'COMMAND' (one process per connection).

        As the host (--as-host): serves the recording's host side on --listen to live \
        journeys: each request gets the recorded response of the matching recorded request \
        (same action, then same data, then same order among equals) after the recorded \
        latency (--pace), host events come at their recorded offsets, requests with no \
        match get unsupported and are listed at the end.

        Exit status: 0 no divergences (as host: every request matched, journey not failed); \
        1 divergences (unmatched requests); 2 usage, archive or connection errors.

        Examples:
          bridgescope replay captures/happy-passport.bsz
          bridgescope replay session.bsz --target ws://127.0.0.1:8787/bridge --pace recorded
          bridgescope replay session.bsz --as-host --listen 127.0.0.1:8787
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, junit
    }

    @Argument(help: ArgumentHelp("The session archive.", valueName: "FILE.bsz"))
    var archive: String

    @Option(help: ArgumentHelp("inproc[:SCENARIO], ws://HOST:PORT/bridge, stdio:'COMMAND', cdp:http://HOST:PORT[#URL] or webkit:http://HOST:PORT[#URL] (a WebView's bridge, docs/WEBVIEW-TARGETS.md).", valueName: "target"))
    var target: String = "inproc"

    @Option(help: "Pacing: asap (default toward a host), recorded (default as host), or xN (recorded gaps / N).")
    var pace: String?

    @Option(help: ArgumentHelp("Also ignore this part of every message (JSON pointer; * one segment, ** any). Repeatable.",
                               valueName: "pointer"))
    var ignore: [String] = []

    @Flag(help: "Compare timestamps, host event ids and image bytes too (no default normalization).")
    var noDefaultIgnores = false

    @Option(help: ArgumentHelp("Replay N times first and ignore fields that differ between the runs (N >= 2).", valueName: "N"))
    var learn: Int?

    @Option(help: "Report format: text, json or junit.")
    var format: Format = .text

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the report to FILE instead of standard output.", valueName: "FILE"))
    var output: String?

    @Option(help: ArgumentHelp("Milliseconds to wait for a response before giving up on it.", valueName: "ms"))
    var responseTimeout: Int = 10_000

    @Option(help: ArgumentHelp("Longest wait in milliseconds for the recorded tail of a connection.", valueName: "ms"))
    var linger: Int = 1_000

    @Option(help: ArgumentHelp("Latency tolerance in milliseconds (the larger of this and 50% of the recorded latency).",
                               valueName: "ms"))
    var timingTolerance: Int = 1_000

    @Flag(help: "Do not compare response latencies.")
    var noTiming = false

    @Option(help: ArgumentHelp("Seconds to wait for a WebSocket connection.", valueName: "s"))
    var connectTimeout: Double = 5

    @Option(help: "Connection attempts after the first fails.")
    var retries: Int = 0

    @Flag(help: "Run the in-process target on the real clock instead of virtual time.")
    var realClock = false

    @Option(help: "Seed for in-process hosts' event ids.")
    var seed: UInt64 = 1

    @Flag(help: "Play the recording back as the host to live journeys (see --listen).")
    var asHost = false

    @Option(help: ArgumentHelp("With --as-host: serve on HOST:PORT (default 127.0.0.1:8787).", valueName: "host:port"))
    var listen: String?

    @Option(help: "With --as-host: folder of journeys served under /journeys/ (default: tools/journey).")
    var journeys: String?

    @Option(help: "With --as-host: write every message as a tap log to this file.")
    var transcript: String?

    @Flag(help: "With --as-host: stop after the first journey.complete or journey.error.")
    var exitOnJourneyEnd = false

    @Option(help: "With --as-host: play only this recorded connection, for every live one.")
    var connection: String?

    @Option(help: "With --as-host: allowed WebSocket Origin (repeatable). Default: loopback origins only.")
    var origin: [String] = []

    @Flag(help: "Do not negotiate (as host) or offer (toward a WebSocket host) permessage-deflate.")
    var noDeflate = false

    @Option(help: "Log level on standard error: debug, info, notice, warning or error.")
    var logLevel: String = "notice"

    func validate() throws {
        if let pace, ReplayPacing(parsing: pace) == nil {
            throw ValidationError("--pace must be asap, recorded or xN (e.g. x2), not \"\(pace)\"")
        }
        if let learn, learn < 2 { throw ValidationError("--learn needs at least 2 runs") }
        guard responseTimeout > 0, linger >= 0, timingTolerance >= 0, connectTimeout > 0, retries >= 0 else {
            throw ValidationError("--response-timeout, --connect-timeout must be positive; --linger, --timing-tolerance, --retries not negative")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be debug, info, notice, warning or error")
        }
        if !asHost && (listen != nil || transcript != nil || exitOnJourneyEnd || connection != nil || journeys != nil) {
            throw ValidationError("--listen, --journeys, --transcript, --exit-on-journey-end and --connection go with --as-host")
        }
        if asHost, parseListen(listen ?? "127.0.0.1:8787") == nil {
            throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:8787")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "bridgescope.replay")
        let session: ReplaySession
        do {
            session = try ReplaySession.load(path: archive, logger: logger)
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        guard !session.connections.isEmpty else {
            for s in session.skipped { printError("skipped: \(s)") }
            printError("error: \(archive) holds no messages to replay")
            throw Exit.usage
        }
        if asHost { return try await playBack(session, logger: logger) }
        let options: ReplayOptions
        do throws(ReplayError) {
            options = try makeOptions()
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        let report = await Replayer(options: options, logger: logger).run(session, archiveName: archive)
        let text: String
        switch format {
        case .text: text = report.renderText()
        case .json: text = report.renderJSON()
        case .junit: text = report.renderJUnit()
        }
        try emit(text)
        for c in report.connections { if let e = c.error { printError("error: conn \(c.id): \(e)") } }
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }

    func makeOptions() throws(ReplayError) -> ReplayOptions {
        let target = try ReplayTarget(parsing: self.target)
        var rules: NormalizationRules = noDefaultIgnores ? .exact : .default
        for p in ignore { rules.ignored.append(try JSONPointerPattern(p)) }
        var options = ReplayOptions(
            target: target, scenario: try target.scenario(searchDirectories: ReplayTarget.defaultScenarioDirectories()),
            pacing: pace.flatMap(ReplayPacing.init(parsing:)) ?? .asap,
            timing: .init(responseTimeout: Int64(responseTimeout) * 1_000_000, linger: Int64(linger) * 1_000_000),
            tolerance: noTiming ? nil : TimingTolerance(absolute: Int64(timingTolerance) * 1_000_000),
            rules: rules, runs: learn ?? 1,
            client: WebSocketClientOptions(deflate: !noDeflate, connectTimeout: connectTimeout),
            retries: retries, realClock: realClock, seed: seed)
        options.pageOpener = WebViewOpener.opener()
        return options
    }

    func playBack(_ session: ReplaySession, logger: Logger) async throws {
        let (host, port) = parseListen(listen ?? "127.0.0.1:8787")!
        let config = WebSocketServerConfiguration(
            host: host, port: port, allowedOrigins: origin, deflate: !noDeflate,
            journeysDirectory: journeys ?? HostServerRunner.defaultJourneysDirectory())
        let options = PlaybackServer.Options(server: config, pacing: pace.flatMap(ReplayPacing.init(parsing:)) ?? .recorded,
                                             exitOnJourneyEnd: exitOnJourneyEnd, transcriptPath: transcript,
                                             connection: connection)
        let server: PlaybackServer
        let report: PlaybackReport
        do throws(ReplayError) {
            server = try PlaybackServer(session: session, options: options, logger: logger)
            let signals = SignalWatcher.shutdown { Task { await server.shutdown() } }
            defer { signals.cancel() }
            report = try await server.run { listening in
                printError("bridgescope replay --as-host: playing \(archive) on \(listening.webSocketURL)")
                for url in listening.journeyURLs { printError("  journey: \(url)") }
            }
        } catch {
            printError("error: \(error)")
            throw Exit.usage
        }
        for s in session.skipped { printError("skipped: \(s)") }
        try emit(report.renderText())
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }

    func emit(_ text: String) throws {
        guard let output else {
            print(text, terminator: "")
            return
        }
        guard FileManager.default.createFile(atPath: output, contents: Data(text.utf8)) else {
            printError("error: \(output): cannot write the report")
            throw Exit.usage
        }
        printError("wrote \(output)")
    }

    func parseListen(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        let host = text[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host.isEmpty ? nil : (host, port)
    }
}
