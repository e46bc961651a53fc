/// The table of every rule, in id order. `docs/RULES.md` is generated from it
/// (`bridgescope rules --markdown`); a test fails when the committed file differs.
public struct RuleCatalogue: Sendable {
    /// The rules in id order.
    public let rules: [Rule]
    private let byID: [RuleID: Rule]
    private let bySlug: [String: Rule]

    /// Builds a catalogue; ids and slugs must be unique.
    public init(_ rules: [Rule]) {
        self.rules = rules.sorted { $0.id < $1.id }
        var byID: [RuleID: Rule] = [:]
        var bySlug: [String: Rule] = [:]
        for r in rules {
            precondition(byID[r.id] == nil, "duplicate rule id \(r.id)")
            precondition(bySlug[r.slug] == nil, "duplicate rule slug \(r.slug)")
            byID[r.id] = r
            bySlug[r.slug] = r
        }
        self.byID = byID
        self.bySlug = bySlug
    }

    /// The rule with this id.
    public subscript(id: RuleID) -> Rule? { byID[id] }

    /// The rule with this slug.
    public func rule(slug: String) -> Rule? { bySlug[slug] }

    /// Every rule this version knows: the per-message rules plus those registered by
    /// later modules in ``RuleCatalogue/sessionRules`` and ``RuleCatalogue/crossingRules``.
    public static let standard = RuleCatalogue(messageRules + sessionRules + crossingRules)
}
