import BridgeProtocol
import BridgeReport

/// `--format text`: a summary a person reads top-down: verdict, journey steps, latency
/// table, findings grouped by rule with the first examples and record numbers. ANSI
/// colour only when ``RenderOptions/color`` is set.
public struct TextReportRenderer: Sendable {
    /// The options.
    public var options: RenderOptions

    /// Creates a renderer.
    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// Every session, then (for more than one input) the aggregate.
    public func render(_ batch: AnalysisBatch) -> String {
        TerminalText.render(renderMarked(batch), colour: options.color)
    }

    /// The report with colour marks and values as read (escaped by ``render(_:)``).
    func renderMarked(_ batch: AnalysisBatch) -> String {
        var out = ""
        for (i, r) in batch.reports.enumerated() {
            if i > 0 { out += "\n" + String(repeating: "─", count: 78) + "\n\n" }
            out += renderMarked(r)
        }
        for f in batch.failures {
            out += paint("error", .red) + ": \(f.error.message)\n"
        }
        if batch.reports.count + batch.failures.count > 1 { out += "\n" + aggregate(batch) }
        return out
    }

    enum Colour: String {
        case red = "31", yellow = "33", green = "32", dim = "2", bold = "1", cyan = "36"
    }

    /// `s` in colour `c`, as marks that ``TerminalText`` turns into ANSI sequences
    /// (or drops) once the whole text is escaped.
    func paint(_ s: String, _ c: Colour) -> String {
        TerminalText.colourMark(Int(c.rawValue) ?? 0) + s + TerminalText.colourMark(0)
    }

    func severity(_ s: Severity) -> String {
        let padded = s.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
        switch s {
        case .error: return paint(padded, .red)
        case .warning: return paint(padded, .yellow)
        case .info: return paint(padded, .dim)
        }
    }

    func col(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        if n >= width { return right ? " " + s : s + " " }
        let pad = String(repeating: " ", count: width - n)
        return right ? pad + s : s + pad
    }

    /// One session's report.
    public func render(_ r: AnalysisReport) -> String {
        TerminalText.render(renderMarked(r), colour: options.color)
    }

    /// One session's report with colour marks and values as read.
    func renderMarked(_ r: AnalysisReport) -> String {
        var out = verdict(r)
        for c in r.connections { out += "\n" + journey(c) }
        if !r.latency.isEmpty { out += "\n" + latencyTable(r.latency) }
        out += "\n" + findings(r)
        return out
    }

    /// `PASS`, `FAIL`, `INCOMPLETE` (input damaged or traffic lost: see the
    /// capture-error and capture-gap findings) or `ERROR`, coloured when asked.
    func badge(_ verdict: String) -> String {
        switch verdict {
        case "pass": paint("PASS", .green)
        case "incomplete": paint("INCOMPLETE", .yellow)
        default: paint(verdict.uppercased(), .red)
        }
    }

    func verdict(_ r: AnalysisReport) -> String {
        let e = r.count(of: .error), w = r.count(of: .warning), i = r.count(of: .info)
        var out = paint("bridgescope analyze", .bold) + "  \(r.source)\n"
        out += badge(options.verdict(r))
        out += "  \(Format.plural(e, "error")), \(Format.plural(w, "warning")), \(i) info  (fail-on \(options.threshold.rawValue))\n"
        if options.verdict(r) == "incomplete" {
            out += "      " + paint("the input is incomplete (damaged, truncated, or traffic was lost: see capture-error and capture-gap below);", .yellow)
                + " judge what was read with --accept-incomplete\n"
        }
        let s = r.summary
        out += "      \(Format.plural(s.records, "record")), \(Format.plural(s.messages, "message")), "
        out += "\(Format.plural(r.connections.count, "connection")), \(Format.plural(s.requests, "request"))"
        out += " (\(s.unanswered) unanswered), \(Format.duration(nanos: s.duration))\n"
        for top in Format.ranked(r.ruleCounts).prefix(3) where top.severity >= .warning {
            let example = r.findings.first { $0.rule == top.rule }?.message ?? ""
            out += "      \(top.severity == .error ? paint("▶", .red) : paint("▷", .yellow)) \(top.rule) \(top.slug) ×\(top.count): \(example)\n"
        }
        return out
    }

