import BridgeWebSocket
import NIOCore

/// Where a connection's outgoing traffic goes: handed to a ``BridgeConnection`` when
/// the WebSocket opens. Safe to call from any thread or task; called on the connection's
/// event loop, it writes at once (no hop), otherwise it hops onto the loop.
public struct BridgeOutbound: Sendable {
    /// Sends one text message (one envelope).
    public let send: @Sendable ([UInt8]) -> Void
    /// Closes the connection with a code and reason.
    public let close: @Sendable (CloseCode, String) -> Void
    /// The connection's event loop (nil for sinks not backed by a channel, e.g. in tests):
    /// connections that run on it schedule their timers here.
    public let eventLoop: (any EventLoop)?

    /// Creates an outbound sink.
    public init(send: @escaping @Sendable ([UInt8]) -> Void, close: @escaping @Sendable (CloseCode, String) -> Void,
                eventLoop: (any EventLoop)? = nil) {
        self.send = send
        self.close = close
        self.eventLoop = eventLoop
    }
}

/// Facts about one WebSocket connection, for logs and for the session behind it.
public struct ConnectionInfo: Sendable, Hashable {
    /// Server-assigned id, unique for the server's lifetime (`c1`, `c2`, ...).
    public var id: String
    /// The peer's address, as text.
    public var remote: String
    /// The handshake's `Origin`, if any.
    public var origin: String?
    /// Whether permessage-deflate is in use.
    public var deflate: Bool
}

/// The application side of one WebSocket connection: one per WebView (one reference host
/// per connection). Called on the connection's event loop; must not block.
public protocol BridgeConnection: AnyObject, Sendable {
    /// The socket opened; `outbound` stays valid until ``closed(code:)``.
    func opened(outbound: BridgeOutbound)
    /// One complete, valid UTF-8 text message arrived.
    func received(_ message: [UInt8])
    /// The socket closed (code sent or received, when known). Nothing more will arrive.
    func closed(code: CloseCode?)
}

/// Makes the application side of a new connection.
public typealias BridgeConnectionFactory = @Sendable (ConnectionInfo) -> any BridgeConnection
