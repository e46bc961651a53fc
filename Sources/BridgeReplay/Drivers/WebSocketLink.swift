import BridgeTransport
import Foundation
import Logging
import Synchronization

/// A live host over WebSocket (``WebSocketClient``): one socket per replayed connection.
struct WebSocketLink: ReplayLink {
    let session: WebSocketSession

    /// What the host sent.
    public var messages: AsyncStream<[UInt8]> { session.messages }

    /// Sends one text message.
    public func send(_ message: [UInt8]) async throws {
        try await session.send(message)
    }

    /// Connects to `url` (retrying `retries` times, waiting 200 ms, 400 ms, ... between
    /// attempts), runs `body` with the open link, then closes with 1000.
    ///
    /// - Throws: ``ReplayError`` (`connection`) when no attempt connects, with the
    ///   client's explanation (refused, timed out, upgrade refused).
    public static func with<T: Sendable>(url: WebSocketURL, options: WebSocketClientOptions, retries: Int, logger: Logger,
                                         _ body: @escaping @Sendable (WebSocketLink) async -> T) async throws(ReplayError) -> T {
        let result = ResultBox<T>()
        var lastError = ""
        for attempt in 0...max(0, retries) {
            if attempt > 0 {
                let delay = UInt64(200_000_000) << UInt64(min(attempt - 1, 5))
                logger.debug("retrying connection", metadata: ["url": "\(url)", "attempt": "\(attempt + 1)"])
                try? await Task.sleep(nanoseconds: delay)
            }
            do {
                _ = try await WebSocketClient.withConnection(to: url, options: options) { session in
                    result.enter()
                    result.set(await body(WebSocketLink(session: session)))
                }
            } catch {
                if result.value == nil && !result.entered {
                    lastError = "\(error)"
                    continue
                }
            }
            if let v = result.value { return v }
            if result.entered { break }
        }
        if let v = result.value { return v }
        let tries = retries > 0 ? " (\(retries + 1) attempts)" : ""
        throw ReplayError(.connection, lastError.isEmpty ? "the connection to \(url) failed\(tries)" : "\(lastError)\(tries)")
    }
}

/// Holds a body's result across a throwing call (the connection may fail after the body
/// finished; then the result still counts).
final class ResultBox<T: Sendable>: Sendable {
    private let state = Mutex<(stored: T?, started: Bool)>((nil, false))

    var value: T? { state.withLock { $0.stored } }
    var entered: Bool { state.withLock { $0.started } }

    func enter() { state.withLock { $0.started = true } }
    func set(_ v: T) { state.withLock { $0 = (v, true) } }
}
