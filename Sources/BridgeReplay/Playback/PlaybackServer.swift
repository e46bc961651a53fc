import BridgeArchive
import BridgeServer
import BridgeTransport
import Foundation
import Logging
import Synchronization
import BridgeClock

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
    public typealias Listening = ServerRunner.Listening

    private let options: Options
    private let runner: ServerRunner
    private let sessions: AsyncStream<PlaybackSession>
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
        let (stream, continuation) = AsyncStream.makeStream(of: PlaybackSession.self)
        sessions = stream
        let counter = ReportBox.Counter()
        let pacing = options.pacing
        do {
            runner = try ServerRunner(configuration: options.server, exitOnJourneyEnd: options.exitOnJourneyEnd,
                                      transcriptPath: options.transcriptPath, logger: logger) { info, hooks in
                let script = scripts[counter.next() % scripts.count]
                logger.info("playing recorded connection \(script.id)", metadata: ["conn": "\(info.id)"])
                // The page's journey end is read from its messages (a recording has no
                // host state machine to tell it).
                let session = PlaybackSession(info: info, script: script, pacing: pacing) { info, direction, message in
                    hooks.observe?(info, direction, message)
                    if direction == .webToHost, let end = JourneyEnd.detect(message) { hooks.journeyEnded(info, end) }
                }
                continuation.yield(session)
                return session
            }
        } catch {
            throw ReplayError(.server, "cannot write the transcript \(options.transcriptPath ?? ""): \(error)")
        }
        runner.onShutdown { continuation.finish() }
    }

    /// Binds, reports the WebSocket URL and journey URLs, serves until ``shutdown()`` (or
    /// the journey's end with `exitOnJourneyEnd`), and returns what happened.
    ///
    /// - Throws: ``ReplayError`` (`server`) when it cannot listen.
    public func run(onListening: @Sendable (Listening) -> Void) async throws(ReplayError) -> PlaybackReport {
        do {
            onListening(try await runner.start())
        } catch {
            let cfg = options.server
            throw ReplayError(.server, "cannot listen on \(cfg.host):\(cfg.port): \(NetworkErrorText.describe(error)) (is another host running? try another --listen port)")
        }
        let report = self.report
        await withTaskGroup(of: Void.self) { group in
            for await session in sessions {
                group.addTask {
                    await Self.sendDelayed(session)
                    report.add(session.state)
                }
            }
        }
        var result = report.value
        result.outcome = await runner.waitUntilShutDown()
        return result
    }

    /// Stops accepting, closes every socket with 1001.
    public func shutdown() async {
        await runner.shutdown()
    }

    /// Sends the session's delayed batches at their times until the socket closes
    /// (what is still waiting then is dropped).
    static func sendDelayed(_ session: PlaybackSession) async {
        await withTaskGroup(of: Void.self) { group in
            for await batch in session.delayed {
                group.addTask {
                    for o in batch {
                        let delay = o.at - WallClock.now.nanoseconds
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
}

/// The report shared by the connection tasks.
final class ReportBox: Sendable {
    private let report = Mutex(PlaybackReport())

    var value: PlaybackReport { report.withLock { $0 } }

    func add(_ c: PlaybackConnection) { report.withLock { $0.add(c) } }

    /// Numbers live connections 0, 1, 2, ...
    final class Counter: Sendable {
        private let n = Mutex(0)
        func next() -> Int { n.withLock { v in defer { v += 1 }; return v } }
    }
}
