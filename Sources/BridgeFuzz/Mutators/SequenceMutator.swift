import BridgeJSON

/// Mutations of the step sequence (issue 8): reorder, duplicate, drop, change delays,
/// interleave concurrent captures on one slot, hundreds of pending requests, web events
/// between requests, scenario toggles mid-flight, and splicing steps from another case.
struct SequenceMutator {
    enum Kind: Int, CaseIterable {
        case swap, move, duplicate, drop, delay, concurrentCaptures, manyPending, eventsBetween, toggle, splice,
             freshRequest, reuseIdAfterAnswer
    }

    static let weights: [Int] = [6, 4, 8, 6, 10, 8, 1, 4, 5, 5, 8, 4]

    static let delays: [Int64] = [0, 0, 1, 10, 50, 99, 100, 101, 150, 500, 999, 1000, 4999, 5000, 5001, 29_999, 30_000, 30_001, 120_000]

    @discardableResult
    static func mutate(_ input: inout FuzzInput, other: FuzzInput?, toggles: Bool, _ rng: inout FuzzRandom) -> Kind {
        var kind = Kind(rawValue: rng.weighted(weights))!
        if kind == .toggle && !toggles { kind = .delay }
        var steps = input.steps
        let n = steps.count
        switch kind {
        case .swap:
            if n > 1 { steps.swapAt(rng.below(n), rng.below(n)) }
        case .move:
            if n > 1 { let s = steps.remove(at: rng.below(n)); steps.insert(s, at: rng.below(n)) }
        case .duplicate:
            if let s = rng.pick(steps) {
                var copy = s
                if rng.oneIn(2) { copy.delayMs = rng.pick(delays)! }
                for _ in 0..<rng.smallCount(max: 4) { steps.insert(copy, at: rng.below(steps.count + 1)) }
            }
        case .drop:
            if n > 0 { steps.remove(at: rng.below(n)) }
        case .delay:
            if n > 0 { steps[rng.below(n)].delayMs = rng.pick(delays)! }
        case .concurrentCaptures:
            let action = rng.oneIn(2) ? "camera.document.capture" : "camera.selfie.capture"
            let count = rng.within(2...5)
            let at = rng.below(n + 1)
            let tag = rng.below(100_000)
            let fresh = (0..<count).map { k in
                FuzzStep(delayMs: k == 0 ? 0 : rng.pick([0, 0, 1, 50, 99, 100, 101])!, message: MessageWriter.envelope(
                    id: "cc-\(tag)-\(k)", type: "request", action: action,
                    data: .object(JSONObject([.init(key: "side", value: .string(rng.pick(["front", "back", "single"])!))]))))
            }
            steps.insert(contentsOf: fresh, at: at)
        case .manyPending:
            let count = rng.pick([51, 60, 120, 999, 1001])!
            let action = rng.pick(["nfc.read", "camera.document.capture", "capability.query", "x.unknown"])!
            let tag = rng.below(100_000)
            let fresh = (0..<count).map { k in
                FuzzStep(message: MessageWriter.envelope(id: "p-\(tag)-\(k)", type: "request", action: action))
            }
            steps.insert(contentsOf: fresh, at: rng.below(n + 1))
        case .eventsBetween:
            let action = rng.pick(["journey.started", "journey.progress", "journey.complete", "journey.error", "host.ready"])!
            for _ in 0..<rng.smallCount(max: 4) {
                let e = MessageWriter.envelope(id: "web-\(rng.below(1000))", type: "event", action: action,
                                               data: .object(JSONObject([.init(key: "status", value: "passed")])))
                steps.insert(FuzzStep(message: e), at: rng.below(steps.count + 1))
            }
        case .toggle:
            steps.insert(FuzzStep(delayMs: rng.pick(delays)!, .toggle(rng.pick(ScenarioToggle.known)!)), at: rng.below(n + 1))
        case .splice:
            if let other, !other.steps.isEmpty {
                let from = rng.below(other.steps.count)
                let len = rng.within(1...min(8, other.steps.count - from))
                steps.insert(contentsOf: other.steps[from..<(from + len)], at: rng.below(n + 1))
            }
        case .freshRequest:
            let action = rng.oneIn(4) ? rng.pick(FuzzDictionary.nearMissActions)! : rng.pick(FuzzDictionary.actions)!
            let type = rng.oneIn(6) ? rng.pick(FuzzDictionary.types)! : "request"
            let id = rng.oneIn(3) ? (steps.compactMap { $0.message.flatMap(MessageWriter.correlationId) }.randomElement(using: &rng) ?? "r-1")
                                  : "r-\(rng.below(100_000))"
            steps.insert(FuzzStep(delayMs: rng.pick(delays)!, message: MessageWriter.envelope(id: id, type: type, action: action)),
                         at: rng.below(n + 1))
        case .reuseIdAfterAnswer:
            // The same request again, long after the first was answered.
            if let i = (0..<n).filter({ steps[$0].message != nil }).randomElement(using: &rng) {
                var copy = steps[i]
                copy.delayMs = rng.pick([200, 1000, 31_000])!
                steps.insert(copy, at: rng.within(i...n))
            }
        }
        if steps.count > FuzzLimits.maxSteps { steps.removeLast(steps.count - FuzzLimits.maxSteps) }
        input.steps = steps
        return kind
    }
}
