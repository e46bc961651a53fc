import BridgeWebSocket
import NIOCore
import NIOWebSocket

/// The hostile-load limits of a connection (docs/SECURITY.md): frames are read with
/// ``FrameReader`` so every announced length is checked against the message limit and
/// the server's ``MemoryBudget`` before its payload is buffered; frames and fragmented
/// messages must complete within ``WebSocketServerConfiguration/messageTimeout``; large
/// messages are inflated in slices that yield to the event loop; a connection delivering
/// more than ``WebSocketServerConfiguration/maxInboundBytesPerSecond`` is paused; the idle
/// timeout has a timer of its own.
extension WebSocketBridgeHandler {
    /// Bytes this connection holds: the partial frame, the fragmented message, the
    /// inflation in progress, and the queue toward the peer.
    func heldBytes(plus extra: Int = 0) -> Int {
        reader.heldBytes + assembler.bufferedByteCount + (inflation?.heldBytes ?? 0) + (unread?.capacity ?? 0)
            + queuedBytes + extra
    }

    /// Parses frames out of `bytes` until they run out, the connection pauses or closes.
    func readFrames(_ bytes: inout ByteBuffer, context: ChannelHandlerContext) {
        while !closing && !paused {
            switch reader.next(from: &bytes) {
            case .needMore:
                noteIncomplete(context: context)
                return
            case .invalidLength:
                logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "1002", "reason": "invalid length"])
                return close(.protocolError, "frame length with its most significant bit set", context: context)
            case .header(let h):
                if let failure = assembler.check(header: h.bits, payloadLength: h.payloadLength) {
                    return perform(failure, context: context)
                }
                if h.payloadLength > 0 && !account.request(heldBytes(plus: h.payloadLength)) {
                    return refuseForBudget(h.payloadLength, context: context)
                }
            case .frame(let h, let payload):
                let action = assembler.receive(header: h.bits, payload: payload)
                messageClock.frameCompleted(inMessage: assembler.inFragmentedMessage)
                perform(action, context: context)
                if !paused { account.force(heldBytes()) }
            }
        }
    }

    /// Closes with 1013 because the server's memory budget cannot hold `bytes` more.
    func refuseForBudget(_ bytes: Int, context: ChannelHandlerContext) {
        logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "1013",
                                                       "reason": "memory budget exhausted (\(bytes) bytes asked)"])
        close(.tryAgainLater, "server memory budget exhausted; try again later", context: context)
    }

    /// Inflates the next slice of the message in progress; schedules the following slice
    /// (so other connections on the loop get their turn) or delivers the message.
    func continueInflating(context: ChannelHandlerContext) {
        guard !closing, var job = inflation, let codec else { return }
        if !paused { pause(context: context) }
        let slice = max(configuration.inflateSliceBytes, 4096)
        if !account.request(heldBytes(plus: slice)) {
            inflation = nil
            return refuseForBudget(slice, context: context)
        }
        let before = job.inflatedBytes
        inflation = nil  // `job` owns the buffers now: no copy-on-write of the output per slice
        let result: [UInt8]?
        do {
            result = try codec.continueInflating(&job, slice: slice, maxRatio: configuration.maxInflationRatio)
        } catch {
            inflation = nil
            let code: CloseCode = error.kind == .tooLarge || error.kind == .tooCompressed ? .messageTooBig : .invalidPayload
            logger.notice("closing connection", metadata: ["conn": "\(info.id)", "code": "\(code)", "reason": "\(error)"])
            return close(code, error.description, context: context)
        }
        if let message = result {
            inflation = nil
            account.force(heldBytes(plus: message.count))
            paused = false
            deliver(message, alreadySpent: before, context: context)
            account.force(heldBytes())
            resume(context: context)
        } else {
            inflation = job
            account.force(heldBytes())
            spendRate(job.inflatedBytes - before, context: nil)
            // A short delay, not `execute`: NIO runs ready tasks until none are left, so
            // an immediate task would keep the loop from its sockets.
            let wait = max(rateDelay(), .microseconds(200))
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: wait) { loopBound.value.continueInflating(context: ctx.value) }
        }
    }

    /// Takes `bytes` from the connection's rate allowance; past it, pauses reading until
    /// the allowance is back (when `context` is given).
    func spendRate(_ bytes: Int, context: ChannelHandlerContext?) {
        guard rate.spend(bytes), let context else { return }
        pause(context: context)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: rateDelay()) {
            let handler = loopBound.value
            handler.paused = false
            handler.resume(context: ctx.value)
        }
    }

    /// Stops parsing and reading until ``resume(context:)``.
    func pause(context: ChannelHandlerContext) {
        paused = true
        try? context.channel.syncOptions?.setOption(.autoRead, value: false)
    }

    /// How long until the rate allowance is positive again.
    func rateDelay() -> TimeAmount { rate.delay }

    /// Continues with bytes read while paused, and reads the socket again.
    func resume(context: ChannelHandlerContext) {
        guard !paused, !closing else { return }
        if var bytes = unread {
            unread = nil
            readFrames(&bytes, context: context)
            if bytes.readableBytes > 0 && !closing {
                if unread == nil { unread = bytes } else { var rest = unread!; unread = bytes; unread!.writeBuffer(&rest) }
            }
        }
        if !paused && !closing {
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
            context.read()
        }
        if needsFlush && !inReadBatch {
            needsFlush = false
            context.flush()
        }
    }

    /// Starts the message timer when a frame or fragmented message is left incomplete.
    func noteIncomplete(context: ChannelHandlerContext) {
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
            switch handler.messageClock.fired(paused: handler.paused) {
            case .none:
                return
            case .arm(let next):
                handler.armMessageTimer(at: next, context: ctx.value)
            case .expired:
                handler.logger.notice("closing connection", metadata: ["conn": "\(handler.info.id)", "code": "1008",
                                                                       "reason": "message not completed in time"])
                handler.close(.policyViolation,
                              "frame or message not completed within \(handler.configuration.messageTimeout) s", context: ctx.value)
            }
        }
    }

    /// Closes with 1001 once no frame has arrived for the idle timeout: checked at
    /// `lastInbound + idleTimeout`, not at the next ping.
    func armIdleTimer(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        idleTimer = context.eventLoop.scheduleTask(deadline: lastInbound + Self.seconds(configuration.idleTimeout)) {
            let handler = loopBound.value
            guard !handler.closing else { return }
            if NIODeadline.now() - handler.lastInbound >= Self.seconds(handler.configuration.idleTimeout) {
                handler.logger.notice("idle timeout", metadata: ["conn": "\(handler.info.id)"])
                return handler.close(.goingAway, "idle timeout", context: ctx.value)
            }
            handler.armIdleTimer(context: ctx.value)
        }
    }

    static func seconds(_ s: Double) -> TimeAmount { .nanoseconds(Int64(s * 1e9)) }
}
