/// How the host meets the web side: messages in, messages out, as bytes. One element or
/// one `send` is one envelope (a WebSocket text frame, a stdin/stdout line).
///
/// The stdio transport lives here; the WebSocket server (issue 5) provides another.
public protocol HostTransport: Sendable {
    /// Messages from the web side, in order. The sequence ends when the peer closes; the
    /// host then finishes the requests in progress and ``BridgeHost/run(transport:)`` returns.
    var incoming: AsyncStream<[UInt8]> { get }
    /// Sends one host-to-web message (compact JSON without a newline). Called from one task
    /// at a time, in the order the host produced the messages.
    func send(_ message: [UInt8]) async throws
}

/// An in-memory transport for tests, fuzzers and in-process journeys: ``deliver(_:)``
/// plays the web side, ``sent`` yields what the host sent.
public final class MemoryTransport: HostTransport {
    /// Messages delivered to the host.
    public let incoming: AsyncStream<[UInt8]>
    /// Messages the host sent, in order; ends when the host's run ends.
    public let sent: AsyncStream<[UInt8]>
    private let incomingContinuation: AsyncStream<[UInt8]>.Continuation
    private let sentContinuation: AsyncStream<[UInt8]>.Continuation

    /// Creates an open transport.
    public init() {
        (incoming, incomingContinuation) = AsyncStream.makeStream(of: [UInt8].self)
        (sent, sentContinuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Delivers one message from the web side.
    public func deliver(_ message: [UInt8]) {
        incomingContinuation.yield(message)
    }

    /// Delivers one message given as text.
    public func deliver(_ text: String) {
        deliver(Array(text.utf8))
    }

    /// The web side closes: no more messages.
    public func close() {
        incomingContinuation.finish()
    }

    /// Records a message from the host.
    public func send(_ message: [UInt8]) async throws {
        sentContinuation.yield(message)
    }

    /// Called by the host when its run ends: ``sent`` finishes after the last message.
    func finishSending() {
        sentContinuation.finish()
    }
}
