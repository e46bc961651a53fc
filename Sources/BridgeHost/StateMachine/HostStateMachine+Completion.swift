import BridgeJSON
import BridgeProtocol

extension HostStateMachine {
    /// A handler answered request `token`. The first final answer is sent; an `acknowledged`
    /// answer is sent once before it; anything else (a second final answer, an answer to a
    /// request already answered, or to an older request that used the same id) is refused
    /// and logged, never sent. Returns whether the answer was accepted.
    @discardableResult
    public mutating func complete(_ token: RequestToken, with response: BridgeResponse, now: Int64,
                                  into out: inout [HostAction]) -> Bool {
        guard var p = pending[token.correlationId], p.token == token else {
            out.append(.log(HostLogEntry(.warning, "response-refused",
                "a \(response.status) answer to \(token.correlationId) was refused: that request was already answered; never sent",
                correlationId: token.correlationId)))
            return false
        }
        if response.status == .acknowledged {
            guard !p.acknowledged else {
                out.append(.log(HostLogEntry(.warning, "response-refused",
                    "a second acknowledged answer to \(token.correlationId) was refused; never sent",
                    correlationId: token.correlationId)))
                return false
            }
            p.acknowledged = true
            pending[token.correlationId] = p
            sendResponse(to: p.request, response, now: now, &out)
            return true
        }
        finish(p, now: now, &out)
        sendResponse(to: p.request, response, now: now, &out)
        return true
    }

    /// ``complete(_:with:now:into:)`` returning the actions.
    @discardableResult
    public mutating func complete(_ token: RequestToken, with response: BridgeResponse, now: Int64) -> [HostAction] {
        var out: [HostAction] = []
        complete(token, with: response, now: now, into: &out)
        return out
    }

    /// A typed slot's handler returned `result` for `token`: encoded per PROTOCOL.md §3.
    public mutating func complete(_ token: RequestToken, capture result: CaptureResult, now: Int64) -> [HostAction] {
        guard let p = pending[token.correlationId], p.token == token, case .slot(let slot) = p.route else {
            return complete(token, with: .cancelled(reason: "stale"), now: now)  // refused and logged
        }
        var out: [HostAction] = []
        switch (result, slot) {
        case (.document, .selfie), (.selfie, .document):
            out.append(.log(HostLogEntry(.warning, "wrong-result-kind",
                "the \(slot.capabilityID) handler returned a \(result.kindName) result", correlationId: token.correlationId)))
        default: break
        }
        complete(token, with: result.response(for: slot), now: now, into: &out)
        return out
    }

    /// A handler's responder was dropped without answering: the host answers
    /// `error` / `INTERNAL_ERROR` so the request still gets exactly one final response.
    mutating func responderDropped(_ token: RequestToken, now: Int64) -> [HostAction] {
        guard let p = pending[token.correlationId], p.token == token else { return [] }
        var out: [HostAction] = [.log(HostLogEntry(.warning, "responder-dropped",
            "the handler for \(p.request.payload.action) dropped its responder without answering; answering INTERNAL_ERROR",
            correlationId: token.correlationId))]
        complete(token, with: .failure(.internalError, "The host's handler for \(p.request.payload.action) did not respond",
                                       recoverable: false), now: now, into: &out)
        return out
    }

    /// The delegate had its chance at an unhandled request (``HostAction/offerUnhandled(_:_:)``).
    /// Unless it answered or keeps the request pending (to answer later with
    /// ``respond(to:with:now:)``), the host answers `unsupported` / `UNSUPPORTED_ACTION`.
    public mutating func delegateFinished(_ token: RequestToken, keepPending: Bool, now: Int64) -> [HostAction] {
        guard let p = pending[token.correlationId], p.token == token else { return [] }
        if keepPending {
            return [.log(HostLogEntry(.debug, "delegate-keeps", "the delegate keeps \(p.request.payload.action) pending",
                                      correlationId: token.correlationId))]
        }
        var out: [HostAction] = []
        complete(token, with: .unsupported(.unsupportedAction,
                                           "Action '\(p.request.payload.action)' is not supported by this host"),
                 now: now, into: &out)
        return out
    }

    /// The delegate (or the host's user) answers a request nobody handles, by correlationId
    /// (seed 003's `host.respond(to:status:error:)`). Only requests offered to the delegate can
    /// be answered this way; anything else is refused and logged.
    public mutating func respond(to correlationId: String, with response: BridgeResponse, now: Int64) -> [HostAction] {
        guard let p = pending[correlationId], p.route == .delegate else {
            return [.log(HostLogEntry(.warning, "response-refused",
                "respond(to: \(correlationId)) refused: no unhandled request with that id is pending; never sent",
                correlationId: correlationId))]
        }
        return complete(p.token, with: response, now: now)
    }

    /// A timer the machine scheduled came due.
    public mutating func timerFired(_ timer: TimerID, now: Int64) -> [HostAction] {
        guard let purpose = timers.removeValue(forKey: timer) else { return [] }
        switch purpose {
        case .scripted(let token, let response):
            if pending[token.correlationId]?.token == token { pending[token.correlationId]!.timer = nil }
            return complete(token, with: response, now: now)
        case .event(let action, let data):
            return sendEvent(action, data: data, now: now).actions
        }
    }

    /// Schedules a host event `delayMs` from `now` (scenario `events`). Refused beyond
    /// ``HostLimits/maxScheduledEvents``.
    mutating func scheduleEvent(_ action: Action, data: JSONObject?, delayMs: Int64, now: Int64) -> [HostAction] {
        let scheduled = timers.values.filter { if case .event = $0 { return true } else { return false } }.count
        guard scheduled < settings.limits.maxScheduledEvents else {
            return [.log(HostLogEntry(.warning, "too-many-events", "event \(action) not scheduled: limit reached"))]
        }
        let id = makeTimer(.event(action, data))
        return [.scheduleTimer(id, at: now + max(0, delayMs))]
    }

