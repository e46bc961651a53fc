import BridgeProtocol
import BridgeTransport
import Logging
import Synchronization

/// What every server-side bridge endpoint shares, once: the WebSocket server, the
/// transcript (a tap log of both directions), the first journey end (and stopping on it
/// when asked), and the URLs it announces. What answers the page is the factory's: the
/// reference host (``HostServerRunner``), a recording played back (`PlaybackServer` in
/// BridgeReplay), or anything else that is a ``BridgeConnection``.
public final class ServerRunner: Sendable {
    /// Where the server listens, for the startup lines.
    public struct Listening: Sendable {
        /// `ws://host:port/bridge`.
        public var webSocketURL: String
        /// `http://host:port/journeys/<name>.html` for each journey served.
        public var journeyURLs: [String]
    }

    /// What a connection reports to the runner.
    public struct Hooks: Sendable {
        /// Sees every message, both directions, in order; nil when no transcript is written
        /// (so a connection need not call it).
        public let observe: (@Sendable (ConnectionInfo, Direction, [UInt8]) -> Void)?
        /// A `journey.complete` or `journey.error` from the page.
        public let journeyEnded: @Sendable (ConnectionInfo, JourneyEnd) -> Void
    }

    /// Makes the connection object for each accepted WebSocket.
    public typealias Factory = @Sendable (ConnectionInfo, Hooks) -> any BridgeConnection

    private let configuration: WebSocketServerConfiguration
    private let server: WebSocketServer
    private let transcript: TranscriptWriter?
    private let outcome: Shared<JourneyEnd?>

    /// Creates the runner (nothing is bound yet); opens the transcript when a path is
    /// given, and throws when it cannot.
    public init(configuration: WebSocketServerConfiguration, exitOnJourneyEnd: Bool, transcriptPath: String?,
                logger: Logger, factory: @escaping Factory) throws {
        let transcript = try transcriptPath.map { try TranscriptWriter(path: $0) }
        let outcome = Shared<JourneyEnd?>(nil)
        let serverSlot = Shared<WebSocketServer?>(nil)
        var observe: (@Sendable (ConnectionInfo, Direction, [UInt8]) -> Void)?
        if let transcript {
            observe = { info, direction, message in
                transcript.write(connection: info.id, direction: direction, message: message)
            }
        }
        let hooks = Hooks(observe: observe) { (info: ConnectionInfo, end: JourneyEnd) in
            logger.notice("\(end)", metadata: ["conn": "\(info.id)"])
            let first = outcome.value.withLock { o -> Bool in
                defer { if o == nil { o = end } }
                return o == nil
            }
            if first && exitOnJourneyEnd, let server = serverSlot.value.withLock({ $0 }) {
                Task { await server.shutdown() }
            }
        }
        let server = WebSocketServer(configuration: configuration, logger: logger) { info in factory(info, hooks) }
        serverSlot.value.withLock { $0 = server }
        self.configuration = configuration
        self.server = server
        self.transcript = transcript
        self.outcome = outcome
    }

    /// Binds and returns the URLs to announce.
    public func start() async throws -> Listening {
        let port = try await server.start()
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let routes = StaticRoutes(journeysDirectory: configuration.journeysDirectory)
        return Listening(webSocketURL: "ws://\(host):\(port)/bridge",
                         journeyURLs: routes.journeys.map { "http://\(host):\(port)/journeys/\($0)" })
    }

    /// Waits until the server has shut down, closes the transcript, and returns the
    /// first journey end seen (nil when none).
    public func waitUntilShutDown() async -> JourneyEnd? {
        await server.waitUntilShutDown()
        transcript?.close()
        return outcome.value.withLock { $0 }
    }

    /// Runs `hook` once the server has shut down.
    public func onShutdown(_ hook: @escaping @Sendable () -> Void) {
        server.onShutdown(hook)
    }

    /// Stops accepting, closes every socket with 1001. Safe to call more than once.
    public func shutdown() async {
        await server.shutdown()
    }
}

/// A ``Mutex`` that closures and the runner share.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ initial: sending Value) { value = Mutex(initial) }
}
