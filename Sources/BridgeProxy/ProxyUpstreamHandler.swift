import BridgeCapture
import BridgeWebSocket
import NIOCore
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

    /// A deflated message over 1 MiB may inflate to at most this multiple of its size (as the server).
    static let maxInflationRatio = 100

    private let budget: MemoryBudget
    private var account: MemoryBudget.Account?

    init(maxMessageBytes: Int, codec: PerMessageDeflate?, budget: MemoryBudget, onMessage: @escaping ([UInt8]) -> Void,
         onClose: @escaping (CloseCode?, String) -> Void) {
        assembler = MessageAssembler(maxMessageBytes: maxMessageBytes, deflate: codec != nil, requireMasking: false)
        self.codec = codec
        self.budget = budget
        self.onMessage = onMessage
        self.onClose = onClose
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let channel = context.channel
        account = budget.account(evict: { channel.pipeline.fireUserInboundEventTriggered(Evict()) })
        if !channel.isActive {
            // The connection went while the upgrade was running (a reset: a FIN is held
            // back by the latch, see ProxyUpstream): `channelInactive` went by before this
            // handler existed. What came with the 101 is forwarded to it in this turn of
            // the event loop; the end is reported in the next (else the page waited for it
            // forever).
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.execute { handler.value.report(handler.value.closeCode, "upstream closed") }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        account?.close()
    }

    /// The memory budget wants this connection's bytes back.
    private struct Evict: Sendable {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            // The upstream's FIN (remote half-closure): it has said all it will.
            report(closeCode, "upstream closed")
            context.close(promise: nil)
        } else if event is Evict {
            close(.tryAgainLater, reason: "proxy memory budget needed elsewhere (\(account?.held ?? 0) bytes held toward the upstream)")
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Bytes held: the fragmented message and the queue toward the upstream.
    private func holding(_ extra: Int = 0) -> Int {
        assembler.bufferedByteCount + queuedBytes + outboxBytes + (deflation?.heldBytes ?? 0) + extra
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
        if let account, !account.request(holding(frame.length)) {
            return close(.tryAgainLater, reason: "proxy memory budget exhausted by a \(frame.length)-byte upstream frame")
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
            if let code, !code.isValidOnWire {
                return close(.protocolError, reason: "upstream sent close code \(code.rawValue), not allowed on the wire")
            }
            closeCode = code
            close(code == .goingAway ? .goingAway : .normal, reason: "upstream closed")
        case .fail(let code, let reason):
            close(code, reason: "upstream broke the protocol: \(reason)")
        case .message(_, let compressed, let payload):
            var message = payload
            if compressed, let codec {
                do {
                    var job = codec.beginInflating(payload)
                    while true {
                        if let out = try codec.continueInflating(&job, slice: 1 << 20, maxRatio: Self.maxInflationRatio) {
                            message = out
                            break
                        }
                        if let account, !account.request(holding(job.heldBytes + (1 << 20))) {
                            return close(.tryAgainLater, reason: "proxy memory budget exhausted inflating an upstream message")
                        }
                    }
                } catch {
                    let tooBig = error.kind == .tooLarge || error.kind == .tooCompressed
                    return close(tooBig ? .messageTooBig : .invalidPayload, reason: "upstream message: \(error)")
                }
            }
            account?.force(holding())
            onMessage(message)
        }
    }

    /// Messages over this size are deflated in slices of it, yielding to the loop between.
    static let deflateSliceBytes = 256 << 10

    /// Messages waiting behind one being deflated in slices.
    private var outbox: [[UInt8]] = []
    private var outboxBytes = 0
    private var deflation: Deflation?

    /// Sends one text message (deflated when negotiated), masked as a client must.
    func send(_ message: [UInt8]) {
        guard !closing, let context, context.channel.isActive else { return }
        if deflation != nil {
            outbox.append(message)
            outboxBytes += message.count
            account?.force(holding())
            return
        }
        var payload = message
        var compressed = false
        if let codec {
            if message.count > Self.deflateSliceBytes {
                deflation = codec.beginDeflating(message)
                return continueDeflating()
            }
            do { payload = try codec.deflate(message); compressed = true } catch {
                return close(.internalError, reason: "deflate failed: \(error)")
            }
        }
        write(WebSocketFrame(fin: true, rsv1: compressed, opcode: .text, maskKey: .random(),
                             data: context.channel.allocator.buffer(bytes: payload)))
    }

    /// Deflates the next slice of a large message; writes it when complete, then sends what
    /// waited behind it.
    private func continueDeflating() {
        guard !closing, let context, var job = deflation, let codec else { return }
        deflation = nil  // `job` owns the buffers now: no copy-on-write of the output per slice
        let payload: [UInt8]?
        do { payload = try codec.continueDeflating(&job, slice: Self.deflateSliceBytes) } catch {
            deflation = nil
            return close(.internalError, reason: "deflate failed: \(error)")
        }
        guard let payload else {
            deflation = job
            account?.force(holding())
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            // A short delay, not `execute`: NIO runs ready tasks until none are left.
            context.eventLoop.scheduleTask(in: .microseconds(200)) { loopBound.value.continueDeflating() }
            return
        }
        deflation = nil
        write(WebSocketFrame(fin: true, rsv1: true, opcode: .text, maskKey: .random(),
                             data: context.channel.allocator.buffer(bytes: payload)))
        let waiting = outbox
        outbox = []
        outboxBytes = 0
        for (i, m) in waiting.enumerated() {
            send(m)
            if deflation != nil {  // sliced again: keep the rest waiting, in order
                outbox = Array(waiting[(i + 1)...])
                outboxBytes = outbox.reduce(0) { $0 + $1.count }
                break
            }
        }
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
        account?.force(holding())
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in
            loopBound.value.queuedBytes -= size
            loopBound.value.account?.force(loopBound.value.holding())
        }
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
