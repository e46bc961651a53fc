import BridgeHost
import BridgeJSON
import BridgeProtocol

/// The running state of one ``TraceChecker/check(_:features:)``.
struct CheckState {
    let checker: TraceChecker
    let exact: Bool
    var model: CapabilityModel?
    var open: [String: TraceChecker.Open] = [:]
    /// Over the wire: ids sent again while open in the client's view; the host may have seen
    /// the first one answered already, so one extra answer per entry is not a violation.
    var maybe: [String: Int] = [:]
    var answered: Set<String> = []
    var captures: [TraceChecker.Capture] = []
    var violations: [Violation] = []
    var seen: Set<String> = []
    /// Lenient checking: the first send index of a request the protocol leaves open that
    /// may have taken a typed slot (a BUSY after it is justified).
    var uncertainSlots: [SlotKind: Int] = [:]
    /// Lenient checking: every `"correlationId":"…"` seen in the bytes sent, whether or
    /// not this project's parser accepts the message (another host's parser may: deeper
    /// nesting, other limits, lone surrogates); one answer to each is not unsolicited.
    var looseIds: [String: Int] = [:]
    /// Lenient checking: every id any message sent so far carried (by the byte scan).
    var seenIds: Set<String> = []
    /// Over the wire: the longest a host took to give an answer beyond the work it needs
    /// (none for a capability query, BUSY, INVALID_REQUEST, UNSUPPORTED_ACTION,
    /// VERSION_MISMATCH; the scenario's latency for the rest, when the scenario is known).
    /// A host that slow to read its input (a loaded machine, a long queue of messages)
    /// can answer a capture that long after a second one was sent without the two having
    /// overlapped.
    var hostLagMs: Int64 = 0

    init(checker: TraceChecker, exact: Bool) {
        self.checker = checker
        self.exact = exact
        self.model = checker.model
    }

    mutating func fail(_ oracle: Oracle, _ signature: String, _ message: String) {
        guard checker.oracles.contains(oracle) else { return }
        let v = Violation(oracle, signature: signature, message)
        if seen.insert(v.key).inserted { violations.append(v) }
    }

