/// One deviation from the protocol, found by the decoder (per message) or the analyzer
/// (per session).
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// The rule broken.
    public var rule: RuleID
    /// The severity (the rule's, unless a caller overrides it).
    public var severity: Severity
    /// What exactly was wrong, in a sentence that names the field and value.
    public var message: String
    /// Byte offset in the message where the problem is, when it has one.
    public var offset: Int?

    /// Creates a finding with the rule's catalogue severity.
    public init(_ rule: RuleID, _ message: String, offset: Int? = nil) {
        self.rule = rule
        self.severity = Rule.catalogue[rule]?.severity ?? .error
        self.message = message
        self.offset = offset
    }

    /// The rule's slug (`missing-field`, ...).
    public var slug: String { Rule.catalogue[rule]?.slug ?? rule.rawValue }

    /// `severity [ID slug] message (at byte N)`.
    public var description: String {
        let at = offset.map { " (at byte \($0))" } ?? ""
        return "\(severity) [\(rule) \(slug)] \(message)\(at)"
    }
}