    /// Sends a host event with a fresh `<environment>-event-<uuid>` id. Returns the envelope
    /// sent, or nil when the encoder refused it (bad action name, for instance).
    public mutating func sendEvent(_ action: Action, data: JSONObject?, now: Int64)
        -> (envelope: Envelope?, actions: [HostAction])
    {
        let envelope = Envelope.event(correlationId: settings.environment.eventIDPrefix + eventIDs.next(),
                                      action: action, data: data, timestamp: now)
        var out: [HostAction] = []
        if let bytes = encodeClean(envelope) {
            out.append(.send(OutboundMessage(envelope: envelope, bytes: bytes)))
            if emitsDebugLog {
                out.append(.log(HostLogEntry(.debug, "sent", "event \(action)", correlationId: envelope.correlationId)))
            }
            return (envelope, out)
        }
        let findings = encodingFindings(envelope)
        out.append(.log(HostLogEntry(.error, "encoder-refused", "event \(action.rawValue.prefix(80)) not sent",
                                     correlationId: envelope.correlationId, findings: findings)))
        return (nil, out)
    }

    mutating func finish(_ p: Pending, now: Int64, _ out: inout [HostAction]) {
        pending.removeValue(forKey: p.token.correlationId)
        pendingBytes -= p.size
        if case .slot(let slot) = p.route, slots[slot]!.active == p.token { slots[slot]!.active = nil }
        if let t = p.timer, timers.removeValue(forKey: t) != nil { out.append(.cancelTimer(t)) }
    }

    mutating func sendResponse(to request: Envelope, _ response: BridgeResponse, now: Int64, _ out: inout [HostAction]) {
        sendResponse(correlationId: request.correlationId, action: request.payload.action, response, now: now, &out)
    }

    /// Encodes and sends a response; when the encoder refuses it (a handler's custom error
    /// code, duplicate keys in its data, ...) the request is answered `error` /
    /// `INTERNAL_ERROR` instead, so it still gets exactly one clean final response.
    mutating func sendResponse(correlationId: String, action: Action, _ response: BridgeResponse, now: Int64,
                               _ out: inout [HostAction]) {
        let envelope = Envelope.response(correlationId: correlationId, action: action, status: response.status,
                                         data: response.data, error: response.error, timestamp: now)
        if let bytes = encodeClean(envelope) {
            out.append(.send(OutboundMessage(envelope: envelope, bytes: bytes)))
            if emitsDebugLog {
                out.append(.log(HostLogEntry(.debug, "sent", "\(response.status) \(action)", correlationId: correlationId)))
            }
            return
        }
        out.append(.log(HostLogEntry(.error, "encoder-refused",
            "the \(response.status) answer to \(action) would break the protocol; answering INTERNAL_ERROR instead",
            correlationId: correlationId, findings: encodingFindings(envelope))))
        let fallback = Envelope.response(correlationId: correlationId, action: action, status: .error,
            error: ErrorPayload(code: .internalError, message: "The host produced an invalid response", recoverable: false),
            timestamp: now)
        if let bytes = try? encoder.encode(fallback, direction: .hostToWeb) {
            out.append(.send(OutboundMessage(envelope: fallback, bytes: bytes)))
        }
    }

    /// The bytes of `envelope` when they would decode with zero findings: the encoder's
    /// checks, plus what it cannot see in values built in code (duplicate keys, nesting
    /// deeper than 64, a message over 16 MiB).
    func encodeClean(_ envelope: Envelope) -> [UInt8]? {
        guard dataProblem(envelope.payload.data) == nil,
              let bytes = try? encoder.encode(envelope, direction: .hostToWeb),
              bytes.count <= JSONLimits.default.maxInputBytes else { return nil }
        return bytes
    }

    func encodingFindings(_ envelope: Envelope) -> [Finding] {
        var findings: [Finding] = []
        if let problem = dataProblem(envelope.payload.data) { findings.append(problem) }
        do {
            let bytes = try encoder.encode(envelope, direction: .hostToWeb)
            if bytes.count > JSONLimits.default.maxInputBytes {
                findings.append(Finding(.tooLarge, "the message would be \(bytes.count) bytes, over \(JSONLimits.default.maxInputBytes)"))
            }
        } catch { findings += error.findings }
        return findings
    }

    /// A duplicate key or too deep a nesting in `data` (the data object sits at depth 3 of
    /// the envelope: root, payload, data).
    func dataProblem(_ object: JSONObject?) -> Finding? {
        guard let object else { return nil }
        let maxDepth = JSONLimits.default.maxDepth
        var stack: [(JSONValue, String, Int)] = [(.object(object), "payload.data", 3)]
        while let (value, path, depth) = stack.popLast() {
            switch value {
            case .object(let o):
                if depth > maxDepth { return Finding(.tooDeep, "\(path.prefix(200)) nests deeper than \(maxDepth)") }
                var seen = Set<String>()
                for m in o.members {
                    if !seen.insert(m.key).inserted {
                        return Finding(.duplicateKey, "\(path.prefix(200)) holds the key \"\(m.key.prefix(80))\" twice")
                    }
                    stack.append((m.value, path + "." + m.key, depth + 1))
                }
            case .array(let a):
                if depth > maxDepth { return Finding(.tooDeep, "\(path.prefix(200)) nests deeper than \(maxDepth)") }
                for (i, v) in a.enumerated() { stack.append((v, "\(path)[\(i)]", depth + 1)) }
            default: break
            }
        }
        return nil
    }
}
