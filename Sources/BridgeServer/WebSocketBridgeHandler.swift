import BridgeWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// Sent down a pipeline to ask an open WebSocket to close with 1001 (server shutdown).
struct ShutdownEvent: Sendable {}

/// The per-connection WebSocket handler: frames in → ``MessageAssembler`` → inflate →
/// UTF-8 check → ``BridgeConnection``; envelopes out → deflate → frames. Also keeps the
/// connection alive with pings, closes idle and slow-reading peers, and counts traffic.
///
/// Everything runs on the channel's event loop. Frames written while a read batch is being
/// handled (answers sent from ``BridgeConnection/received(_:)``) are flushed once, at the
/// end of the batch (`channelReadComplete`); frames written at any other time are flushed
/// at once.
final class WebSocketBridgeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let info: ConnectionInfo
    private let configuration: BridgeServerConfiguration
    private let connection: any BridgeConnection
    private let codec: PerMessageDeflate?
    private var assembler: MessageAssembler
    private let logger: Logger
    private var closing = false
    private var closedCode: CloseCode?
    private var lastInbound = NIODeadline.now()
    private var keepAlive: RepeatedTask?
    /// Inside a read batch: writes wait for `channelReadComplete` to be flushed.
    private var inReadBatch = false
    private var needsFlush = false
    private var messagesIn = 0, messagesOut = 0, bytesIn = 0, bytesOut = 0

    init(info: ConnectionInfo, configuration: BridgeServerConfiguration, connection: any BridgeConnection,
         codec: PerMessageDeflate?, logger: Logger) {
        self.info = info
        self.configuration = configuration
        self.connection = connection
        self.codec = codec
        self.assembler = MessageAssembler(maxMessageBytes: configuration.maxMessageBytes, deflate: codec != nil,
                                          requireMasking: true)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let outbound = BridgeOutbound(
            send: { bytes in
                if eventLoop.inEventLoop {
                    loopBound.value.send(bytes, context: ctx.value)
                } else {
                    eventLoop.execute { loopBound.value.send(bytes, context: ctx.value) }
                }
            },
            close: { code, reason in eventLoop.execute { loopBound.value.close(code, reason, context: ctx.value) } },
            eventLoop: eventLoop
        )
        logger.notice("connection open", metadata: ["conn": "\(info.id)", "remote": "\(info.remote)",
                                                  "origin": "\(info.origin ?? "-")", "deflate": "\(info.deflate)"])
        let interval = TimeAmount.milliseconds(Int64(configuration.pingInterval * 1000))
        keepAlive = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            loopBound.value.tick(context: ctx.value)
        }
        connection.opened(outbound: outbound)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        keepAlive?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepAlive?.cancel()
        logger.notice("connection closed", metadata: [
            "conn": "\(info.id)", "code": "\(closedCode.map(\.description) ?? "none")",
            "messagesIn": "\(messagesIn)", "messagesOut": "\(messagesOut)", "bytesIn": "\(bytesIn)", "bytesOut": "\(bytesOut)",
        ])
        connection.closed(code: closedCode)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ShutdownEvent {
            close(.goingAway, "server shutting down", context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        lastInbound = .now()
        guard !closing else { return }
        inReadBatch = true
        guard let opcode = MessageAssembler.Opcode(frame.opcode) else {
            return close(.protocolError, "unknown opcode", context: context)
        }
        let header = MessageAssembler.FrameHeader(fin: frame.fin, rsv1: frame.rsv1, rsv2: frame.rsv2, rsv3: frame.rsv3,
                                                  opcode: opcode, masked: frame.maskKey != nil)
        if let failure = assembler.check(header: header, payloadLength: frame.length) {
            return perform(failure, context: context)
        }
        perform(assembler.receive(header: header, payload: Self.unmaskedBytes(frame)), context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inReadBatch = false
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// The frame's payload, unmasked, copied once into an array.
    static func unmaskedBytes(_ frame: WebSocketFrame) -> [UInt8] {
        frame.data.withUnsafeReadableBytes { src in
            [UInt8](unsafeUninitializedCapacity: src.count) { dst, count in
                if let key = frame.maskKey {
                    let k = (key[0], key[1], key[2], key[3])
                    var i = 0
                    while i + 4 <= src.count {
                        dst[i] = src[i] ^ k.0
                        dst[i + 1] = src[i + 1] ^ k.1
                        dst[i + 2] = src[i + 2] ^ k.2
                        dst[i + 3] = src[i + 3] ^ k.3
                        i += 4
                    }
                    while i < src.count {
                        dst[i] = src[i] ^ key[i & 3]
                        i += 1
                    }
                } else if let base = src.baseAddress, src.count > 0 {
                    dst.baseAddress!.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: src.count)
                }
                count = src.count
            }
        }
    }

    /// Whether `bytes` are valid UTF-8: a word-at-a-time ASCII check first (envelopes are
    /// nearly always ASCII), the standard library's validation otherwise.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        let ascii = bytes.withUnsafeBytes { raw -> Bool in
            var i = 0
            var acc: UInt64 = 0
            while i + 8 <= raw.count {
                acc |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < raw.count {
                acc |= UInt64(raw[i])
                i += 1
            }
            return acc & 0x8080_8080_8080_8080 == 0
        }
        return ascii || String(validating: bytes, as: UTF8.self) != nil
    }

    private func perform(_ action: MessageAssembler.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .ping(let payload):
            write(WebSocketFrame(fin: true, opcode: .pong, data: context.channel.allocator.buffer(bytes: payload)), context: context)
        case .peerClosed(let code, _):
            closedCode = code
            close(code == nil ? .normal : (code! == .goingAway ? .goingAway : .normal), "", context: context)
        case .fail(let code, let reason):
            logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "\(code)", "reason": "\(reason)"])
            close(code, reason, context: context)
        case .message(let text, let compressed, let payload):
            guard text else {
                return close(.unacceptableData, "binary messages are not accepted: send one envelope per text frame", context: context)
            }
            var message = payload
            if compressed, let codec {
                do { message = try codec.inflate(payload) } catch {
                    let code: CloseCode = error.kind == .tooLarge ? .messageTooBig : .invalidPayload
                    logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "\(code)", "reason": "\(error)"])
                    return close(code, error.description, context: context)
                }
            }
            guard Self.isValidUTF8(message) else {
                logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "1007", "reason": "invalid UTF-8"])
                return close(.invalidPayload, "text message is not valid UTF-8", context: context)
            }
            messagesIn += 1
            bytesIn += message.count
            connection.received(message)
        }
    }

    /// Sends one text message (deflated when negotiated).
    func send(_ message: [UInt8], context: ChannelHandlerContext) {
        guard !closing, context.channel.isActive else { return }
        var payload = message
        var compressed = false
        if let codec {
            do { payload = try codec.deflate(message); compressed = true } catch {
                logger.error("deflate failed", metadata: ["conn": "\(info.id)", "error": "\(error)"])
                return close(.internalError, "deflate failed", context: context)
            }
        }
        messagesOut += 1
        bytesOut += message.count
        let frame = WebSocketFrame(fin: true, rsv1: compressed, opcode: .text, data: context.channel.allocator.buffer(bytes: payload))
        write(frame, context: context)
    }

    private func write(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        // Bytes NIO holds that the kernel has not taken yet: a peer that stops reading makes
        // them grow until the cap.
        let queued = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        if queued + frame.length > configuration.maxOutboundQueuedBytes {
            logger.notice("peer stopped reading; dropping connection",
                          metadata: ["conn": "\(info.id)", "queued": "\(queued + frame.length)"])
            closing = true
            closedCode = .policyViolation
            context.close(promise: nil)
            return
        }
        if inReadBatch {
            context.write(wrapOutboundOut(frame), promise: nil)
            needsFlush = true
        } else {
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
    }

    /// Sends a close frame with `code`, then closes the channel.
    func close(_ code: CloseCode, _ reason: String, context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        if closedCode == nil { closedCode = code }
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code.rawValue)
        data.writeString(String(reason.utf8.prefix(123)) ?? "")
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in ctx.value.close(promise: nil) }
    }

    /// Keep-alive: ping, or close when the peer has been silent too long.
    private func tick(context: ChannelHandlerContext) {
        guard !closing else { return }
        let idle = NIODeadline.now() - lastInbound
        if idle > .milliseconds(Int64(configuration.idleTimeout * 1000)) {
            logger.notice("idle timeout", metadata: ["conn": "\(info.id)"])
            return close(.goingAway, "idle timeout", context: context)
        }
        write(WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(string: "keepalive")), context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.notice("connection error", metadata: ["conn": "\(info.id)", "error": "\(error)"])
        if closedCode == nil, let e = error as? NIOWebSocketError {
            closedCode = e == .invalidFrameLength ? .messageTooBig : .protocolError
        }
        context.close(promise: nil)
    }
}

extension MessageAssembler.Opcode {
    init?(_ opcode: WebSocketOpcode) {
        self.init(rawValue: UInt8(webSocketOpcode: opcode))
    }
}