    /// The journey table: the record number of each step (findings cite it), columns
    /// aligned on the widest value (a step name wider than ``maxStepColumn`` is cut with
    /// `…`), and a long journey folded by ``JourneyFolding`` with what is left out said.
    func journey(_ c: ConnectionReport) -> String {
        var out = paint("Journey", .bold) + " on connection \(c.id): \(c.outcome.state)"
        if let d = c.outcome.detail { out += " (\(d))" }
        out += "   \(c.webMessages) from web, \(c.hostMessages) from host\n"
        let names = c.steps.map(stepName)
        let outcomes = c.steps.map { s -> String in
            var o = s.outcome ?? (s.kind == .request ? "open" : "")
            if let code = s.errorCode { o += " \(code)" }
            return o
        }
        let recordWidth = max(3, String(c.steps.compactMap { $0.records.first }.max() ?? 0).count) + 2
        let nameWidth = min(Self.maxStepColumn, names.map(\.count).max() ?? 4) + 2
        let outcomeWidth = max(7, outcomes.map(\.count).max() ?? 0) + 2
        out += paint("  " + col("rec", recordWidth) + col("at (s)", 10) + col("step", nameWidth) + col("outcome", outcomeWidth) + "took", .dim) + "\n"
        for row in JourneyFolding().rows(c.steps) {
            switch row {
            case .step(let n):
                let s = c.steps[n]
                var name = names[n]
                if name.count > Self.maxStepColumn { name = String(name.prefix(Self.maxStepColumn - 1)) + "…" }
                let painted: String
                switch s.outcome {
                case "success"?: painted = paint(col(outcomes[n], outcomeWidth), .green)
                case "unanswered"?, "error"?, "no-status"?: painted = paint(col(outcomes[n], outcomeWidth), .red)
                case nil: painted = col(outcomes[n], outcomeWidth)
                default: painted = paint(col(outcomes[n], outcomeWidth), .yellow)
                }
                var line = "  " + col(s.records.first.map(String.init) ?? "", recordWidth)
                    + col(Format.offset(nanos: s.start - c.firstTime), 10) + col(name, nameWidth) + painted
                line += col(s.duration.map { Format.duration(nanos: $0) } ?? "", 10)
                if !s.findings.isEmpty { line += paint("! " + s.findings.map(\.rawValue).joined(separator: " "), .red) }
                while line.hasSuffix(" ") { line.removeLast() }
                out += line + "\n"
            case .run(let count, let like, let first, let last):
                let s = c.steps[like]
                out += "  " + col("", recordWidth) + col("", 10)
                    + paint("⋮ \(count) more like \(s.action)\(outcomes[like].isEmpty ? "" : " " + outcomes[like]) (records \(first)–\(last))", .dim) + "\n"
            case .skipped(let count, let first, let last):
                out += "  " + col("", recordWidth) + col("", 10)
                    + paint("⋮ \(Format.plural(count, "step")) not shown (records \(first)–\(last)): only the beginning, the end and the steps around findings, errors and unanswered requests are; `bridgescope cat` shows them all", .dim) + "\n"
            }
        }
        if c.stepsOmitted > 0 {
            out += "  " + paint("⋮ \(c.stepsOmitted) later steps were not kept by the analyzer (cap \(c.steps.count) per connection); their findings are counted below", .yellow) + "\n"
        }
        return out
    }

    /// Widest step name shown in the journey table.
    static let maxStepColumn = 84

