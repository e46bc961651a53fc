import BridgeProtocol

/// `--fail-on error|warning|never`: which findings make `analyze` exit 1.
public enum FailThreshold: String, Sendable, Hashable, CaseIterable {
    /// Fail on error findings (the default).
    case error
    /// Fail on warning or error findings.
    case warning
    /// Never fail on findings (I/O errors still exit 2).
    case never

    /// The lowest severity that fails, nil for ``never``.
    public var severity: Severity? {
        switch self {
        case .error: return .error
        case .warning: return .warning
        case .never: return nil
        }
    }
}

/// The exit-status contract of `bridgescope analyze`, as pure functions.
public enum FailPolicy {
    /// Whether findings with these counts reach the threshold.
    public static func fails(_ counts: [RuleCount], threshold: FailThreshold) -> Bool {
        guard let s = threshold.severity else { return false }
        return counts.contains { $0.severity >= s && $0.count > 0 }
    }

    /// Whether one report reaches the threshold.
    public static func fails(_ report: AnalysisReport, threshold: FailThreshold) -> Bool {
        fails(report.ruleCounts, threshold: threshold)
    }

    /// Whether the report rests on incomplete evidence: the input was damaged or
    /// truncated, or the recorder lost traffic (`capture-error`, `capture-gap`). A
    /// report that finds nothing in half a session must not say PASS.
    static func isIncomplete(_ counts: [RuleCount]) -> Bool {
        counts.contains { ($0.rule == .captureError || $0.rule == .captureGap) && $0.count > 0 }
    }

    /// Whether one report rests on incomplete evidence.
    static func isIncomplete(_ report: AnalysisReport) -> Bool {
        isIncomplete(report.ruleCounts)
    }

    /// 2 when an input could not be read, else 1 when any session reaches the threshold
    /// or (unless `acceptIncomplete`) rests on incomplete evidence, else 0.
    public static func exitStatus(_ batch: AnalysisBatch, threshold: FailThreshold, acceptIncomplete: Bool = false) -> Int32 {
        if !batch.failures.isEmpty { return 2 }
        if fails(batch.aggregate.ruleCounts, threshold: threshold) { return 1 }
        return !acceptIncomplete && isIncomplete(batch.aggregate.ruleCounts) ? 1 : 0
    }

    /// `fail`, `incomplete` (nothing at the threshold, but the input was damaged,
    /// truncated or lost traffic; `pass` when `acceptIncomplete`) or `pass` for one report.
    public static func verdict(_ report: AnalysisReport, threshold: FailThreshold, acceptIncomplete: Bool = false) -> String {
        verdict(report.ruleCounts, threshold: threshold, acceptIncomplete: acceptIncomplete)
    }

    /// The verdict for rule counts (a session's or the aggregate's).
    public static func verdict(_ counts: [RuleCount], threshold: FailThreshold, acceptIncomplete: Bool = false) -> String {
        if fails(counts, threshold: threshold) { return "fail" }
        return !acceptIncomplete && isIncomplete(counts) ? "incomplete" : "pass"
    }
}

/// Options every renderer takes.
public struct RenderOptions: Sendable, Hashable {
    /// The `--fail-on` threshold, which decides the verdict shown.
    public var threshold: FailThreshold
    /// ANSI colour in text output (only when asked; the CLI asks on a terminal).
    public var color: Bool
    /// Examples shown per rule in text output. Default 5.
    var examplesPerRule: Int
    /// `--accept-incomplete`: a damaged or truncated input (the recorder was killed)
    /// gets `pass`/`fail` on what could be read instead of `incomplete`.
    public var acceptIncomplete: Bool

    /// Creates options.
    public init(threshold: FailThreshold = .error, color: Bool = false, examplesPerRule: Int = 5, acceptIncomplete: Bool = false) {
        self.threshold = threshold
        self.color = color
        self.examplesPerRule = examplesPerRule
        self.acceptIncomplete = acceptIncomplete
    }

    /// The verdict of one report under these options.
    func verdict(_ r: AnalysisReport) -> String {
        FailPolicy.verdict(r, threshold: threshold, acceptIncomplete: acceptIncomplete)
    }

    /// The verdict of a batch: `error` when an input could not be read, else the
    /// aggregate's.
    func verdict(_ b: AnalysisBatch) -> String {
        !b.failures.isEmpty ? "error" : FailPolicy.verdict(b.aggregate.ruleCounts, threshold: threshold, acceptIncomplete: acceptIncomplete)
    }
}

/// Formatting shared by the renderers.
enum Format {
    /// Milliseconds with up to 3 decimals from microseconds: `12`, `12.3`, `0.045`.
    static func ms(micros: Int64) -> String {
        let neg = micros < 0
        let m = neg ? -micros : micros
        var frac = String(m % 1000)
        frac = String(repeating: "0", count: 3 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return (neg ? "-" : "") + String(m / 1000) + (frac.isEmpty ? "" : "." + frac)
    }

    /// Milliseconds from nanoseconds.
    static func ms(nanos: Int64) -> String { ms(micros: nanos / 1000) }

    /// A duration for people: `850 ms`, `4.20 s`, `2 min 05 s`.
    static func duration(nanos: Int64) -> String {
        let ms = nanos / 1_000_000
        if ms < 1_000 { return "\(ms) ms" }
        if ms < 60_000 {
            let cs = (ms % 1000) / 10
            return "\(ms / 1000).\(cs < 10 ? "0" : "")\(cs) s"
        }
        let s = ms / 1000
        return "\(s / 60) min \(s % 60 < 10 ? "0" : "")\(s % 60) s"
    }

    /// Seconds with 3 decimals from nanoseconds: `+12.345`.
    static func offset(nanos: Int64) -> String {
        let ms = nanos / 1_000_000
        let neg = ms < 0
        let a = neg ? -ms : ms
        let f = String(a % 1000)
        return (neg ? "-" : "+") + "\(a / 1000)." + String(repeating: "0", count: 3 - f.count) + f
    }

    /// Rules that explain other findings, shown first in a verdict.
    static let causePriority: [RuleID] = [
        .hostSilent, .bridgeNotDelivered, .responseNotConsumed, .unansweredRequest, .busyViolation, .dualCaptureIncomplete,
        .duplicateResponse, .unknownCorrelation, .hostReinit, .missingHostReady, .captureGap,
    ]

    /// Findings ordered for a verdict: severity, then the cause priority, then id.
    static func ranked(_ counts: [RuleCount]) -> [RuleCount] {
        counts.sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            let pa = causePriority.firstIndex(of: a.rule) ?? Int.max, pb = causePriority.firstIndex(of: b.rule) ?? Int.max
            if pa != pb { return pa < pb }
            return a.rule < b.rule
        }
    }

    /// `s` when n != 1.
    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
