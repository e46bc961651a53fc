import BridgeClient
import BridgeWebSocket
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The proxy's connection to the real host, kept on the page connection's event loop so
/// relaying a message is a function call, not a thread hop: frames in → ``MessageAssembler``
/// → inflate → `onMessage`; messages out → deflate → masked frames. Answers pings, echoes
/// the host's close, and reports the end once through `onClose`.
///
/// Every method runs on the channel's event loop.
final class ProxyUpstreamHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Bytes queued toward a host that stopped reading before the connection is dropped: 32 MiB.
    static let maxQueuedBytes = 32 << 20

    private var assembler: MessageAssembler
    private let codec: PerMessageDeflate?
    private let onMessage: ([UInt8]) -> Void
    private let onClose: (CloseCode?, String) -> Void
    private var context: ChannelHandlerContext?
    private var closing = false
    private var reported = false
    private var closeCode: CloseCode?
    private var queuedBytes = 0

    init(maxMessageBytes: Int, codec: PerMessageDeflate?, onMessage: @escaping ([UInt8]) -> Void,
         onClose: @escaping (CloseCode?, String) -> Void) {
        assembler = MessageAssembler(maxMessageBytes: maxMessageBytes, deflate: codec != nil, requireMasking: false)
        self.codec = codec
        self.onMessage = onMessage
        self.onClose = onClose
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard !closing else { return }
        let header = MessageAssembler.FrameHeader(fin: frame.fin, rsv1: frame.rsv1, rsv2: frame.rsv2, rsv3: frame.rsv3,
                                                  opcode: MessageAssembler.Opcode(rawValue: UInt8(webSocketOpcode: frame.opcode)),
                                                  masked: frame.maskKey != nil)
        if let failure = assembler.check(header: header, payloadLength: frame.length) {
            return perform(failure, context: context)
        }
        var payload = frame.unmaskedData
        perform(assembler.receive(header: header, payload: payload.readBytes(length: payload.readableBytes) ?? []), context: context)
    }

    private func perform(_ action: MessageAssembler.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .ping(let payload):
            write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: context.channel.allocator.buffer(bytes: payload)))
        case .peerClosed(let code, _):
            closeCode = code
            close(code == .goingAway ? .goingAway : .normal, reason: "upstream closed")
        case .fail(let code, let reason):
            close(code, reason: "upstream broke the protocol: \(reason)")
        case .message(_, let compressed, let payload):
            var message = payload
            if compressed, let codec {
                do { message = try codec.inflate(payload) } catch {
                    return close(error.kind == .tooLarge ? .messageTooBig : .invalidPayload, reason: "upstream message: \(error)")
                }
            }
            onMessage(message)
        }
    }

    /// Sends one text message (deflated when negotiated), masked as a client must.
    func send(_ message: [UInt8]) {
        guard !closing, let context, context.channel.isActive else { return }
        var payload = message
        var compressed = false
        if let codec {
            do { payload = try codec.deflate(message); compressed = true } catch {
                return close(.internalError, reason: "deflate failed: \(error)")
            }
        }
        write(WebSocketFrame(fin: true, rsv1: compressed, opcode: .text, maskKey: .random(),
                             data: context.channel.allocator.buffer(bytes: payload)))
    }

    private func write(_ frame: WebSocketFrame) {
        guard let context else { return }
        let size = frame.length
        queuedBytes += size
        if queuedBytes > Self.maxQueuedBytes {
            closing = true
            report(nil, "upstream stopped reading (\(queuedBytes) bytes queued)")
            context.close(promise: nil)
            return
        }
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in loopBound.value.queuedBytes -= size }
    }

    /// Sends a close frame with `code`, then closes the channel.
    func close(_ code: CloseCode, reason: String) {
        guard !closing, let context else { return }
        closing = true
        if closeCode == nil { closeCode = code }
        report(closeCode, reason)
        var data = context.channel.allocator.buffer(capacity: 2)
        data.writeInteger(code.rawValue)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)))
            .whenComplete { _ in ctx.value.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        report(closeCode, "upstream closed")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        report(closeCode, "upstream connection error: \(error)")
        context.close(promise: nil)
    }

    private func report(_ code: CloseCode?, _ reason: String) {
        guard !reported else { return }
        reported = true
        onClose(code, reason)
    }
}

/// Opens the upstream WebSocket for one page connection on a given event loop.
enum ProxyUpstream {
    /// How the attempt ended.
    enum Upgrade {
        /// Upgraded: the handler is in the pipeline.
        case upgraded(ProxyUpstreamHandler)
        /// The host answered without upgrading (wrong path, origin refused).
        case refused
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
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let requester = UpgradeRequester(head: head, deflate: deflate) { outcome.value.finish(.success(.refused)) }
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
                                try channel.pipeline.syncOperations.addHandler(handler)
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
        bootstrap.connect(host: url.host, port: url.port).whenComplete { result in
            switch result {
            case .failure(let error):
                outcome.value.finish(.failure(error))
            case .success(let channel):
                channel.closeFuture.whenComplete { _ in outcome.value.finish(.success(.refused)) }
            }
        }
    }

    /// Calls its closure once.
    private final class Outcome {
        private var done: ((Result<Upgrade, Error>) -> Void)?
        init(_ done: @escaping (Result<Upgrade, Error>) -> Void) { self.done = done }
        func finish(_ result: Result<Upgrade, Error>) {
            let d = done
            done = nil
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
    private let refused: () -> Void

    init(head: HTTPRequestHead, deflate: Bool, refused: @escaping () -> Void) {
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
        refused()
        context.close(promise: nil)
    }
}
