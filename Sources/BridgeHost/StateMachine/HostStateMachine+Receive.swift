import BridgeJSON
import BridgeProtocol

extension HostStateMachine {
    /// Starts the host: sends `host.ready` (unless disabled) with
    /// `{"hostVersion", "environment", "protocolVersion"}` and schedules the startup
    /// events. Calling it again does nothing.
    public mutating func start(now: Int64) -> [HostAction] {
        guard !started else { return [] }
        started = true
        var out: [HostAction] = []
        if settings.sendsHostReady {
            out += sendEvent(.hostReady, data: .make([
                "hostVersion": .string(settings.hostVersion),
                "environment": .string(settings.environment.rawValue),
                "protocolVersion": .string(Envelope.protocolVersion),
            ]), now: now).actions
        }
        for e in settings.startupEvents {
            out += scheduleEvent(e.action, data: e.data, delayMs: e.atMs, now: now)
        }
        return out
    }

    /// Feeds one message received from the web side (one WebSocket frame, one stdin line).
    public mutating func receive(_ bytes: [UInt8], now: Int64) -> [HostAction] {
        bytes.withUnsafeBytes { receive($0, now: now) }
    }

    /// Feeds one message received from the web side.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, now: Int64) -> [HostAction] {
        var out: [HostAction] = []
        let result = decoder.decode(bytes, direction: .webToHost)
        guard result.isValid, let envelope = result.envelope else {
            rejectInvalid(byteCount: bytes.count, result, now: now, &out)
            return out
        }
        remember(envelope, size: bytes.count)
        if emitsDebugLog {
            out.append(.log(HostLogEntry(.debug, "received", "\(envelope.type) \(envelope.payload.action)",
                                         correlationId: envelope.correlationId, findings: result.findings)))
        }
        if !result.findings.isEmpty {
            out.append(.log(HostLogEntry(.notice, "received-with-findings",
                                         "\(envelope.type) \(envelope.payload.action) is routed despite minor findings",
                                         correlationId: envelope.correlationId, findings: result.findings)))
        }
        out.append(.notifyReceived(envelope))
        if envelope.type == .request {
            route(envelope, size: bytes.count, now: now, &out)
        } else {
            out.append(.log(HostLogEntry(.info, "web-event", "event \(envelope.payload.action) from the web side",
                                         correlationId: envelope.correlationId)))
        }
        return out
    }

    /// PROTOCOL.md §4: never route; answer `INVALID_REQUEST` only for a JSON object whose
    /// `type` is `"request"` and whose `correlationId` is a non-empty string.
    mutating func rejectInvalid(byteCount: Int, _ result: DecodeResult, now: Int64, _ out: inout [HostAction]) {
        let p = result.partial
        var answered = false
        if p.type == .request, let id = p.correlationId, !id.isEmpty {
            // The action is echoed only when it is a well-formed name: echoing a malformed one
            // would make the answer itself break `invalid-action` (project rule).
            let action: Action = p.action.map { Action(rawValue: $0) }.flatMap { $0.isWellFormed ? $0 : nil } ?? "invalid"
            let worst = result.findings.first { $0.severity == .error } ?? result.findings.first
            let reason = worst.map { "\($0.slug): \($0.message)" } ?? "not a valid envelope"
            let response = BridgeResponse.failure(.invalidRequest, "The request is not a valid envelope (\(reason.prefix(300)))",
                                                  recoverable: false)
            if pending[id] != nil {
                out.append(.log(HostLogEntry(.notice, "duplicate-correlation-id",
                    "invalid request reuses the id of a request in progress; not answered", correlationId: id,
                    findings: result.findings)))
            } else {
                sendResponse(correlationId: id, action: action, response, now: now, &out)
                answered = true
            }
        }
        out.append(.log(HostLogEntry(.notice, "invalid-input",
            "rejected a \(byteCount)-byte message that is not a valid envelope; not routed, " +
            (answered ? "answered INVALID_REQUEST" : "not answered"),
            correlationId: p.correlationId, findings: result.findings)))
        out.append(.notifyRejected(RejectedMessage(byteCount: byteCount, partial: p, findings: result.findings,
                                                   answered: answered)))
    }

    /// Keeps the envelope in the bounded history (count and bytes), oldest out first.
    mutating func remember(_ envelope: Envelope, size: Int) {
        let limits = settings.limits
        guard limits.maxReceivedHistory > 0, size <= limits.maxReceivedHistoryBytes else { return }
        history.append((envelope, size))
        historyBytes += size
        while history.count - historyHead > limits.maxReceivedHistory || historyBytes > limits.maxReceivedHistoryBytes {
            historyBytes -= history[historyHead].size
            history[historyHead].envelope = Self.droppedEnvelope  // release it now
            historyHead += 1
        }
        // Compact once the dropped prefix is as long as the kept part: amortized O(1).
        if historyHead > 0 && historyHead >= history.count - historyHead {
            history.removeFirst(historyHead)
            historyHead = 0
        }
    }

    /// Routes a valid request (PROTOCOL.md §2–§3).
    mutating func route(_ request: Envelope, size: Int, now: Int64, _ out: inout [HostAction]) {
        let id = request.correlationId
        let action = request.payload.action
        if pending[id] != nil {
            out.append(.log(HostLogEntry(.notice, "duplicate-correlation-id",
                "request \(action) reuses the correlationId of a request in progress; not routed, not answered",
                correlationId: id)))
            return
        }
        if action == .capabilityQuery {
            sendCapabilityAnswer(to: request, now: now, &out)
            return
        }
        let slot = SlotKind(action: action)
        if let slot, isSupported(slot), let active = slots[slot]!.active {
            out.append(.log(HostLogEntry(.notice, "busy", "\(slot.capabilityID) is serving \(active.correlationId)",
                                         correlationId: id)))
            sendResponse(to: request, .failure(.busy, "A \(slot.capabilityID) capture request is already in progress",
                                               recoverable: true), now: now, &out)
            return
        }
        let limits = settings.limits
        if pending.count >= limits.maxPendingRequests || pendingBytes + size > limits.maxPendingBytes {
            let message = pending.count >= limits.maxPendingRequests
                ? "The host already has \(limits.maxPendingRequests) requests in progress (limit \(limits.maxPendingRequests))"
                : "The host already holds \(pendingBytes) bytes of requests in progress (limit \(limits.maxPendingBytes))"
            out.append(.log(HostLogEntry(.warning, "too-many-pending",
                                         "\(pending.count) requests (\(pendingBytes) bytes) in progress", correlationId: id)))
            sendResponse(to: request, .failure(.busy, message, recoverable: true), now: now, &out)
            return
        }
        if let slot, isSupported(slot) {
            let handler = slots[slot]!.handler!
            let token = admit(request, size: size, route: .slot(slot), now: now)
            slots[slot]!.active = token
            let index = slots[slot]!.served
            slots[slot]!.served += 1
            startHandler(handler, index: index, token: token, request: request, route: .slot(slot), now: now, &out)
            return
        }
        if let i = customCapabilities.firstIndex(where: { $0.id == action.rawValue }) {
            let handler = customCapabilities[i].handler
            let index = customCapabilities[i].served
            customCapabilities[i].served += 1
            let token = admit(request, size: size, route: .custom(action.rawValue), now: now)
            startHandler(handler, index: index, token: token, request: request, route: .custom(action.rawValue), now: now, &out)
            return
        }
        if let handler = configurationHandlers[action.rawValue] {
            let token = admit(request, size: size, route: .configuration(action.rawValue), now: now)
            startHandler(handler, index: 0, token: token, request: request, route: .configuration(action.rawValue), now: now, &out)
            return
        }
        if let slot {
            // A typed slot answers `unsupported` itself (seed 002, pattern 3).
            let response: BridgeResponse = hasHandler(slot)
                ? .unsupported(.capabilityUnavailable, "\(slot.capabilityID) is disabled on this host")
                : .unsupported(.unsupportedAction, "\(slot.capabilityID) capture is not supported by this host")
            out.append(.log(HostLogEntry(.info, "unsupported", "\(action) answered by its slot: \(response.error!.code)",
                                         correlationId: id)))
            sendResponse(to: request, response, now: now, &out)
            return
        }
        let token = admit(request, size: size, route: .delegate, now: now)
        out.append(.log(HostLogEntry(.info, "unhandled", "no handler for \(action); offered to the delegate",
                                     correlationId: id)))
        out.append(.offerUnhandled(request, token))
    }

    mutating func admit(_ request: Envelope, size: Int, route: Route, now: Int64) -> RequestToken {
        nextSerial += 1
        let token = RequestToken(correlationId: request.correlationId, serial: nextSerial)
        pending[request.correlationId] = Pending(request: request, route: route, token: token, receivedAt: now, size: size)
        pendingBytes += size
        return token
    }

    mutating func startHandler(_ handler: HandlerKind, index: Int, token: RequestToken, request: Envelope, route: Route,
                               now: Int64, _ out: inout [HostAction]) {
        if emitsDebugLog {
            out.append(.log(HostLogEntry(.debug, "routed", "\(request.payload.action) → \(route)", correlationId: token.correlationId)))
        }
        switch handler {
        case .external:
            out.append(.startHandler(HandlerStart(token: token, request: request, route: route)))
        case .scripted(let behaviour):
            let response = behaviour.response(index: index, request: request)
            if behaviour.latencyMs == 0 {
                complete(token, with: response, now: now, into: &out)
                return
            }
            let timer = makeTimer(.scripted(token, response))
            pending[token.correlationId]!.timer = timer
            out.append(.scheduleTimer(timer, at: now + behaviour.latencyMs))
        }
    }

    mutating func makeTimer(_ purpose: TimerPurpose) -> TimerID {
        nextTimer += 1
        let id = TimerID(rawValue: nextTimer)
        timers[id] = purpose
        return id
    }
}

extension HostStateMachine {
    /// Stands in for a history entry that was dropped but not yet compacted away.
    static let droppedEnvelope = Envelope.event(correlationId: "-", action: .hostReady, timestamp: 0)
}
