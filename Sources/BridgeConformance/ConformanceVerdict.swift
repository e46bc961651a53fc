import BridgeModel

/// A case's verdict, in the spirit of the Autobahn testsuite's OK / NON-STRICT /
/// INFORMATIONAL / FAILED.
public enum ConformanceVerdict: Sendable, Hashable {
    /// The host answered as the reference host would.
    case pass
    /// The host answered legally, with choices PROTOCOL.md §7 leaves open (named).
    case passWithChoice([LegalChoice])
    /// No legal host could have answered so: the broken rule and why.
    case fail(rule: String, reason: String)
    /// Reported, not judged (with what the host did).
    case informational(String)
    /// The model could not decide within its search limit: never a failure.
    case undecided(String)

    /// `pass`, `pass-with-choice`, `fail`, `informational`, `undecided`.
    public var name: String {
        switch self {
        case .pass: return "pass"
        case .passWithChoice: return "pass-with-choice"
        case .fail: return "fail"
        case .informational: return "informational"
        case .undecided: return "undecided"
        }
    }

    /// Whether the case failed.
    public var failed: Bool {
        if case .fail = self { return true }
        return false
    }

    /// One line for reports.
    public var detail: String {
        switch self {
        case .pass: return "as the reference host answers"
        case .passWithChoice(let c): return "legal choices: " + c.map { "\($0.rawValue) (\($0.sentence), PROTOCOL.md \($0.section))" }.joined(separator: "; ")
        case .fail(let rule, let reason): return "\(reason) [\(rule)]"
        case .informational(let s), .undecided(let s): return s
        }
    }
}

/// One case run against one host: the verdict and the exchange that shows it.
public struct ConformanceResult: Sendable {
    /// One line of the exchange.
    public struct Line: Sendable, Hashable {
        /// `>` sent to the host, `<` received from it.
        public var direction: String
        /// Milliseconds from the case's start.
        public var atMs: Int64
        /// The message (clipped to 4 KiB for reports).
        public var text: String
    }

    /// The case.
    public var testCase: ConformanceCase
    /// The verdict.
    public var verdict: ConformanceVerdict
    /// What crossed.
    public var exchange: [Line]
    /// Wall-clock milliseconds the case took.
    public var milliseconds: Int
}

/// The suite run against one host.
public struct ConformanceRun: Sendable {
    /// The target, as given (`inproc`, `stdio:CMD`, `ws://…`).
    public var target: String
    /// Whether the strict model (the reference host's choices) was used.
    public var strict: Bool
    /// The results, in case order.
    public var results: [ConformanceResult]

    /// Results by verdict name.
    public var counts: [String: Int] {
        var c: [String: Int] = [:]
        for r in results { c[r.verdict.name, default: 0] += 1 }
        return c
    }

    /// Whether any case failed.
    public var failed: Bool { results.contains { $0.verdict.failed } }
}
