/// What a report shows of a long journey: every step of a short one; for a long one,
/// runs of alike steps folded with a count, and only the beginning, the end and the
/// steps around each notable step (a finding, an error, an unanswered request, a capture
/// event) when even the folded list is long. Whatever is left out is said where it is
/// left out, with its record numbers, so a reader knows where to look (`cat`, `--format
/// json`). Pure: the text and HTML renderers share it.
public struct JourneyFolding: Sendable {
    /// One row of the shown journey.
    public enum Row: Sendable, Hashable {
        /// A step, with its index in the connection's steps.
        case step(Int)
        /// `count` alike steps (same kind, direction, action and outcome, no finding)
        /// folded into one line, from record `firstRecord` to `lastRecord`.
        case run(count: Int, like: Int, firstRecord: Int, lastRecord: Int)
        /// `count` steps not shown, from record `firstRecord` to `lastRecord`.
        case skipped(count: Int, firstRecord: Int, lastRecord: Int)
    }

    /// Runs shorter than this are shown whole.
    var minimumRun = 4
    /// Above this many rows after folding runs, only the head, the tail and the context
    /// of notable steps are kept.
    var maxRows = 200
    /// Rows kept at the beginning and at the end of a long journey.
    var headAndTail = 40
    /// Rows kept on each side of a notable step.
    public var context = 3

    /// The documented defaults.
    public init() {}

    /// The rows that show `steps`.
    public func rows(_ steps: [JourneyStep]) -> [Row] {
        // 1. Runs of alike steps: the first and the last shown, the middle folded.
        var rows: [Row] = []
        var i = 0
        while i < steps.count {
            var j = i + 1
            while j < steps.count && Self.alike(steps[i], steps[j]) { j += 1 }
            if j - i >= minimumRun {
                rows.append(.step(i))
                rows.append(.run(count: j - i - 2, like: i + 1, firstRecord: steps[i + 1].records.first ?? 0,
                                 lastRecord: steps[j - 2].records.first ?? 0))
                rows.append(.step(j - 1))
            } else {
                for k in i..<j { rows.append(.step(k)) }
            }
            i = j
        }
        guard rows.count > maxRows else { return rows }
        // 2. Still long: head, tail, and the context of notable steps.
        var keep = [Bool](repeating: false, count: rows.count)
        for k in 0..<min(headAndTail, rows.count) { keep[k] = true }
        for k in max(0, rows.count - headAndTail)..<rows.count { keep[k] = true }
        for (k, row) in rows.enumerated() {
            guard case .step(let s) = row, Self.isNotable(steps[s]) else { continue }
            for n in max(0, k - context)...min(rows.count - 1, k + context) { keep[n] = true }
        }
        var out: [Row] = []
        var k = 0
        while k < rows.count {
            if keep[k] {
                out.append(rows[k])
                k += 1
                continue
            }
            var end = k
            var count = 0
            while end < rows.count && !keep[end] {
                count += rows[end].stepCount
                end += 1
            }
            out.append(.skipped(count: count, firstRecord: rows[k].firstRecord(steps), lastRecord: rows[end - 1].lastRecord(steps)))
            k = end
        }
        return out
    }

    /// Same kind, direction, action, outcome and error code, and neither carries a finding.
    static func alike(_ a: JourneyStep, _ b: JourneyStep) -> Bool {
        a.kind == b.kind && a.direction == b.direction && a.action == b.action && a.outcome == b.outcome
            && a.errorCode == b.errorCode && a.findings.isEmpty && b.findings.isEmpty && a.kind != .capture
    }

    /// A step a reader must see: a finding, an error, an unanswered request, a capture event.
    static func isNotable(_ s: JourneyStep) -> Bool {
        !s.findings.isEmpty || s.kind == .capture || (s.kind == .request && s.outcome != "success")
    }
}

extension JourneyFolding.Row {
    /// How many steps the row stands for.
    var stepCount: Int {
        switch self {
        case .step: 1
        case .run(let count, _, _, _), .skipped(let count, _, _): count
        }
    }

    func firstRecord(_ steps: [JourneyStep]) -> Int {
        switch self {
        case .step(let s): steps[s].records.first ?? 0
        case .run(_, _, let first, _), .skipped(_, let first, _): first
        }
    }

    func lastRecord(_ steps: [JourneyStep]) -> Int {
        switch self {
        case .step(let s): steps[s].records.first ?? 0
        case .run(_, _, _, let last), .skipped(_, _, let last): last
        }
    }
}
