import BridgeJSON
import BridgeProtocol

/// A response from the host: which open request it may belong to, and whether it is an
/// answer that request may get.
extension ExplanationSearch {
    func receive(_ state: State, _ event: Int, _ env: Envelope) -> Received {
        let id = env.correlationId
        let status = env.payload.status ?? Status(rawValue: "")
        let candidates = state.open[id] ?? []
        guard !candidates.isEmpty else { return .fail(unmatched(env, event, state)) }
        if status == .acknowledged {
            var s = state
            if let c = candidates.first(where: { !s.instances[$0].acknowledged }) {
                s.instances[c].acknowledged = true
                s.instances[c].firstAnswer = s.instances[c].firstAnswer ?? event
                return .states([s])
            }
            if model.strict {
                let r = state.instances[candidates[0]].request
                return .fail(ModelViolation(.oneAcknowledged, "second-acknowledged \(actionClass(r.displayAction))",
                                            "a second acknowledged response to \(quote(id)) (\(r.displayAction))",
                                            evidence: [state.instances[candidates[0]].event, event]))
            }
            return .states([state])
        }
        var out: [State] = []
        var firstViolation: ModelViolation?
        for c in candidates {
            switch judge(state.instances[c], env, event) {
            case .bad(let v):
                firstViolation = firstViolation ?? v
            case .ok(let way, let note):
                var s = state
                s.instances[c].final = event
                s.instances[c].firstAnswer = s.instances[c].firstAnswer ?? event
                s.instances[c].way = way
                s.instances[c].status = status
                s.instances[c].code = env.payload.error?.code
                s.instances[c].answerAction = env.payload.action.rawValue
                s.open[id]!.removeAll { $0 == c }
                if s.open[id]!.isEmpty { s.open[id] = nil }
                s.openCount -= 1
                if let note { s.notes.append(.init(choice: note, event: event)) }
                out.append(s)
            }
        }
        if out.isEmpty { return .fail(firstViolation ?? unmatched(env, event, state)) }
        return .states(out)
    }

    /// A response that no open request can take: a second final response, or one to an
    /// id nothing carried.
    func unmatched(_ env: Envelope, _ event: Int, _ state: State) -> ModelViolation {
        let id = env.correlationId
        let status = env.payload.status ?? Status(rawValue: "")
        if let answered = state.instances.last(where: { $0.request.id == id && $0.final != nil }) {
            let first = answered.event
            return ModelViolation(.oneFinalResponse, "second-final-response \(actionClass(env.payload.action.rawValue))",
                                  "a second \(status) response to \(quote(id)) (\(env.payload.action)) after its final response, and no other request the host may have read carries that id",
                                  evidence: [first, event])
        }
        return ModelViolation(.noUnsolicitedAnswer, "unsolicited-response",
                              "a \(status) response to \(quote(id)), which no request sent so far carries", evidence: [event])
    }

    func quote(_ s: String) -> String { ReportText.quote(s) }
}