    mutating func sent(step: Int, bytes: [UInt8], at: Int64, index: Int, _ features: inout FeatureSink) {
        let d = checker.decode(bytes, .webToHost)
        for f in d.findings { features.add("in-rule", f.rule.rawValue) }
        features.addCount("open", open.count)
        var idSeenBefore = false
        if !checker.strict {
            let loose = Self.looseCorrelationIds(bytes)
            if let e = d.envelope { idSeenBefore = seenIds.contains(e.correlationId) }
            seenIds.formUnion(loose)
            if let reason = openChoice(d) {
                sentOpenEnded(bytes, d, reason: reason, step: step, at: at, index: index, &features)
                return
            }
            if !(d.isValid && d.envelope?.type == .request) {
                // Each message this project does not track may get one answer per id it
                // carries from a host that parses it differently.
                for id in loose { looseIds[id, default: 0] += 1 }
                // Bytes this project's parser refuses but another host's may accept, carrying
                // the id of an open request: that request's answer is open too (§7, reused id).
                for id in Set(loose) where open[id] != nil {
                    markOpenEnded(id)
                    maybe[id, default: 0] += 1
                }
            }
        }
        if let e = d.envelope, d.isValid, e.type == .request {
            let id = e.correlationId
            let action = e.payload.action.rawValue
            features.add("in-request", checker.actionClass(action))
            if open[id] != nil {
                // A reused id while the first is in progress: never routed, never answered.
                // Lenient: §7 lets a host answer either request, reject or ignore it.
                features.add("in", "duplicate-id")
                if !checker.strict {
                    markOpenEnded(id)
                    // The host may have started this capture (a host that took the first
                    // message as no request at all): its slot may be held from here.
                    if let slot = SlotKind(action: e.payload.action) { uncertainSlots[slot] = min(uncertainSlots[slot] ?? Int.max, index) }
                }
                if !exact || !checker.strict { maybe[id, default: 0] += 1 }
                return
            }
            if idSeenBefore {
                // §2: reusing an id, even an answered one, is the web side's violation; how
                // the host answers it is open: it may still count the first as running, or
                // have accepted as a request bytes this project's parser refused.
                var o = TraceChecker.Open(step: step, action: action, sentAtMs: at, sentIndex: index,
                                          deadlineMs: checker.deadline(action, model: model), openCountAtSend: open.count)
                o.openEnded = true
                open[id] = o
                if let slot = SlotKind(action: e.payload.action) { uncertainSlots[slot] = min(uncertainSlots[slot] ?? Int.max, index) }
                return
            }
            var o = TraceChecker.Open(step: step, action: action, sentAtMs: at, sentIndex: index,
                                      deadlineMs: checker.deadline(action, model: model), openCountAtSend: open.count)
            if let slot = SlotKind(action: e.payload.action) {
                o.capture = captures.count
                captures.append(TraceChecker.Capture(slot: slot, step: step, id: id, sentIndex: index,
                                                     supportedAtSend: model?.isSupported(slot), openCountAtSend: open.count,
                                                     sentAtMs: at))
            }
            if e.payload.action == .capabilityQuery { o.expectedCapabilities = model?.expectedCapabilities }
            o.modelAtSend = model
            open[id] = o
            return
        }
        let p = d.partial
        guard p.type == .request, let id = p.correlationId, !id.isEmpty else {
            features.add("in", d.envelope == nil ? "undecodable" : "not-a-request")
            return
        }
        features.add("in", "invalid-request")
        if open[id] != nil {
            if !exact { maybe[id, default: 0] += 1 }
            return
        }
        let action = p.action.flatMap { Action(rawValue: $0).isWellFormed ? $0 : nil } ?? "invalid"
        open[id] = TraceChecker.Open(step: step, action: action, sentAtMs: at, sentIndex: index, deadlineMs: 5_000,
                                     invalidAnswerAction: action, openCountAtSend: open.count)
    }

    /// Error codes a host gives without doing any work.
    static let immediateCodes: Set<ErrorCode> = [.busy, .invalidRequest, .unsupportedAction, ErrorCode(rawValue: "VERSION_MISMATCH")]

