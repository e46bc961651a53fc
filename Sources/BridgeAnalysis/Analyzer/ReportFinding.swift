import BridgeProtocol

/// One finding in a report: a per-message rule broken by one record, or a session rule
/// broken by a request, a response, an event or the whole connection.
public struct ReportFinding: Sendable, Hashable {
    /// The rule broken.
    public var rule: RuleID
    /// The rule's slug.
    public var slug: String
    /// The severity.
    public var severity: Severity
    /// What exactly happened, naming the action, id and times.
    public var message: String
    /// The connection, when the finding concerns one.
    public var connection: String?
    /// Record numbers involved, first the one that triggered the finding (for example
    /// the response, then its request). Empty for end-of-session findings about a
    /// connection as a whole.
    public var records: [Int]
    /// The correlationId involved, when there is one.
    public var correlationId: String?
    /// Byte offset inside the message, for per-message rules.
    public var offset: Int?
    /// Capture time (ns since the epoch) of the triggering record, or of the session's
    /// end for end-of-session findings.
    public var time: Int64?

    /// Creates a finding with the catalogue's slug and severity for `rule`.
    public init(rule: RuleID, message: String, connection: String? = nil, records: [Int] = [],
                correlationId: String? = nil, offset: Int? = nil, time: Int64? = nil) {
        let entry = RuleCatalogue.standard[rule]
        self.rule = rule
        self.slug = entry?.slug ?? rule.rawValue
        self.severity = entry?.severity ?? .error
        self.message = message
        self.connection = connection
        self.records = records
        self.correlationId = correlationId
        self.offset = offset
        self.time = time
    }
}

/// How many findings one rule produced in a report (stored or not).
public struct RuleCount: Sendable, Hashable {
    /// The rule.
    public var rule: RuleID
    /// Its slug.
    public var slug: String
    /// Its severity.
    public var severity: Severity
    /// Every finding of this rule, including those past the storage cap.
    public var count: Int

    /// Creates a count.
    public init(rule: RuleID, slug: String, severity: Severity, count: Int) {
        self.rule = rule
        self.slug = slug
        self.severity = severity
        self.count = count
    }
}

extension ReportFinding: CustomStringConvertible {
    /// `severity [ID slug] record N,M (conn C): message`.
    public var description: String {
        let at = records.isEmpty ? "end" : "record " + records.map(String.init).joined(separator: ",")
        return "\(severity) [\(rule) \(slug)] \(at)\(connection.map { " (conn \($0))" } ?? ""): \(message)"
    }
}
