import BridgeHost
import BridgeJSON
import BridgeProtocol

extension CheckState {
    /// Whether the pending limit can explain a `BUSY` answer given when `openCount`
    /// requests were open (limit unknown: 50 or more open, Android's warning level).
    func pendingLimitReached(_ openCount: Int) -> Bool {
        openCount >= (checker.pendingLimit ?? 50)
    }

    /// ``Oracle/capabilityQuery``: the answer and the routing agree with the scenario as it
    /// stood (toggles included) when the request was sent.
    mutating func checkRouting(_ o: TraceChecker.Open, status: Status, code: ErrorCode?, data: JSONObject?, id: String) {
        guard let m = o.modelAtSend else { return }
        let busyByLimit = status == .error && code == .busy && pendingLimitReached(o.openCountAtSend)
        let answer = "\(status) \(code?.rawValue ?? "")".trimmingCharacters()
        if o.action == Action.capabilityQuery.rawValue {
            guard status == .success else {
                fail(.capabilityQuery, "query-not-success", "capability.query \(quote(id)) was answered \(answer)")
                return
            }
            checkCapabilityAnswer(data, expected: o.expectedCapabilities ?? [:], model: m, id: id)
            return
        }
        if let slot = SlotKind(action: Action(rawValue: o.action)) {
            let s = m.slots[slot]!
            if m.isSupported(slot) {
                if status == .unsupported {
                    fail(.capabilityQuery, "supported-slot-unsupported \(slot)",
                         "\(o.action) \(quote(id)) was answered \(answer) while \(slot) has a handler and is enabled")
                }
            } else if !busyByLimit {
                let expected: ErrorCode = s.handler ? .capabilityUnavailable : .unsupportedAction
                if status != .unsupported || code != expected {
                    fail(.capabilityQuery, "unsupported-slot-answer \(slot)",
                         "\(o.action) \(quote(id)) was answered \(answer); \(slot) is \(s.handler ? "disabled" : "without a handler"), so unsupported \(expected) is expected")
                }
            }
            return
        }
        if m.custom.contains(where: { $0.id == o.action }) {
            if code == .unsupportedAction {
                fail(.capabilityQuery, "custom-unsupported", "\(o.action) \(quote(id)) is a registered custom capability but was answered \(answer)")
            }
            return
        }
        if !busyByLimit && (status != .unsupported || code != .unsupportedAction) {
            fail(.capabilityQuery, "unknown-action-answer",
                 "\(quote(id)) asks for \(quote(o.action)), which nothing on this host handles, and was answered \(answer), not unsupported UNSUPPORTED_ACTION")
        }
    }

    mutating func checkCapabilityAnswer(_ data: JSONObject?, expected: [String: JSONValue], model: CapabilityModel, id: String) {
        guard let data else {
            fail(.capabilityQuery, "no-data", "capability.query \(quote(id)) was answered with no data")
            return
        }
        if data["environment"]?.stringValue != model.environment {
            fail(.capabilityQuery, "environment", "capability.query reports environment \(data["environment"].map(describe) ?? "nothing"), the scenario says \"\(model.environment)\"")
        }
        if data["hostVersion"]?.stringValue != model.hostVersion {
            fail(.capabilityQuery, "host-version", "capability.query reports hostVersion \(data["hostVersion"].map(describe) ?? "nothing"), the scenario says \"\(model.hostVersion)\"")
        }
        guard let caps = data["capabilities"]?.objectValue else {
            fail(.capabilityQuery, "no-capabilities", "capability.query has no capabilities object")
            return
        }
        var actual: [String: JSONValue] = [:]
        for m in caps.members where actual[m.key] == nil { actual[m.key] = m.value }
        for key in Set(expected.keys).union(actual.keys).sorted() {
            let e = expected[key], a = actual[key]
            let name = model.custom.contains { $0.id == key } ? "custom" : key
            switch (e, a) {
            case (nil, let a?):
                fail(.capabilityQuery, "unexpected-capability \(name)", "capability.query reports \(key) = \(describe(a)), which the scenario does not have")
            case (let e?, nil):
                fail(.capabilityQuery, "missing-capability \(name)", "capability.query omits \(key); expected \(describe(e))")
            case (let e?, let a?) where !e.unorderedEquals(a):
                fail(.capabilityQuery, "wrong-capability \(name)", "capability.query reports \(key) = \(describe(a)); expected \(describe(e))")
            default: break
            }
        }
    }

    func describe(_ v: JSONValue) -> String {
        String(JSONWriter().string(v).prefix(200))
    }

    /// ``Oracle/oneCapturePerSlot``. Per slot, in send order, it keeps the latest final
    /// index among the requests that held the slot: an earlier holder still active when a
    /// later request arrived (exact timing) or answered after it (over the wire) means two
    /// captures overlapped; a `BUSY` with no holder active is unjustified.
    mutating func checkCaptures(_ features: inout FeatureSink) {
        var latestEnd: [SlotKind: (index: Int, id: String, step: Int, atMs: Int64)] = [:]
        for b in captures {
            guard let bFinal = b.finalIndex else { continue }
            let holder = latestEnd[b.slot]
            if b.isBusy {
                features.add("busy", b.slot.rawValue)
                let uncertain = uncertainSlots[b.slot].map { $0 < b.sentIndex } ?? false
                if (holder?.index ?? -1) < b.sentIndex && !pendingLimitReached(b.openCountAtSend) && !uncertain {
                    fail(.oneCapturePerSlot, "unjustified-busy \(b.slot)",
                         "\(b.slot.action) \(quote(b.id)) (step \(b.step)) was answered BUSY while no other \(b.slot) capture was in progress")
                }
                continue
            }
            guard b.occupied else { continue }
            // Over the wire: the holder answered after b's answer, or so long after b was
            // sent that the two cannot have crossed (the margin grows with how slowly this
            // host answered what needs no work: a loaded machine delays its reading).
            let overlapped: Bool
            if let a = holder {
                overlapped = exact ? a.index > b.sentIndex
                    : a.index > bFinal || (a.index > b.sentIndex && a.atMs - b.sentAtMs > TraceChecker.crossingMarginMs + hostLagMs)
            } else {
                overlapped = false
            }
            if let a = holder, overlapped {
                fail(.oneCapturePerSlot, "concurrent-captures \(b.slot)",
                     "\(b.slot.action) \(quote(b.id)) (step \(b.step)) was served while \(quote(a.id)) (step \(a.step)) still held \(b.slot); expected BUSY")
            }
            if (holder?.index ?? -1) < bFinal { latestEnd[b.slot] = (bFinal, b.id, b.step, b.finalAtMs ?? 0) }
        }
    }
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

extension JSONValue {
    /// Equality that ignores the order of object members (first member of a name wins).
    func unorderedEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for m in a.members {
                guard let v = b[m.key], m.value.unorderedEquals(v) else { return false }
            }
            return true
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.unorderedEquals($1) }
        default:
            return self == other
        }
    }
}
