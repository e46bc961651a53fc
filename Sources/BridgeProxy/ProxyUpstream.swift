import BridgeCapture
import BridgeTransport
import BridgeWebSocket
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Opens the upstream WebSocket for one page connection on a given event loop.
enum ProxyUpstream {
    /// How the attempt ended.
    enum Upgrade {
        /// Upgraded: the handler is in the pipeline.
        case upgraded(ProxyUpstreamHandler)
        /// The host did not upgrade: why, as a sentence for the archive's `error` event.
        case refused(String)
    }

    /// The upstream accepted the connection but did not complete the upgrade in time.
    struct UpgradeTimeout: Error, CustomStringConvertible {
        var seconds: Double
        var connected: Bool
        var description: String {
            connected ? "connected but no answer to the WebSocket upgrade within \(Self.format(seconds)) s"
                : "no TCP connection within \(Self.format(seconds)) s"
        }
        static func format(_ s: Double) -> String { s == s.rounded() ? "\(Int(s))" : "\(s)" }
    }

    /// Connects to `url` on `eventLoop`, upgrades (offering permessage-deflate when
    /// `deflate`, sending `origin` when given), installs the handler `make` builds for
    /// the negotiated codec, and calls `done` once, on `eventLoop`, with the outcome.
    static func connect(to url: WebSocketURL, origin: String?, deflate: Bool, maxMessageBytes: Int, timeout: TimeAmount,
                        on eventLoop: EventLoop, make: @escaping (PerMessageDeflate?) -> ProxyUpstreamHandler,
                        done: @escaping (Result<Upgrade, Error>) -> Void) {
        let outcome = NIOLoopBound(Outcome(done), eventLoop: eventLoop)
        let factory = NIOLoopBound(make, eventLoop: eventLoop)
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(url.host):\(url.port)")
        if let origin { headers.add(name: "Origin", value: origin) }
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.path, headers: headers)
        // The upstream's FIN arrives as `inputClosed` (remote half-closure), held back by
        // the latch while the upgrade runs: what came with the 101 reaches the handler
        // first (an upstream that sent its 101, a message, a close frame and its FIN in one
        // read lost the message, and the page waited forever).
        let latch = NIOLoopBoundBox<InputClosedLatch?>(nil, eventLoop: eventLoop)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let first = InputClosedLatch(closesOnEarlyEnd: true)
                    try channel.pipeline.syncOperations.addHandler(first, position: .first)
                    latch.value = first
                    let requester = UpgradeRequester(head: head, deflate: deflate) { status in
                        outcome.value.finish(.success(.refused("answered HTTP \(status) instead of upgrading (wrong path, or the page's Origin is not allowed there)")))
                    }
                    let bound = NIOLoopBound(requester, eventLoop: channel.eventLoop)
                    let upgrader = NIOWebSocketClientUpgrader(
                        maxFrameSize: maxMessageBytes, automaticErrorHandling: true,
                        upgradePipelineHandler: { channel, response in
                            channel.eventLoop.makeCompletedFuture {
                                let header = response.headers["sec-websocket-extensions"].joined(separator: ", ")
                                let agreement = deflate && !header.isEmpty ? DeflateAgreement.negotiate(offerHeader: header) : nil
                                let codec = try agreement.map { try PerMessageDeflate(agreement: $0, maxMessageBytes: maxMessageBytes, isServer: false) }
                                let handler = factory.value(codec)
                                // Frames that came with the 101 must reach the handler, not the requester.
                                channel.pipeline.syncOperations.removeHandler(bound.value, promise: nil)
                                // NIO's frame decoder buffers a whole frame before anyone can look at
                                // it; the handler reads bytes with FrameReader (as the page side), so
                                // every length is checked against the limits first. It goes before the
                                // decoder, whose removal takes a turn of the loop: the bytes that came
                                // with the 101, forwarded in this turn, must reach the handler as bytes.
                                let decoder = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                                try channel.pipeline.syncOperations.addHandler(handler, position: .before(decoder.handler))
                                channel.pipeline.syncOperations.removeHandler(context: decoder, promise: nil)
                                outcome.value.finish(.success(.upgraded(handler)))
                            }
                        })
                    // Frames sent right behind the 101 arrive in the same read: forward them
                    // (the default drops them, and under context takeover every later
                    // message would then fail to inflate).
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    try channel.pipeline.syncOperations.addHandler(requester)
                }
            }
        // One deadline for connecting and upgrading: an upstream that accepts the TCP
        // connection and never answers must not hold the page (issue 20: it did, 120 s).
        let connection = NIOLoopBoundBox<Channel?>(nil, eventLoop: eventLoop)
        let deadline = eventLoop.scheduleTask(in: timeout) {
            let connected = connection.value != nil
            outcome.value.finish(.failure(UpgradeTimeout(seconds: Double(timeout.nanoseconds) / 1e9, connected: connected)))
            connection.value?.close(promise: nil)
        }
        bootstrap.connect(host: url.host, port: url.port).whenComplete { result in
            switch result {
            case .failure(let error):
                deadline.cancel()
                outcome.value.finish(.failure(error))
            case .success(let channel):
                connection.value = channel
                channel.closeFuture.whenComplete { _ in
                    deadline.cancel()
                    outcome.value.finish(.success(.refused("closed the connection before completing the WebSocket upgrade")))
                }
            }
        }
        outcome.value.onFinish = {
            deadline.cancel()
            if let first = latch.value, let channel = connection.value { first.release(channel) }
        }
    }

    /// Calls its closure once.
    private final class Outcome {
        private var done: ((Result<Upgrade, Error>) -> Void)?
        var onFinish: (() -> Void)?
        init(_ done: @escaping (Result<Upgrade, Error>) -> Void) { self.done = done }
        func finish(_ result: Result<Upgrade, Error>) {
            let d = done
            done = nil
            if d != nil { onFinish?(); onFinish = nil }
            d?(result)
        }
    }
}

/// Sends the upgrade request when the connection is up (the upgrade handler in front of
/// it adds the WebSocket headers); any HTTP answer that reaches it means "not upgraded".
private final class UpgradeRequester: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private var head: HTTPRequestHead
    private let refused: (String) -> Void

    init(head: HTTPRequestHead, deflate: Bool, refused: @escaping (String) -> Void) {
        self.head = head
        if deflate { self.head.headers.add(name: "Sec-WebSocket-Extensions", value: "permessage-deflate; client_max_window_bits") }
        self.refused = refused
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context: context)
        context.fireChannelActive()
    }

    private var sent = false

    private func sendRequest(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let response) = unwrapInboundIn(data) {
            refused("\(response.status.code)")
        } else {
            refused("without a status line")
        }
        context.close(promise: nil)
    }
}
