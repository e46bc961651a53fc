import BridgeArchive
import BridgeClient
import BridgeServer
import BridgeWebSocket
import Logging
import NIOConcurrencyHelpers

/// One page connection of the recording proxy: the server side is a ``BridgeConnection``
/// of ``BridgeServer`` (the reference host's WebSocket machinery: origin check,
/// permessage-deflate, pings, limits); the upstream side is a ``WebSocketClient``
/// session to the real host. Every message is recorded when the proxy receives it
/// (`w2h` from the page, `h2w` from upstream), then relayed unchanged; `open` and
/// `close` events delimit the connection.
///
/// Messages the page sends before the upstream connection is up wait in order. When
/// either side closes, the other is closed too; an upstream that cannot be reached
/// becomes an `error` event and the page is closed with 1014 (bad gateway).
final class ProxyConnection: BridgeConnection {
    /// Close code sent to the page when upstream is unreachable (RFC 6455 §7.4.1: bad gateway).
    static let badGateway = CloseCode(rawValue: 1014)

    let info: ConnectionInfo
    private let options: ProxyOptions
    private let queue: ProxyEventQueue
    private let logger: Logger
    private let pageMessages: AsyncStream<[UInt8]>
    private let pageContinuation: AsyncStream<[UInt8]>.Continuation
    /// Set when the page's socket closed (with its code, when known): nothing more is
    /// sent to it (its event loop may be gone after a shutdown).
    private let pageClose = NIOLockedValueBox<(closed: Bool, code: CloseCode?)>((false, nil))

    init(info: ConnectionInfo, options: ProxyOptions, queue: ProxyEventQueue, logger: Logger) {
        self.info = info
        self.options = options
        self.queue = queue
        self.logger = logger
        (pageMessages, pageContinuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    func opened(outbound: BridgeOutbound) {
        queue.event(.open, connection: info.id,
                    reason: "page \(Self.address(info.remote))\(info.origin.map { " (origin \($0))" } ?? "") to \(options.upstream)")
        Task { await relay(outbound) }
    }

    func received(_ message: [UInt8]) {
        queue.message(.webToHost, connection: info.id, bytes: message)
        pageContinuation.yield(message)
    }

    func closed(code: CloseCode?) {
        pageClose.withLockedValue { $0 = (true, code) }
        pageContinuation.finish()
    }

    /// `127.0.0.1:44458` from NIO's `[IPv4]127.0.0.1/127.0.0.1:44458`.
    static func address(_ remote: String) -> String {
        guard remote.hasPrefix("[IPv"), let slash = remote.firstIndex(of: "/") else { return remote }
        let rest = remote[remote.index(after: slash)...]
        guard remote.hasPrefix("[IPv6]"), let colon = rest.lastIndex(of: ":") else { return String(rest) }
        return "[\(rest[..<colon])]\(rest[colon...])"
    }

    /// Connects upstream and relays both ways until one side closes.
    private func relay(_ outbound: BridgeOutbound) async {
        let clientOptions = WebSocketClientOptions(deflate: options.deflate, origin: info.origin,
                                                   maxMessageBytes: options.maxMessageBytes)
        let id = info.id
        let queue = self.queue
        let pageMessages = self.pageMessages
        let pageClose = self.pageClose
        let toPage = BridgeOutbound(
            send: { message in if !pageClose.withLockedValue({ $0.closed }) { outbound.send(message) } },
            close: { code, reason in if !pageClose.withLockedValue({ $0.closed }) { outbound.close(code, reason) } })
        var reason: String
        do {
            reason = try await WebSocketClient.withConnection(to: options.upstream, options: clientOptions) { session in
                try await withThrowingTaskGroup(of: String.self) { group in
                    group.addTask {
                        for await message in pageMessages { try await session.send(message) }
                        return "page closed"
                    }
                    group.addTask {
                        for await message in session.messages {
                            queue.message(.hostToWeb, connection: id, bytes: message)
                            toPage.send(message)
                        }
                        let code = session.closeCode
                        if !Task.isCancelled { toPage.close(code == .goingAway ? .goingAway : .normal, "upstream closed") }
                        return "upstream closed" + (code.map { " (\($0.rawValue))" } ?? "")
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? "closed"
                }
            }
        } catch {
            logger.notice("upstream failed", metadata: ["conn": "\(id)", "error": "\(error)"])
            queue.event(.error, connection: id, reason: "upstream \(options.upstream): \(error)")
            toPage.close(Self.badGateway, "upstream unavailable")
            reason = "upstream failed"
        }
        if reason == "page closed", let code = pageClose.withLockedValue({ $0.code }) {
            reason += " (\(code.rawValue))"
        }
        queue.event(.close, connection: id, reason: reason)
    }
}
