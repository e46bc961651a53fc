/// A stable rule identifier such as `BRG004`. An open set: rules are added over time,
/// and an id read from a report written by a newer version is kept as is.
///
/// Ranges: `BRG001`–`BRG099` per-message rules (this module); `BRG100`–`BRG199`
/// session rules (the analyzer); `BRG200`–`BRG249` capture rules (the recorder);
/// `BRG250`–`BRG299` replay and fuzzing; `BRG300`–`BRG309` bridge crossing (two-sided
/// recordings, the analyzer). Ids are never reused.
public struct RuleID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id, e.g. `BRG004`.
    public let rawValue: String
    /// Wraps an id.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The id.
    public var description: String { rawValue }
    /// Ids order by their spelling (`BRG001` < `BRG002`).
    public static func < (lhs: RuleID, rhs: RuleID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One entry of the rule catalogue: what the rule checks and what to do about it.
public struct Rule: Sendable, Hashable {
    /// Stable id.
    public var id: RuleID
    /// Stable, human-friendly name, e.g. `missing-field`.
    public var slug: String
    /// Default severity.
    public var severity: Severity
    /// One-line summary.
    public var summary: String
    /// What it means and what to check, like a runbook line.
    public var explanation: String
    /// Where the rule comes from: a seed file name, a protocol section, or "project rule".
    public var source: String

    /// Creates a catalogue entry.
    public init(id: RuleID, slug: String, severity: Severity, summary: String, explanation: String, source: String) {
        self.id = id
        self.slug = slug
        self.severity = severity
        self.summary = summary
        self.explanation = explanation
        self.source = source
    }

    /// Every rule by id. Later modules' rules are registered in ``RuleCatalogue``.
    public static var catalogue: RuleCatalogue { RuleCatalogue.standard }
}
