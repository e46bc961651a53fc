/// The end of a branch: every request answered (unless the run was cut short), and an
/// order of reads that fits every capture (``SlotTiming``).
extension ExplanationSearch {
    mutating func leaf(_ state: State) -> Bool {
        let end = history.events.count
        if !history.cutShort {
            for i in state.instances where i.final == nil && i.request.mustAnswer && !lateIds.contains(i.request.id) {
                let action = i.request.displayAction
                fail(end, ModelViolation(.everyRequestAnswered, "no-final-response \(actionClass(action))",
                                         "the request \(quote(i.request.id)) (step \(step(i.event)), \(action)) got no final response" +
                                         (history.exactTiming ? " before the host went quiet" : " within its deadline"),
                                         evidence: [i.event]))
                return false
            }
        }
        let timing = SlotTiming(exact: history.exactTiming, strict: model.strict, heldSlots: history.heldSlots,
                                pendingLimit: model.effectivePendingLimit, cutShort: history.cutShort)
        if let v = timing.check(state.instances, step: { step($0) }, quote: { quote($0) }) {
            fail(end, v)
            return false
        }
        found = Explanation(choices: state.notes, steps: steps)
        return true
    }
}
