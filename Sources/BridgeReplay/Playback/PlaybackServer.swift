import BridgeServer
import BridgeTransport
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves a recording's host side to live journeys over the WebSocket server
/// (`bridgescope replay FILE --as-host --listen HOST:PORT`): each WebSocket connection
/// plays one recorded connection (the n-th live connection the n-th recorded one, round
/// robin) through a ``PlaybackConnection``; `/bridge.js` and `/journeys/` are served as by
/// the reference host.
public final class PlaybackServer: Sendable {
    /// What to serve.
    public struct Options: Sendable {
        /// Server settings (address, journeys folder, origins, deflate).
        public var server: WebSocketServerConfiguration
        /// Response delays and event offsets: `asap` answers at once, `recorded` after the
        /// recorded latency, `xN` after it divided by N.
        public var pacing: ReplayPacing
        /// Stop after the first `journey.complete` or `journey.error`.
        public var exitOnJourneyEnd: Bool
        /// Write every message as a tap log here.
        public var transcriptPath: String?
        /// Play only this recorded connection, for every live one.
        public var connection: String?

        /// Creates options.
        public init(server: WebSocketServerConfiguration, pacing: ReplayPacing = .recorded, exitOnJourneyEnd: Bool = false,
                    transcriptPath: String? = nil, connection: String? = nil) {
            self.server = server
            self.pacing = pacing
            self.exitOnJourneyEnd = exitOnJourneyEnd
            self.transcriptPath = transcriptPath
            self.connection = connection
        }
    }

    /// Where the server listens, for the startup lines.
    public struct Listening: Sendable {
        /// `ws://host:port/bridge`.
        public var webSocketURL: String
        /// `http://host:port/journeys/<name>.html` for each journey served.
        public var journeyURLs: [String]
    }

    private let options: Options
    private let logger: Logger
    private let server: WebSocketServer
    private let sessions: AsyncStream<PlaybackSession>
    private let transcript: TranscriptWriter?
    private let report = ReportBox()

    /// Prepares the server (nothing is bound yet).
    ///
    /// - Throws: ``ReplayError``: `usage` when the session has no connection (or not the
    ///   one asked for), `server` when the transcript cannot be written.
    public init(session: ReplaySession, options: Options, logger: Logger) throws(ReplayError) {
        var connections = session.connections
        if let only = options.connection {
            connections = connections.filter { $0.id == only }
            guard !connections.isEmpty else {
                let ids = session.connections.map(\.id).joined(separator: ", ")
                throw ReplayError(.usage, "the archive has no connection \"\(only)\" (it has: \(ids.isEmpty ? "none" : ids))")
            }
        }
        guard !connections.isEmpty else { throw ReplayError(.usage, "the archive holds no messages to play back") }
        let scripts = connections.map(PlaybackScript.init(connection:))
        self.options = options
        self.logger = logger
        do {
            transcript = try options.transcriptPath.map { try TranscriptWriter(path: $0) }
        } catch {
            throw ReplayError(.server, "cannot write the transcript \(options.transcriptPath ?? ""): \(error)")
        }
        let transcript = self.transcript
        let report = self.report
        let exitOnEnd = options.exitOnJourneyEnd
        let serverBox = ReportBox.ServerBox()
        let observer: PlaybackSession.Observer = { info, direction, message in
            transcript?.write(connection: info.id, direction: direction, message: message)
            guard direction == .webToHost, let end = JourneyEnd.detect(message) else { return }
            logger.notice("\(end)", metadata: ["conn": "\(info.id)"])
            if report.setOutcome(end) && exitOnEnd, let server = serverBox.server {
                Task { await server.shutdown() }
            }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: PlaybackSession.self)
        sessions = stream
        let counter = ReportBox.Counter()
        let pacing = options.pacing
        server = WebSocketServer(configuration: options.server, logger: logger) { info in
            let script = scripts[counter.next() % scripts.count]
            logger.info("playing recorded connection \(script.id)", metadata: ["conn": "\(info.id)"])
            let session = PlaybackSession(info: info, script: script, pacing: pacing, observer: observer)
            continuation.yield(session)
            return session
        }
        server.onShutdown { continuation.finish() }
        serverBox.server = server
    }

    /// Binds, reports the WebSocket URL and journey URLs, serves until ``shutdown()`` (or
    /// the journey's end with `exitOnJourneyEnd`), and returns what happened.
    ///
    /// - Throws: ``ReplayError`` (`server`) when it cannot listen.
    public func run(onListening: @Sendable (Listening) -> Void) async throws(ReplayError) -> PlaybackReport {
        let port: Int
        do {
            port = try await server.start()
        } catch {
            let cfg = options.server
            throw ReplayError(.server, "cannot listen on \(cfg.host):\(cfg.port): \(NetworkErrorText.describe(error)) (is another host running? try another --listen port)")
        }
        let host = options.server.host.contains(":") ? "[\(options.server.host)]" : options.server.host
        let routes = StaticRoutes(journeysDirectory: options.server.journeysDirectory)
        onListening(Listening(webSocketURL: "ws://\(host):\(port)/bridge",
                              journeyURLs: routes.journeys.map { "http://\(host):\(port)/journeys/\($0)" }))
        let report = self.report
        await withTaskGroup(of: Void.self) { group in
            for await session in sessions {
                group.addTask {
                    await Self.sendDelayed(session)
                    report.add(session.state)
                }
            }
        }
        transcript?.close()
        return report.value
    }

    /// Stops accepting, closes every socket with 1001.
    public func shutdown() async {
        await server.shutdown()
    }

    /// Sends the session's delayed batches at their times until the socket closes
    /// (what is still waiting then is dropped).
    static func sendDelayed(_ session: PlaybackSession) async {
        await withTaskGroup(of: Void.self) { group in
            for await batch in session.delayed {
                group.addTask {
                    for o in batch {
                        let delay = o.at - wallClock()
                        if delay > 0 {
                            do { try await Task.sleep(nanoseconds: UInt64(delay)) } catch { return }
                        }
                        session.send(o.bytes)
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// Wall-clock epoch nanoseconds (envelope timestamps are epoch milliseconds).
    static func wallClock() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// The report shared by the connection tasks.
final class ReportBox: Sendable {
    private let report = Mutex(PlaybackReport())

    var value: PlaybackReport { report.withLock { $0 } }

    func add(_ c: PlaybackConnection) { report.withLock { $0.add(c) } }

    /// Sets the outcome if none was set; returns whether this was the first.
    func setOutcome(_ o: JourneyEnd) -> Bool {
        report.withLock {
            if $0.outcome != nil { return false }
            $0.outcome = o
            return true
        }
    }

    /// Numbers live connections 0, 1, 2, ...
    final class Counter: Sendable {
        private let n = Mutex(0)
        func next() -> Int { n.withLock { v in defer { v += 1 }; return v } }
    }

    /// Lets the observer (made before the server) reach the server.
    final class ServerBox: Sendable {
        private let stored = Mutex<WebSocketServer?>(nil)
        var server: WebSocketServer? {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }
}