    /// `→ action id [detail]`: the arrow says the direction, `•` a capture event.
    func stepName(_ s: JourneyStep) -> String {
        let arrow = s.kind == .capture ? "•" : (s.direction == .webToHost ? "→" : "←")
        var name = "\(arrow) \(s.action)"
        if let id = s.correlationId, s.kind == .request { name += " \(id)" }
        if let d = s.detail { name += " [\(d)]" }
        return name
    }

    func latencyTable(_ list: [ActionLatency]) -> String {
        var out = paint("Latency", .bold) + " (ms, request to final response)\n"
        out += paint("  " + col("action", 28) + col("count", 7, right: true) + col("p50", 10, right: true)
            + col("p90", 10, right: true) + col("p99", 10, right: true) + col("max", 10, right: true) + "   slowest", .dim) + "\n"
        for l in list {
            let slow = l.slowest.prefix(3).map { sample in
                let from = sample.source.map { " in " + ($0.split(separator: "/").last.map(String.init) ?? $0) } ?? ""
                return "\(sample.correlationId) (\(Format.ms(micros: sample.micros))\(from))"
            }.joined(separator: ", ")
            out += "  " + col(l.action, 28) + col("\(l.count)", 7, right: true)
            for v in [l.p50, l.p90, l.p99, l.max] { out += col(Format.ms(micros: v), 10, right: true) }
            out += "   \(slow)\n"
        }
        return out
    }

    func findings(_ r: AnalysisReport) -> String {
        let total = r.ruleCounts.reduce(0) { $0 + $1.count }
        guard total > 0 else { return paint("Findings", .bold) + ": none\n" }
        var out = paint("Findings", .bold) + " (\(total))\n"
        for c in Format.ranked(r.ruleCounts) {
            out += "  \(severity(c.severity)) \(paint("\(c.rule) \(c.slug)", .bold)) ×\(c.count)\n"
            if let rule = RuleCatalogue.standard[c.rule] {
                out += wrap("What to check: " + rule.explanation, indent: 10)
            }
            let examples = r.findings.filter { $0.rule == c.rule }
            for f in examples.prefix(options.examplesPerRule) {
                var at = f.records.isEmpty ? "end" : "record " + f.records.map(String.init).joined(separator: ",")
                if let o = f.offset { at += " byte \(o)" }
                if let conn = f.connection, conn != "-" { at += " conn \(conn)" }
                out += "          " + paint(at, .cyan) + ": \(f.message)\n"
            }
            if c.count > min(examples.count, options.examplesPerRule) {
                out += "          … and \(c.count - min(examples.count, options.examplesPerRule)) more\n"
            }
        }
        return out
    }

    func wrap(_ text: String, indent: Int, width: Int = 100) -> String {
        var out = "", line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + word.count + 1 > width - indent {
                out += String(repeating: " ", count: indent) + paint(line, .dim) + "\n"
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { out += String(repeating: " ", count: indent) + paint(line, .dim) + "\n" }
        return out
    }

    func aggregate(_ b: AnalysisBatch) -> String {
        let a = b.aggregate
        var out = paint("Aggregate", .bold) + ": \(Format.plural(a.sessions, "session"))"
        if a.failedInputs > 0 { out += ", " + paint("\(a.failedInputs) unreadable", .red) }
        out += ", \(Format.plural(a.messages, "message")), \(Format.plural(a.requests, "request")) (\(a.unanswered) unanswered)  "
        out += badge(options.verdict(b)) + "\n"
        for r in b.reports where options.verdict(r) != "pass" { out += "  " + badge(options.verdict(r)) + " \(r.source)\n" }
        for c in Format.ranked(a.ruleCounts) {
            out += "  \(severity(c.severity)) \(c.rule) \(col(c.slug, 34)) ×\(c.count) in \(Format.plural(a.sessionsPerRule[c.rule] ?? 0, "session"))\n"
        }
        if !a.latency.isEmpty { out += "\n" + latencyTable(a.latency) }
        return out
    }
}
