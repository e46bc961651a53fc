import BridgeWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// Sent down a pipeline to ask an open WebSocket to close with 1001 (server shutdown).
struct ShutdownEvent: Sendable {}

/// Sent down a pipeline when the server's ``MemoryBudget`` wants the connection's bytes
/// back: it closes with 1013.
struct EvictEvent: Sendable {}

/// The per-connection WebSocket handler: bytes in → ``FrameReader`` → ``MessageAssembler``
/// → inflate (in slices) → UTF-8 check → ``BridgeConnection``; envelopes out → deflate →
/// frames. Also keeps the connection alive with pings, closes idle, slow-sending and
/// slow-reading peers, paces fast senders, and reports what it holds to the server's
/// ``MemoryBudget`` (docs/SECURITY.md).
///
/// Everything runs on the channel's event loop. Frames written while a read batch is being
/// handled (answers sent from ``BridgeConnection/received(_:)``) are flushed once, at the
/// end of the batch (`channelReadComplete`); frames written at any other time are flushed
/// at once.
final class WebSocketBridgeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    let info: ConnectionInfo
    let configuration: WebSocketServerConfiguration
    let connection: any BridgeConnection
    let codec: PerMessageDeflate?
    var assembler: MessageAssembler
    let logger: Logger
    var closing = false
    var closedCode: CloseCode?
    var lastInbound = NIODeadline.now()
    var keepAlive: RepeatedTask?
    var idleTimer: Scheduled<Void>?
    /// Inside a read batch: writes wait for `channelReadComplete` to be flushed.
    var inReadBatch = false
    var needsFlush = false
    var messagesIn = 0, messagesOut = 0, bytesIn = 0, bytesOut = 0

    // Limits (WebSocketBridgeHandler+Limits.swift).
    var reader = FrameReader()
    /// Bytes read but not yet parsed because the connection is paused.
    var unread: ByteBuffer?
    /// Set while a message is being inflated in slices, or while a fast sender waits.
    var paused = false
    var inflation: Inflation?
    let account: MemoryBudget.Account
    /// Tells admission when the first message arrives (a connection that has spoken is
    /// never evicted).
    let admission: AdmissionTicket?
    var spoke = false
    var queuedBytes = 0
    /// The message timeout's state (when the frame or message in progress began).
    var messageClock: MessageClock
    var messageTimer: Scheduled<Void>?
    /// Token bucket of ``WebSocketServerConfiguration/maxInboundBytesPerSecond``.
    var rate: InboundRate
    /// Where the connection's outbound calls land, until the handler is removed.
    let sink = OutboundSink()

    init(info: ConnectionInfo, configuration: WebSocketServerConfiguration, connection: any BridgeConnection,
         codec: PerMessageDeflate?, account: MemoryBudget.Account, admission: AdmissionTicket? = nil, logger: Logger) {
        self.info = info
        self.configuration = configuration
        self.connection = connection
        self.codec = codec
        self.assembler = MessageAssembler(maxMessageBytes: configuration.maxMessageBytes, deflate: codec != nil,
                                          requireMasking: true)
        self.account = account
        self.admission = admission
        self.messageClock = MessageClock(timeout: configuration.messageTimeout)
        self.rate = InboundRate(bytesPerSecond: configuration.maxInboundBytesPerSecond, maxMessageBytes: configuration.maxMessageBytes)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        // The outbound reaches this handler only through `sink` (see OutboundSink).
        sink.handler = self
        sink.context = context
        let sink = NIOLoopBound(sink, eventLoop: eventLoop)
        let outbound = BridgeOutbound(
            send: { bytes in
                if eventLoop.inEventLoop {
                    sink.value.send(bytes)
                } else {
                    eventLoop.execute { sink.value.send(bytes) }
                }
            },
            close: { code, reason in eventLoop.execute { sink.value.close(code, reason) } },
            eventLoop: eventLoop
        )
        logger.notice("connection open", metadata: ["conn": "\(info.id)", "remote": "\(info.remote)",
                                                  "origin": "\(info.origin ?? "-")", "deflate": "\(info.deflate)"])
        let interval = TimeAmount.milliseconds(Int64(configuration.pingInterval * 1000))
        keepAlive = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            loopBound.value.tick(context: ctx.value)
        }
        armIdleTimer(context: context)
        connection.opened(outbound: outbound)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimers()
        account.close()
        sink.handler = nil
        sink.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimers()
        inflation = nil
        reader = FrameReader()
        unread = nil
        account.close()
        logger.notice("connection closed", metadata: [
            "conn": "\(info.id)", "code": "\(closedCode.map(\.description) ?? "none")",
            "messagesIn": "\(messagesIn)", "messagesOut": "\(messagesOut)", "bytesIn": "\(bytesIn)", "bytesOut": "\(bytesOut)",
        ])
        connection.closed(code: closedCode)
        context.fireChannelInactive()
    }

    private func stopTimers() {
        keepAlive?.cancel()
        idleTimer?.cancel()
        messageTimer?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ShutdownEvent {
            close(.goingAway, "server shutting down", context: context)
        } else if event is EvictEvent {
            logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "1013",
                                                           "reason": "evicted: holding \(account.held) bytes of the memory budget"])
            close(.tryAgainLater, "server memory budget needed elsewhere; try again later", context: context)
        } else if let evict = event as? AdmissionEvictEvent {
            logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "1013", "reason": "\(evict.reason)"])
            close(.tryAgainLater, evict.reason, immediately: true, context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        lastInbound = .now()
        guard !closing else { return }
        inReadBatch = true
        if var held = unread {
            unread = nil
            held.writeBuffer(&bytes)
            bytes = held
        }
        if paused {
            unread = bytes
            return
        }
        readFrames(&bytes, context: context)
        if bytes.readableBytes > 0 && !closing { unread = bytes }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inReadBatch = false
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
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

    func perform(_ action: MessageAssembler.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .ping(let payload):
            write(WebSocketFrame(fin: true, opcode: .pong, data: context.channel.allocator.buffer(bytes: payload)), context: context)
        case .peerClosed(let code, _):
            if let code, !code.isValidOnWire {
                logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "1002", "reason": "close code \(code.rawValue)"])
                return close(.protocolError, "close code \(code.rawValue) is not allowed on the wire", context: context)
            }
            closedCode = code
            close(code == nil ? .normal : (code! == .goingAway ? .goingAway : .normal), "", context: context)
        case .fail(let code, let reason):
            logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "\(code)", "reason": "\(reason)"])
            close(code, reason, context: context)
        case .message(let text, let compressed, let payload):
            guard text else {
                return close(.unacceptableData, "binary messages are not accepted: send one envelope per text frame", context: context)
            }
            if compressed, let codec {
                inflation = codec.beginInflating(payload)
                continueInflating(context: context)
            } else {
                deliver(payload, context: context)
            }
        }
    }

    /// Hands a complete (inflated) message to the connection after the UTF-8 check.
    func deliver(_ message: [UInt8], alreadySpent: Int = 0, context: ChannelHandlerContext) {
        guard Self.isValidUTF8(message) else {
            logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "1007", "reason": "invalid UTF-8"])
            return close(.invalidPayload, "text message is not valid UTF-8", context: context)
        }
        messagesIn += 1
        bytesIn += message.count
        if !spoke {
            spoke = true
            admission?.spoke()
        }
        spendRate(message.count - alreadySpent, context: context)
        connection.received(message)
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

    func write(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
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
        var promise: EventLoopPromise<Void>?
        if queued + frame.length > MemoryBudget.smallAllowance {
            // A large queue counts against the budget until it drains.
            queuedBytes = queued + frame.length
            account.force(heldBytes())
            promise = context.eventLoop.makePromise()
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let channel = context.channel
            promise!.futureResult.whenComplete { _ in
                let handler = loopBound.value
                handler.queuedBytes = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
                handler.account.force(handler.heldBytes())
            }
        }
        if inReadBatch {
            context.write(wrapOutboundOut(frame), promise: promise)
            needsFlush = true
        } else {
            context.writeAndFlush(wrapOutboundOut(frame), promise: promise)
        }
    }

    /// The close frame is written behind whatever is queued; a peer that does not read it
    /// within this time has its socket closed anyway.
    static let closeGrace = TimeAmount.seconds(2)

    /// Sends a close frame with `code`, then shuts the socket's output and reads (and
    /// drops) what the peer still sends until it closes too, or ``closeGrace`` ends.
    /// Closing at once would make the kernel answer the peer's unread bytes with a reset,
    /// which can destroy the close frame before the peer reads it (RFC 6455 §7.1.1: the
    /// server should let the client see the close). What the connection held is given
    /// back at once. `immediately` closes the socket as soon as the close frame is out (an
    /// evicted connection that never sent anything has nothing unread to be reset over,
    /// and its descriptor is wanted now).
    func close(_ code: CloseCode, _ reason: String, immediately: Bool = false, context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        if closedCode == nil { closedCode = code }
        reader = FrameReader()
        inflation = nil
        unread = nil
        assembler = MessageAssembler(maxMessageBytes: configuration.maxMessageBytes, deflate: codec != nil, requireMasking: true)
        account.force(queuedBytes)
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code.rawValue)
        data.writeString(String(reason.utf8.prefix(123)) ?? "")
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { result in
            guard case .success = result, !immediately else { return ctx.value.close(promise: nil) }
            // A half-close the channel cannot do falls back to a full one.
            let halfClosed = ctx.value.eventLoop.makePromise(of: Void.self)
            halfClosed.futureResult.whenFailure { _ in ctx.value.close(promise: nil) }
            ctx.value.close(mode: .output, promise: halfClosed)
        }
        context.eventLoop.scheduleTask(in: Self.closeGrace) { ctx.value.close(promise: nil) }
    }

    /// Keep-alive: ping (the idle timeout has its own timer, ``armIdleTimer(context:)``).
    private func tick(context: ChannelHandlerContext) {
        guard !closing else { return }
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
