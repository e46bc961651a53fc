import BridgeHost
import BridgeProtocol
import BridgeWebSocket
import Logging
import Synchronization

/// One WebSocket connection seen as a ``BridgeTransport``: what the web side sends comes
/// out of ``incoming``; ``send(_:)`` writes a text frame. Messages the host sends before
/// the socket is wired are queued, not lost. An optional observer sees both directions
/// (for transcripts and for ending a run when a journey ends).
public final class HostSession: BridgeConnection, BridgeTransport {
    /// Sees every message of the session, in order per direction.
    public typealias Observer = @Sendable (ConnectionInfo, Direction, [UInt8]) -> Void

    /// Facts about the connection.
    public let info: ConnectionInfo
    /// Messages from the web side; finishes when the socket closes.
    public let incoming: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let observer: Observer?
    private let state = Mutex(State())

    private struct State {
        var outbound: BridgeOutbound?
        var queued: [[UInt8]] = []
        var closed = false
    }

    /// Creates the session for a new connection.
    public init(info: ConnectionInfo, observer: Observer? = nil) {
        self.info = info
        self.observer = observer
        (incoming, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// See ``BridgeConnection/opened(outbound:)``.
    public func opened(outbound: BridgeOutbound) {
        let queued = state.withLock { s -> [[UInt8]] in
            s.outbound = outbound
            defer { s.queued = [] }
            return s.queued
        }
        for m in queued { outbound.send(m) }
    }

    /// See ``BridgeConnection/received(_:)``.
    public func received(_ message: [UInt8]) {
        observer?(info, .webToHost, message)
        continuation.yield(message)
    }

    /// See ``BridgeConnection/closed(code:)``.
    public func closed(code: CloseCode?) {
        state.withLock { $0.closed = true }
        continuation.finish()
    }

    /// Sends one host-to-web envelope (dropped once the socket is closed).
    public func send(_ message: [UInt8]) async throws {
        let outbound = state.withLock { s -> BridgeOutbound? in
            if s.closed { return nil }
            if s.outbound == nil { s.queued.append(message) }
            return s.outbound
        }
        observer?(info, .hostToWeb, message)
        outbound?.send(message)
    }

    /// Closes the socket with `code`.
    public func close(_ code: CloseCode, reason: String) {
        state.withLock { $0.outbound }?.close(code, reason)
    }
}

extension BridgeServer {
    /// A server whose every WebSocket connection is a ``HostSession``, delivered on the
    /// returned stream: the caller runs one host per session (structured concurrency
    /// stays with the caller). The stream finishes when ``shutdown(grace:)`` is called.
    public static func hostSessions(configuration: BridgeServerConfiguration, logger: Logger,
                                    observer: HostSession.Observer? = nil) -> (BridgeServer, AsyncStream<HostSession>) {
        let (stream, continuation) = AsyncStream.makeStream(of: HostSession.self)
        let server = BridgeServer(configuration: configuration, logger: logger) { info in
            let session = HostSession(info: info, observer: observer)
            continuation.yield(session)
            return session
        }
        server.onShutdown { continuation.finish() }
        return (server, stream)
    }
}
