/// What ``ExplanationChecker`` concluded about a history.
public enum ModelVerdict: Sendable {
    /// Some legal host could have produced it; the explanation says which §7 choices it
    /// needed (none: the reference host's choices explain it).
    case explained(Explanation)
    /// No legal host could have: the obligation every explanation breaks.
    case violated(ModelViolation)
    /// The search reached ``HostModel/searchLimit`` before deciding: never a finding.
    case undecided(String)

    /// The violation, if any.
    public var violation: ModelViolation? {
        if case .violated(let v) = self { return v }
        return nil
    }
}

/// A legal explanation of a history: the choices a host made to produce it.
public struct Explanation: Sendable, Hashable {
    /// A choice and the event (index into ``HostHistory/events``) of the message it was
    /// made for.
    public struct Noted: Sendable, Hashable {
        /// The choice.
        public var choice: LegalChoice
        /// The event.
        public var event: Int
    }

    /// The §7 choices the explanation needed, in event order.
    public var choices: [Noted]
    /// Search steps taken.
    public var steps: Int

    /// Each choice once, sorted.
    public var distinctChoices: [LegalChoice] { Array(Set(choices.map(\.choice))).sorted() }
}
