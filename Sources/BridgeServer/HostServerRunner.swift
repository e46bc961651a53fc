import BridgeTransport
import BridgeHost
import Foundation
import Logging
import Synchronization

/// Runs the reference host behind the WebSocket server: one scripted host per connection
/// (a ``HostStateMachine`` made from the scenario, driven on the connection's event loop by
/// ``HostConnection``), until ``shutdown()`` (or, with `exitOnJourneyEnd`, until a journey
/// reports `journey.complete` / `journey.error`).
public final class HostServerRunner: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// Server settings.
        public var server: WebSocketServerConfiguration
        /// The scenario every connection's host follows.
        public var scenario: Scenario
        /// Stop after the first journey end event; ``run(onListening:)`` then returns its outcome.
        public var exitOnJourneyEnd: Bool
        /// Write every message as a tap log here (docs/FORMAT.md).
        public var transcriptPath: String?
        /// Seed for host event ids (reproducible output), else random.
        public var seed: UInt64?

        /// Creates options.
        public init(server: WebSocketServerConfiguration, scenario: Scenario = .default, exitOnJourneyEnd: Bool = false,
                    transcriptPath: String? = nil, seed: UInt64? = nil) {
            self.server = server
            self.scenario = scenario
            self.exitOnJourneyEnd = exitOnJourneyEnd
            self.transcriptPath = transcriptPath
            self.seed = seed
        }
    }

    /// What the startup line shows.
    public typealias Listening = ServerRunner.Listening

    private let options: Options
    private let runner: ServerRunner

    /// Creates the runner; opens the transcript file if asked (throws when it cannot).
    public init(options: Options, logger: Logger) throws {
        self.options = options
        let scenario = options.scenario
        let seed = options.seed
        let count = Mutex<UInt64>(0)
        // One host per connection, made and run on the connection's event loop.
        runner = try ServerRunner(configuration: options.server, exitOnJourneyEnd: options.exitOnJourneyEnd,
                                  transcriptPath: options.transcriptPath, logger: logger) { info, hooks in
            let n = count.withLock { n -> UInt64 in
                n += 1
                return n
            }
            var hostLogger = logger
            hostLogger[metadataKey: "conn"] = "\(info.id)"
            var machine = scenario.makeMachine(eventIDSeed: seed.map { $0 &+ n } ?? .random(in: .min ... .max),
                                               limits: Self.hostLimits)
            machine.emitsDebugLog = hostLogger.logLevel <= .debug
            return HostConnection(info: info, machine: machine, logger: hostLogger, observer: hooks.observe,
                                  onJourneyEnd: hooks.journeyEnded)
        }
    }

    /// The hosts' limits: the defaults, except that no history of received envelopes is
    /// kept (``HostStateMachine/receivedMessages`` is for in-process hosts; nothing reads
    /// it behind the server, and keeping it costs a copy of every envelope).
    static let hostLimits: HostLimits = {
        var limits = HostLimits.default
        limits.maxReceivedHistory = 0
        return limits
    }()

    /// Binds, reports where it listens, serves until shutdown, and returns the journey
    /// outcome seen first (nil when none).
    public func run(onListening: @Sendable (Listening) -> Void) async throws -> JourneyEnd? {
        // Draw and encode the stub pictures on a thread of their own while the server binds
        // (tens of milliseconds in release builds), and announce the server once they are
        // ready. A connection that arrives before that waits for them once, at startup; no
        // capture is ever drawn on an event loop after that.
        let stubs = Task.detached(priority: .userInitiated) { Scenario.prepareStubCaptures() }
        let listening = try await runner.start()
        await stubs.value
        onListening(listening)
        return await runner.waitUntilShutDown()
    }

    /// Stops accepting, closes every socket with 1001 and stops the server; ``run(onListening:)``
    /// then returns. Safe to call more than once.
    public func shutdown() async {
        await runner.shutdown()
    }

    /// The default journeys folder: the first `tools/journey` holding `bridge.js` on the
    /// resource search path (``ResourceLocator``: `$BRIDGESCOPE_HOME`, the current
    /// directory, the executable's checkout or install prefix).
    public static func defaultJourneysDirectory() -> String? {
        ResourceLocator.find("tools/journey", holding: "bridge.js")
    }
}
