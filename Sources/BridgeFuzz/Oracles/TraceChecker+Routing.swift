import BridgeHost
import BridgeJSON
import BridgeModel
import BridgeProtocol

/// ``Oracle/capabilityQuery``: what a host running a known scenario must answer, as the
/// model's ``HostModel/configuration``: the answer and the routing agree with the
/// scenario as it stood (toggles included) when the request was sent.
extension TraceChecker {
    /// Whether the pending limit can explain a `BUSY` answer given when `openCount`
    /// requests were open (limit unknown: 50 or more open, Android's warning level).
    func pendingLimitReached(_ openCount: Int) -> Bool {
        openCount >= (pendingLimit ?? 50)
    }

    func routing(_ request: Envelope, model m: CapabilityModel, openCount: Int, response: Envelope) -> ModelViolation? {
        let status = response.payload.status ?? Status(rawValue: "")
        let code = response.payload.error?.code
        let action = request.payload.action.rawValue
        let id = quote(request.correlationId)
        let busyByLimit = status == .error && code == .busy && pendingLimitReached(openCount)
        let answer = "\(status) \(code?.rawValue ?? "")".trimmingCharacters()
        func bad(_ signature: String, _ message: String) -> ModelViolation {
            ModelViolation(.knownConfiguration, signature, message)
        }
        if request.payload.action == .capabilityQuery {
            guard status == .success else { return bad("query-not-success", "capability.query \(id) was answered \(answer)") }
            return capabilityAnswer(response.payload.data, expected: m.expectedCapabilities, model: m)
        }
        if let slot = SlotKind(action: request.payload.action) {
            let s = m.slots[slot]!
            if m.isSupported(slot) {
                if status == .unsupported {
                    return bad("supported-slot-unsupported \(slot)", "\(action) \(id) was answered \(answer) while \(slot) has a handler and is enabled")
                }
            } else if !busyByLimit {
                let expected: ErrorCode = s.handler ? .capabilityUnavailable : .unsupportedAction
                if status != .unsupported || code != expected {
                    return bad("unsupported-slot-answer \(slot)",
                               "\(action) \(id) was answered \(answer); \(slot) is \(s.handler ? "disabled" : "without a handler"), so unsupported \(expected) is expected")
                }
            }
            return nil
        }
        if m.custom.contains(where: { $0.id == action }) {
            if code == .unsupportedAction {
                return bad("custom-unsupported", "\(action) \(id) is a registered custom capability but was answered \(answer)")
            }
            return nil
        }
        if !busyByLimit && (status != .unsupported || code != .unsupportedAction) {
            return bad("unknown-action-answer",
                       "\(id) asks for \(quote(action)), which nothing on this host handles, and was answered \(answer), not unsupported UNSUPPORTED_ACTION")
        }
        return nil
    }

    func capabilityAnswer(_ data: JSONObject?, expected: [String: JSONValue], model: CapabilityModel) -> ModelViolation? {
        func bad(_ signature: String, _ message: String) -> ModelViolation {
            ModelViolation(.knownConfiguration, signature, message)
        }
        guard let data else { return bad("no-data", "capability.query was answered with no data") }
        if data["environment"]?.stringValue != model.environment {
            return bad("environment", "capability.query reports environment \(data["environment"].map(describe) ?? "nothing"), the scenario says \"\(model.environment)\"")
        }
        if data["hostVersion"]?.stringValue != model.hostVersion {
            return bad("host-version", "capability.query reports hostVersion \(data["hostVersion"].map(describe) ?? "nothing"), the scenario says \"\(model.hostVersion)\"")
        }
        guard let caps = data["capabilities"]?.objectValue else { return bad("no-capabilities", "capability.query has no capabilities object") }
        var actual: [String: JSONValue] = [:]
        for m in caps.members where actual[m.key] == nil { actual[m.key] = m.value }
        for key in Set(expected.keys).union(actual.keys).sorted() {
            let e = expected[key], a = actual[key]
            let name = model.custom.contains { $0.id == key } ? "custom" : key
            switch (e, a) {
            case (nil, let a?):
                return bad("unexpected-capability \(name)", "capability.query reports \(key) = \(describe(a)), which the scenario does not have")
            case (let e?, nil):
                return bad("missing-capability \(name)", "capability.query omits \(key); expected \(describe(e))")
            case (let e?, let a?) where !e.unorderedEquals(a):
                return bad("wrong-capability \(name)", "capability.query reports \(key) = \(describe(a)); expected \(describe(e))")
            default: break
            }
        }
        return nil
    }

    func describe(_ v: JSONValue) -> String {
        String(JSONWriter().string(v).prefix(200))
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
