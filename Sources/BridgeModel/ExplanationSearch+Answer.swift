import BridgeHost
import BridgeJSON
import BridgeProtocol

/// Whether a final response is an answer a request may get, way by way.
extension ExplanationSearch {
    enum Judged {
        /// Answered the way at this index, with the §7 choice that needed, if any.
        case ok(Int, LegalChoice?)
        case bad(ModelViolation)
    }

    func judge(_ instance: Instance, _ env: Envelope, _ event: Int) -> Judged {
        var first: ModelViolation?
        for (index, way) in instance.request.ways.enumerated() {
            switch judge(way, instance, env, event) {
            case .ok(_, let note): return .ok(index, note)
            case .bad(let v): first = first ?? v
            }
        }
        return .bad(first!)
    }

    func judge(_ way: ReadRequest.Way, _ instance: Instance, _ env: Envelope, _ event: Int) -> Judged {
        let r = instance.request
        let action = env.payload.action.rawValue
        let status = env.payload.status ?? Status(rawValue: "")
        let code = env.payload.error?.code
        let answer = "\(status)\(code.map { " \($0.rawValue)" } ?? "")"
        let evidence = [instance.event, event]
        let id = quote(r.id), at = "step \(step(instance.event))"
        if let expected = way.actions.first, !way.actions.contains(action) {
            return .bad(ModelViolation(.sameIdAndAction, "wrong-action \(actionClass(expected))",
                                       "the response to \(id) (\(at)) carries action \(quote(action)), not \(quote(expected))",
                                       evidence: evidence))
        }
        var note = way.choice
        switch way.kind {
        case .routed(let request):
            let cls = actionClass(request.payload.action.rawValue)
            if status == .error, code == .invalidRequest || code == ErrorCode(rawValue: "VERSION_MISMATCH") {
                return .bad(ModelViolation(.validRequestRouted, "valid-request-rejected \(cls)",
                                           "the well-formed request \(id) (\(at), \(request.payload.action)) was answered \(answer)",
                                           evidence: evidence))
            }
            if history.exactTiming, let deadline = model.deadline {
                let limit = deadline(request.payload.action.rawValue)
                let took = receivedMs(event) - sentMs(instance.event)
                if took > limit {
                    return .bad(ModelViolation(.withinDeadline, "late-response \(cls)",
                                               "the response to \(id) (\(request.payload.action)) came \(took) ms after the request; the deadline is \(limit) ms",
                                               evidence: evidence))
                }
            }
            if request.payload.action == .capabilityQuery, status == .success, let v = capabilityShape(env, instance, event) {
                return .bad(v)
            }
            if let configuration = model.configuration {
                if let v = configuration(request, instance.event, instance.openCount, env) { return .bad(v) }
            } else if !model.strict {
                let busyForRoom = instance.openCount >= model.effectivePendingLimit
                if code == .busy, way.slot == nil, !busyForRoom { note = note ?? .busyOnOtherAction }
                if request.payload.action == .capabilityQuery, status != .success { note = note ?? .queryNotSuccess }
                if cls == "other", code != .busy, status != .unsupported || code != .unsupportedAction {
                    note = note ?? .unknownActionHandled
                }
            }
        case .invalid(let codes):
            guard status == .error, let code, codes.contains(code) else {
                return .bad(ModelViolation(.malformedAnswer, "invalid-request-answer",
                                           "the invalid request \(id) (\(at)) was answered \(answer), not error INVALID_REQUEST",
                                           evidence: evidence))
            }
            if code == ErrorCode(rawValue: "VERSION_MISMATCH") { note = note ?? .majorVersionMismatch }
            if action != way.actions.first, !way.actions.isEmpty { note = note ?? .malformedRawAction }
        case .rejected(let codes):
            guard status == .error, let code, codes.contains(code) else {
                return .bad(ModelViolation(.oneFinalResponse, "reused-id-answer",
                                           "the request \(id) (\(at)) reuses an id; it was answered \(answer)", evidence: evidence))
            }
        case .routedAsFar, .loose:
            break
        }
        return .ok(0, note)
    }

    func receivedMs(_ event: Int) -> Int64 {
        if case .received(_, let at) = history.events[event] { return at }
        return 0
    }

    /// §3: `{environment: ios|android|web, hostVersion: string, capabilities: {id:
    /// {supported: bool, version: string, permissionState?, constraints?}}}`.
    func capabilityShape(_ env: Envelope, _ instance: Instance, _ event: Int) -> ModelViolation? {
        func bad(_ what: String, _ detail: String) -> ModelViolation {
            ModelViolation(.capabilityShape, "query-shape \(what)",
                           "capability.query \(quote(instance.request.id)) was answered success with \(detail)",
                           evidence: [instance.event, event])
        }
        guard let data = env.payload.data else { return bad("no-data", "no data") }
        guard let environment = data["environment"]?.stringValue, ["ios", "android", "web"].contains(environment) else {
            return bad("environment", "environment \(describe(data["environment"])), not \"ios\", \"android\" or \"web\"")
        }
        guard data["hostVersion"]?.stringValue != nil else {
            return bad("host-version", "hostVersion \(describe(data["hostVersion"])), not a string")
        }
        guard let caps = data["capabilities"]?.objectValue else {
            return bad("capabilities", "capabilities \(describe(data["capabilities"])), not an object")
        }
        let states: Set<String> = ["granted", "denied", "notDetermined", "restricted"]
        for m in caps.members {
            guard let c = m.value.objectValue, c["supported"]?.boolValue != nil, c["version"]?.stringValue != nil else {
                return bad("capability", "capability \(quote(m.key)) = \(describe(m.value)): not {supported: bool, version: string}")
            }
            if let p = c["permissionState"], !(p.stringValue.map(states.contains) ?? false) {
                return bad("permission-state", "capability \(quote(m.key)) permissionState \(describe(p))")
            }
            if let k = c["constraints"], k.objectValue == nil {
                return bad("constraints", "capability \(quote(m.key)) constraints \(describe(k)), not an object")
            }
        }
        return nil
    }

    func describe(_ v: JSONValue?) -> String {
        guard let v else { return "missing" }
        return String(JSONWriter().string(v).prefix(120))
    }
}
