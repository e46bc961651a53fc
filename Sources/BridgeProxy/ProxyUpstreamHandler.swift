import BridgeCapture
import BridgeWebSocket
import NIOCore
import NIOWebSocket

/// The proxy's connection to the real host, kept on the page connection's event loop so
/// relaying a message is a function call, not a thread hop: bytes in → ``FrameReader`` →
/// ``MessageAssembler`` → inflate → `onMessage`; messages out → deflate → masked frames.
/// Answers pings, echoes the host's close, and reports the end once through `onClose`
/// (``ProxyUpstreamEnd``).
///
/// The upstream is under the page side's limits (``ProxyLimits``, docs/SECURITY.md): each
/// announced frame length is checked against the message limit and the shared
/// ``MemoryBudget`` before its payload is buffered, a frame or fragmented message must
/// complete within the message timeout, deflated messages may not inflate past the ratio,
/// and the inbound rate is counted with the same ``InboundRate`` (see
/// ProxyUpstreamHandler+Limits.swift). An upstream that breaks one is closed and the page
/// told 1014.
///
/// Every method runs on the channel's event loop.
final class ProxyUpstreamHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    /// Bytes queued toward a host that stopped reading before the connection is dropped: 32 MiB.
    static let maxQueuedBytes = 32 << 20

    var assembler: MessageAssembler
    var reader = FrameReader()
    let limits: ProxyLimits
    var rate: InboundRate
    /// The message timeout's state (the page side's ``MessageClock``).
    var messageClock: MessageClock
    var messageTimer: Scheduled<Void>?
    private let codec: PerMessageDeflate?
    private let onMessage: ([UInt8]) -> Void
    private let onClose: (ProxyUpstreamEnd) -> Void
    private var context: ChannelHandlerContext?
    var closing = false
    private var reported = false
    private var closeCode: CloseCode?
    /// Whether the upstream sent a close frame.
    private var peerSentClose = false
    private var queuedBytes = 0

    private let budget: MemoryBudget
    var account: MemoryBudget.Account?

    init(maxMessageBytes: Int, limits: ProxyLimits = .init(), codec: PerMessageDeflate?, budget: MemoryBudget,
         onMessage: @escaping ([UInt8]) -> Void, onClose: @escaping (ProxyUpstreamEnd) -> Void) {
        assembler = MessageAssembler(maxMessageBytes: maxMessageBytes, deflate: codec != nil, requireMasking: false)
        self.limits = limits
        self.messageClock = MessageClock(timeout: limits.messageTimeout)
        self.rate = InboundRate(bytesPerSecond: limits.maxInboundBytesPerSecond, maxMessageBytes: maxMessageBytes)
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
            context.eventLoop.execute { handler.value.report(handler.value.ended("upstream closed the connection during the upgrade")) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        messageTimer?.cancel()
        account?.close()
    }

    /// The memory budget wants this connection's bytes back.
    private struct Evict: Sendable {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            // The upstream's FIN (remote half-closure): it has said all it will.
            report(ended("upstream closed the connection without a close frame"))
            context.close(promise: nil)
        } else if event is Evict {
            fail(.tryAgainLater, "proxy memory budget needed elsewhere (\(account?.held ?? 0) bytes held toward the upstream)")
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Bytes held: the partial frame, the fragmented message and the queue toward the upstream.
    func holding(_ extra: Int = 0) -> Int {
        reader.heldBytes + assembler.bufferedByteCount + queuedBytes + outboxBytes + (deflation?.heldBytes ?? 0) + extra
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard !closing else { return }
        readFrames(&bytes, context: context)
    }

    func perform(_ action: MessageAssembler.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .ping(let payload):
            write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: context.channel.allocator.buffer(bytes: payload)))
        case .peerClosed(let code, _):
            if let code, !code.isValidOnWire {
                return fail(.protocolError, "upstream sent close code \(code.rawValue), not allowed on the wire")
            }
            closeCode = code
            peerSentClose = true
            report(.closed(code))
            close(code == .goingAway ? .goingAway : .normal, reason: "upstream closed")
        case .fail(let code, let reason):
            fail(code, "upstream broke the protocol: \(reason)")
        case .message(_, let compressed, let payload):
            var message = payload
            if compressed, let codec {
                do {
                    var job = codec.beginInflating(payload)
                    while true {
                        if let out = try codec.continueInflating(&job, slice: 1 << 20, maxRatio: limits.maxInflationRatio) {
                            message = out
                            break
                        }
                        if let account, !account.request(holding(job.heldBytes + (1 << 20))) {
                            return fail(.tryAgainLater, "proxy memory budget exhausted inflating an upstream message")
                        }
                    }
                } catch {
                    let tooBig = error.kind == .tooLarge || error.kind == .tooCompressed
                    return fail(tooBig ? .messageTooBig : .invalidPayload, "upstream message: \(error)")
                }
            }
            account?.force(holding())
            if rate.spend(message.count) {
                return fail(.policyViolation, "upstream sent more than \(limits.maxInboundBytesPerSecond) bytes a second (burst \(rate.burst))")
            }
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
                return fail(.internalError, "deflate failed: \(error)")
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
            return fail(.internalError, "deflate failed: \(error)")
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
            report(.broke(.policyViolation, "upstream stopped reading (\(queuedBytes) bytes queued)"))
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

    /// Closes the upstream because it broke the protocol or a limit: the page is told 1014.
    func fail(_ code: CloseCode, _ reason: String) {
        guard !closing else { return }
        report(.broke(code, reason))
        close(code, reason: reason)
    }

    /// Sends a close frame with `code`, then closes the channel (for the page, unless an
    /// end was reported before).
    func close(_ code: CloseCode, reason: String) {
        guard !closing, let context else { return }
        closing = true
        messageTimer?.cancel()
        if closeCode == nil { closeCode = code }
        report(.local)
        var data = context.channel.allocator.buffer(capacity: 2)
        data.writeInteger(code.rawValue)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)))
            .whenComplete { _ in ctx.value.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        messageTimer?.cancel()
        report(ended("upstream connection lost without a close frame"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        report(ended("upstream connection error: \(error)"))
        context.close(promise: nil)
    }

    /// `.closed` when the upstream sent a close frame, else `.lost(why)`.
    private func ended(_ why: String) -> ProxyUpstreamEnd {
        peerSentClose ? .closed(closeCode) : .lost(why + (assembler.inFragmentedMessage ? " (in the middle of a message)" : ""))
    }

    private func report(_ end: ProxyUpstreamEnd) {
        guard !reported else { return }
        reported = true
        onClose(end)
    }
}
