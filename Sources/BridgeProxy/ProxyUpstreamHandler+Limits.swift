import BridgeWebSocket
import NIOCore

/// The page side's limits on the upstream side (docs/SECURITY.md, "The proxy's upstream
/// side"), with the page side's machinery: ``FrameReader`` stops after each header so the
/// announced length is checked against the message limit and the shared ``MemoryBudget``
/// before a payload byte is buffered; a frame or fragmented message left incomplete
/// starts the message timer. (The inbound rate, ``InboundRate``, is spent per message in
/// `perform`, and the inflation ratio is checked while inflating.) What differs from the
/// page side is the answer: the page side pauses a fast page, the proxy closes a fast
/// upstream (pausing it would only move its flood into the kernel's buffers while the
/// page waits behind it). Every break closes the upstream with the page side's code and
/// the page with 1014 (``ProxyUpstreamEnd/broke(_:_:)``).
extension ProxyUpstreamHandler {
    /// Parses frames out of `bytes` until they run out or the connection closes.
    func readFrames(_ bytes: inout ByteBuffer, context: ChannelHandlerContext) {
        while !closing {
            switch reader.next(from: &bytes) {
            case .needMore:
                return noteIncomplete(context: context)
            case .invalidLength:
                return fail(.protocolError, "upstream sent a frame length with its most significant bit set")
            case .header(let h):
                if let failure = assembler.check(header: h.bits, payloadLength: h.payloadLength) {
                    return perform(failure, context: context)
                }
                if h.payloadLength > 0, let account, !account.request(holding(h.payloadLength)) {
                    return fail(.tryAgainLater, "proxy memory budget exhausted by a \(h.payloadLength)-byte upstream frame")
                }
            case .frame(let h, let payload):
                let action = assembler.receive(header: h.bits, payload: payload)
                messageClock.frameCompleted(inMessage: assembler.inFragmentedMessage)
                perform(action, context: context)
                if !closing { account?.force(holding()) }
            }
        }
    }

    /// Starts the message timer when a frame or fragmented message is left incomplete.
    private func noteIncomplete(context: ChannelHandlerContext) {
        if case .arm(let deadline) = messageClock.ranOut(incomplete: reader.inFrame || assembler.inFragmentedMessage) {
            armMessageTimer(at: deadline, context: context)
        }
    }

    private func armMessageTimer(at deadline: NIODeadline, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        messageTimer = context.eventLoop.scheduleTask(deadline: deadline) {
            let handler = loopBound.value
            handler.messageTimer = nil
            guard !handler.closing else { return }
            switch handler.messageClock.fired() {
            case .none:
                return
            case .arm(let next):
                handler.armMessageTimer(at: next, context: ctx.value)
            case .expired:
                handler.fail(.policyViolation, "upstream frame or message not completed within \(handler.limits.messageTimeout) s")
            }
        }
    }
}
