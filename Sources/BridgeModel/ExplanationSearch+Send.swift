import BridgeProtocol

/// What a sent message may have done to the host's state: each reading, and for a
/// request reusing an id, each thing §7 lets a host do with it.
extension ExplanationSearch {
    func sendOptions(_ state: State, _ event: Int) -> [State] {
        var result: [State] = []
        for reading in readings[event] ?? [] {
            var partial = [state]
            if let c = reading.choice {
                partial[0].notes.append(.init(choice: c, event: event))
            }
            for request in reading.requests {
                partial = partial.flatMap { add(request, to: $0, event: event) }
            }
            result += partial
        }
        return result.isEmpty ? [state] : result
    }

    /// The states after the host took `request`: for an id still open, ignored (ours),
    /// served as well, rejected, or served instead of the first (§7); for an id already
    /// answered, a new request (ours) or rejected.
    func add(_ request: ReadRequest, to state: State, event: Int) -> [State] {
        func with(_ r: ReadRequest, _ choice: LegalChoice?, _ change: (inout State) -> Void = { _ in }) -> State {
            var s = state
            change(&s)
            let index = s.instances.count
            s.instances.append(Instance(request: r, event: event, openCount: s.openCount))
            s.open[r.id, default: []].append(index)
            s.openCount += 1
            if let choice { s.notes.append(.init(choice: choice, event: event)) }
            return s
        }
        guard request.mustAnswer else { return [with(request, nil)] }
        let rejected = ReadRequest(id: request.id, .init(kind: .rejected(codes: [.invalidRequest, .busy]), actions: [],
                                                         slot: nil, choice: nil))
        if let open = state.open[request.id], !open.isEmpty {
            var out = [state]
            if !model.strict { out.append(with(rejected, .reusedOpenIdRejected)) }
            // Over the wire the first may already be answered in the host's view (its answer
            // in flight): then the second is a new request, even for the reference host.
            if !model.strict || !history.exactTiming { out.append(with(request, .reusedOpenIdServed)) }
            guard !model.strict else { return out }
            out.append(with(request, .reusedOpenIdReplaces) { s in
                for i in open { s.instances[i].request.mustAnswer = false }
            })
            return out
        }
        if !model.strict, let first = firstCarried[request.id], first < event {
            var again = rejected
            again.ways[0].kind = .rejected(codes: [.invalidRequest])
            return [with(request, nil), with(again, .reusedAnsweredIdRejected)]
        }
        return [with(request, nil)]
    }
}