    mutating func received(bytes: [UInt8], at: Int64, index: Int, _ features: inout FeatureSink) {
        let d = checker.decode(bytes, .hostToWeb)
        // Lenient: only error findings the protocol fixes (not this project's warnings,
        // notes, unknown members or codes, §7) count against a host's output.
        let judged = checker.strict ? d.findings : d.findings.filter { $0.severity == .error && !Self.openOutputRules.contains($0.rule) }
        if !judged.isEmpty || d.envelope == nil {
            let rules = Set(judged.map(\.rule.rawValue)).sorted().joined(separator: ",")
            fail(.hostOutputRules, "rules \(rules)",
                 "the host sent a message that breaks the rules: \(judged.map(\.description).joined(separator: "; ")) — \(preview(bytes))")
        }
        if bytes.contains(0x0A) {
            fail(.hostOutputRules, "raw-newline", "the host sent a message holding a raw newline: \(preview(bytes))")
        }
        guard let e = d.envelope else { return }
        guard e.type == .response else {
            features.addSequenced("out-event", e.payload.action.rawValue)
            return
        }
        let id = e.correlationId
        let status = e.payload.status ?? Status(rawValue: "")
        let code = e.payload.error?.code
        features.addSequenced("out", "\(checker.actionClass(e.payload.action.rawValue)) \(status) \(code?.rawValue ?? "")")
        if let o = open[id], o.openEnded {
            // Lenient: any one final response (acknowledged first or not) is accepted.
            if status == .acknowledged { return }
            if let c = o.capture {
                captures[c].finalIndex = index
                captures[c].status = status
                captures[c].code = code
            }
            for other in o.group { open[other] = nil }
            open[id] = nil
            answered.insert(id)
            return
        }
        guard var o = open[id] else {
            if let n = maybe[id], n > 0 {
                maybe[id] = n - 1
                return
            }
            if !checker.strict, let n = looseIds[id], n > 0 {
                looseIds[id] = n - 1
                answered.insert(id)
                return
            }
            let again = answered.contains(id)
            fail(.oneResponse, again ? "second-final-response \(checker.actionClass(e.payload.action.rawValue))"
                                     : "unsolicited-response",
                 again ? "a second \(status) response to \(quote(id)) (\(e.payload.action)) after its final response"
                       : "a \(status) response to \(quote(id)), which no open request carries")
            return
        }
        if status == .acknowledged {
            if o.acknowledged {
                fail(.oneResponse, "second-acknowledged \(checker.actionClass(o.action))",
                     "a second acknowledged response to \(quote(id)) (\(o.action))")
            }
            o.acknowledged = true
            open[id] = o
            return
        }
        open[id] = nil
        answered.insert(id)
        if o.action == Action.capabilityQuery.rawValue || (status == .error && code.map(Self.immediateCodes.contains) == true) {
            hostLagMs = max(hostLagMs, at - o.sentAtMs)
        } else if !exact, let model {
            hostLagMs = max(hostLagMs, at - o.sentAtMs - model.latency(of: o.action))
        }
        let cls = checker.actionClass(o.action)
        if e.payload.action.rawValue != o.action {
            fail(.oneResponse, "wrong-action \(cls)",
                 "the response to \(quote(id)) carries action \(quote(e.payload.action.rawValue)), not \(quote(o.action))")
        }
        if o.invalidAnswerAction != nil {
            if status != .error || code != .invalidRequest {
                fail(.oneResponse, "invalid-request-answer",
                     "the invalid request \(quote(id)) (step \(o.step)) was answered \(status) \(code?.rawValue ?? "-"), not error INVALID_REQUEST")
            }
        } else if code == .invalidRequest {
            fail(.oneResponse, "valid-request-rejected \(cls)",
                 "the well-formed request \(quote(id)) (step \(o.step), \(o.action)) was answered INVALID_REQUEST")
        }
        if exact && at - o.sentAtMs > o.deadlineMs {
            fail(.oneResponse, "late-response \(cls)",
                 "the response to \(quote(id)) (\(o.action)) came \(at - o.sentAtMs) ms after the request; the deadline is \(o.deadlineMs) ms")
        }
        if let c = o.capture {
            captures[c].finalIndex = index
            captures[c].finalAtMs = at
            captures[c].status = status
            captures[c].code = code
        }
        if o.invalidAnswerAction == nil {
            checkRouting(o, status: status, code: code, data: e.payload.data, id: id)
        }
    }

    mutating func finish(_ trace: Trace, _ features: inout FeatureSink) {
        for (id, o) in open.sorted(by: { $0.value.sentIndex < $1.value.sentIndex }) where !o.openEnded && !trace.cutShort {
            fail(.oneResponse, "no-final-response \(checker.actionClass(o.action))",
                 "the request \(quote(id)) (step \(o.step), \(o.action)) got no final response" +
                 (exact ? " before the host went quiet" : " within its deadline of \(o.deadlineMs) ms"))
        }
        if let failure = trace.targetFailure, !trace.cutShort {
            fail(.crash, "target-failed", failure)
        }
        if trace.neverQuiet {
            fail(.pendingDrains, "never-quiet", "the host still had timers \(FuzzLimits.quietLimitMs) ms after the last step")
        }
        if let p = trace.pendingAfterQuiet, p > 0 {
            fail(.pendingDrains, "pending-left", "\(p) request(s) still pending after the web side went quiet")
        }
        if let t = trace.timersAfterQuiet, t > 0 {
            fail(.pendingDrains, "timers-left", "\(t) timer(s) still scheduled after the web side went quiet")
        }
        checkCaptures(&features)
    }

    func preview(_ bytes: [UInt8]) -> String {
        let s = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? s + "… (\(bytes.count) bytes)" : s
    }

    func quote(_ s: String) -> String {
        s.count > 60 ? "\"\(s.prefix(60))…\" (\(s.utf8.count) bytes)" : "\"\(s)\""
    }
}
