import BridgeHost
import Foundation
import Logging
import NIOConcurrencyHelpers

/// Runs the reference host behind the WebSocket server: one ``BridgeHost`` per
/// connection, each scripted by the same scenario, until ``shutdown()`` (or, with
/// `exitOnJourneyEnd`, until a journey reports `journey.complete` / `journey.error`).
public final class HostServerRunner: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// Server settings.
        public var server: BridgeServerConfiguration
        /// The scenario every connection's host follows.
        public var scenario: Scenario
        /// Stop after the first journey end event; ``run(onListening:)`` then returns its outcome.
        public var exitOnJourneyEnd: Bool
        /// Write every message as a tap log here (docs/FORMAT.md).
        public var transcriptPath: String?
        /// Seed for host event ids (reproducible output), else random.
        public var seed: UInt64?

        /// Creates options.
        public init(server: BridgeServerConfiguration, scenario: Scenario = .default, exitOnJourneyEnd: Bool = false,
                    transcriptPath: String? = nil, seed: UInt64? = nil) {
            self.server = server
            self.scenario = scenario
            self.exitOnJourneyEnd = exitOnJourneyEnd
            self.transcriptPath = transcriptPath
            self.seed = seed
        }
    }

    /// What the startup line shows.
    public struct Listening: Sendable {
        /// `ws://host:port/bridge`.
        public var webSocketURL: String
        /// `http://host:port/journeys/<name>.html` for each journey served.
        public var journeyURLs: [String]
    }

    private let options: Options
    private let logger: Logger
    private let server: BridgeServer
    private let sessions: AsyncStream<HostSession>
    private let outcome = NIOLockedValueBox<JourneyOutcome?>(nil)
    private let transcript: TranscriptWriter?

    /// Creates the runner; opens the transcript file if asked (throws when it cannot).
    public init(options: Options, logger: Logger) throws {
        self.options = options
        self.logger = logger
        let transcript = try options.transcriptPath.map { try TranscriptWriter(path: $0) }
        self.transcript = transcript
        let outcome = self.outcome
        let exitOnEnd = options.exitOnJourneyEnd
        let serverBox = NIOLockedValueBox<BridgeServer?>(nil)
        let observer: HostSession.Observer = { info, direction, message in
            transcript?.write(connection: info.id, direction: direction, message: message)
            guard direction == .webToHost, let end = JourneyOutcome.detect(message) else { return }
            logger.notice("\(end)", metadata: ["conn": "\(info.id)"])
            let first = outcome.withLockedValue { o -> Bool in
                defer { if o == nil { o = end } }
                return o == nil
            }
            if first && exitOnEnd, let server = serverBox.withLockedValue({ $0 }) {
                Task { await server.shutdown() }
            }
        }
        (server, sessions) = BridgeServer.hostSessions(configuration: options.server, logger: logger, observer: observer)
        serverBox.withLockedValue { $0 = server }
    }

    /// Binds, reports where it listens, serves until shutdown, and returns the journey
    /// outcome seen first (nil when none).
    public func run(onListening: @Sendable (Listening) -> Void) async throws -> JourneyOutcome? {
        let port = try await server.start()
        let host = options.server.host.contains(":") ? "[\(options.server.host)]" : options.server.host
        let routes = StaticRoutes(journeysDirectory: options.server.journeysDirectory)
        onListening(Listening(webSocketURL: "ws://\(host):\(port)/bridge",
                              journeyURLs: routes.journeys.map { "http://\(host):\(port)/journeys/\($0)" }))
        let scenario = options.scenario
        let seed = options.seed
        let logger = self.logger
        await withTaskGroup(of: Void.self) { group in
            var n: UInt64 = 0
            for await session in sessions {
                n += 1
                let eventSeed = seed.map { $0 &+ n }
                group.addTask {
                    var hostLogger = logger
                    hostLogger[metadataKey: "conn"] = "\(session.info.id)"
                    let host = scenario.makeHost(clock: SystemClock(), logger: hostLogger, eventIDSeed: eventSeed)
                    await host.run(transport: session)
                }
            }
        }
        transcript?.close()
        return outcome.withLockedValue { $0 }
    }

    /// Stops accepting, closes every socket with 1001, lets hosts finish.
    public func shutdown() async {
        await server.shutdown()
    }

    /// The default journeys folder: `tools/journey` under the current directory, or
    /// under the repository that holds the running executable (`.build/<config>/bridgescope`).
    public static func defaultJourneysDirectory(executable: String = CommandLine.arguments.first ?? "") -> String? {
        var candidates = [FileManager.default.currentDirectoryPath + "/tools/journey"]
        var url = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        for _ in 0..<4 {
            url.deleteLastPathComponent()
            candidates.append(url.path + "/tools/journey")
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/bridge.js") }
    }
}
