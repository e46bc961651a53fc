import BridgeHost
import BridgeJSON
import BridgeProtocol

/// The depth-first search behind ``ExplanationChecker``: one pass over the events that
/// copies its state only where the model branches. The first branch tried is always the
/// reference host's reading, so the explanation found needs as few §7 choices as the
/// search order allows; when no branch succeeds, the violation reported is the one met
/// furthest into the history (ties: the earliest branch), as Porcupine reports the
/// longest legal prefix.
struct ExplanationSearch {
    /// One request as the host read it, and what became of it.
    struct Instance {
        var request: ReadRequest
        /// The event that sent it.
        var event: Int
        /// Requests open when it was sent.
        var openCount: Int
        var acknowledged = false
        var firstAnswer: Int?
        var final: Int?
        var way: Int?
        var status: Status?
        var code: ErrorCode?
        var answerAction: String?

        /// The typed slot it occupies or asked for, given how it was answered.
        var slot: SlotKind? {
            let w = request.ways[way ?? 0]
            if let s = w.slot { return s }
            switch w.kind {
            case .loose, .routedAsFar: return answerAction.flatMap { SlotKind(action: Action(rawValue: $0)) }
            default: return nil
            }
        }

        var isRejection: Bool {
            if case .rejected = request.ways[way ?? 0].kind { return true }
            if case .invalid = request.ways[way ?? 0].kind { return true }
            return false
        }

        var isBusy: Bool { final != nil && status == .error && code == .busy }
    }

    struct State {
        var instances: [Instance] = []
        var open: [String: [Int]] = [:]
        var openCount = 0
        var notes: [Explanation.Noted] = []
    }

    enum Received {
        case fail(ModelViolation)
        case states([State])
    }

    let model: HostModel
    let history: HostHistory
    let readings: [Int: [Reading]]
    let responses: [Int: Envelope]
    /// The first sent event that carried each id (by any reading or the loose scan).
    let firstCarried: [String: Int]
    /// Ids whose missing answers may be on their way (``HostHistory/awaitsOneFinalAnswerPerId``).
    let lateIds: Set<String>
    var steps = 0
    var exhausted = false
    var best: (index: Int, violation: ModelViolation)?
    var found: Explanation?

    init(model: HostModel, history: HostHistory, decoder: EnvelopeDecoder) {
        self.model = model
        self.history = history
        let reader = MessageReadings(decoder: decoder, strict: model.strict)
        var readings: [Int: [Reading]] = [:]
        var responses: [Int: Envelope] = [:]
        var first: [String: Int] = [:]
        var requested: [String: Int] = [:], answered: [String: Int] = [:]
        for (i, e) in history.events.enumerated() {
            switch e {
            case .sent(_, let bytes, _):
                let r = reader.readings(bytes)
                readings[i] = r
                for id in LooseIds.scan(bytes) where first[id] == nil { first[id] = i }
                for reading in r { for q in reading.requests where first[q.id] == nil { first[q.id] = i } }
                if let id = r.first?.requests.first?.id { requested[id, default: 0] += 1 }
            case .received(let bytes, _):
                let d = decoder.decode(bytes, direction: .hostToWeb)
                if let env = d.envelope, env.type == .response {
                    responses[i] = env
                    if env.payload.status != .acknowledged { answered[env.correlationId, default: 0] += 1 }
                }
            }
        }
        self.readings = readings
        self.responses = responses
        self.firstCarried = first
        self.lateIds = history.awaitsOneFinalAnswerPerId
            ? Set(requested.filter { id, n in n > 1 && (answered[id] ?? 0) >= 1 && (answered[id] ?? 0) < n }.keys) : []
    }

    mutating func run() -> ModelVerdict {
        if explore(State(), from: 0), let found { return .explained(found) }
        if exhausted {
            return .undecided("the search stopped after \(steps) steps (limit \(model.searchLimit)) without deciding")
        }
        if let best { return .violated(best.violation) }
        return .undecided("no explanation and no violation recorded")
    }

    mutating func fail(_ index: Int, _ v: ModelViolation) {
        if best == nil || index > best!.index { best = (index, v) }
    }

    /// Explores from event `index`; true when an explanation was found.
    mutating func explore(_ start: State, from index: Int) -> Bool {
        var state = start
        var i = index
        while i < history.events.count {
            steps += 1
            if steps > model.searchLimit { exhausted = true; return false }
            var next: [State]
            switch history.events[i] {
            case .sent:
                next = sendOptions(state, i)
            case .received:
                guard let env = responses[i] else { i += 1; continue }
                switch receive(state, i, env) {
                case .fail(let v): fail(i, v); return false
                case .states(let s): next = s
                }
            }
            if next.count == 1 {
                state = next[0]
            } else {
                for s in next {
                    if explore(s, from: i + 1) { return true }
                    if exhausted { return false }
                }
                return false
            }
            i += 1
        }
        return leaf(state)
    }

    func sentMs(_ event: Int) -> Int64 {
        if case .sent(_, _, let at) = history.events[event] { return at }
        return 0
    }

    func step(_ event: Int) -> Int {
        if case .sent(let s, _, _) = history.events[event] { return s }
        return -1
    }

    func actionClass(_ action: String) -> String {
        ReportText.actionClass(action) { model.customActions.contains($0) }
    }
}
