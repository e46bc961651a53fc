import BridgeReport
import BridgeProtocol

/// `--format html`: one self-contained page (inline CSS and SVG, no script, no network)
/// with, per session, a timeline per connection as SVG swim lanes (web and host; each
/// request joined to its final response, unanswered requests drawn open-ended, findings
/// marked), the journey steps, a latency histogram per action, and the findings table.
public struct HTMLReportRenderer: Sendable {
    /// The options (threshold for the verdicts).
    public var options: RenderOptions

    /// Creates a renderer.
    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    static let style = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:16px 24px;color:#1d2330;background:#fff}
    h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #d8dce4;padding-bottom:4px;word-break:break-all}
    h3{font-size:15px;margin:18px 0 6px}
    .verdict{display:inline-block;font-weight:700;padding:2px 10px;border-radius:4px;color:#fff}
    .verdict.pass{background:#1f8a4c}.verdict.fail{background:#c62828}.verdict.error{background:#6d4c41}.verdict.incomplete{background:#ef8f00}
    table{border-collapse:collapse;width:100%;margin:4px 0 12px;font-size:13px}
    th,td{border-bottom:1px solid #e5e8ee;padding:3px 6px;text-align:left;vertical-align:top}
    th{background:#f4f6f9;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
    tr.sev-error td.sev{color:#c62828;font-weight:600}tr.sev-warning td.sev{color:#b26a00;font-weight:600}tr.sev-info td.sev{color:#667}
    .outcome-success{color:#1f8a4c}.outcome-error,.outcome-unanswered,.outcome-no-status{color:#c62828}
    .outcome-cancelled,.outcome-unsupported{color:#b26a00}
    code{font:12px ui-monospace,Menlo,Consolas,monospace;background:#f4f6f9;padding:0 3px;border-radius:3px}
    .muted{color:#667}.runbook{color:#445;font-size:12px}
    svg{display:block;max-width:100%;height:auto;background:#fbfcfd;border:1px solid #e5e8ee;border-radius:4px}
    svg text{font:11px system-ui,sans-serif;fill:#445}
    .lane-band{fill:#eef2f7}.lane-label{font-weight:600}
    .request polyline{fill:none;stroke-width:2}.request.outcome-success polyline{stroke:#2e7d32}
    .request.outcome-error polyline,.request.outcome-no-status polyline{stroke:#c62828}
    .request.outcome-cancelled polyline,.request.outcome-unsupported polyline{stroke:#ef8f00}
    .request.open-ended polyline{stroke:#c62828;stroke-dasharray:6 4}
    .request.acknowledged circle.ack{fill:#7b61ff}
    .event circle{fill:#5c6bc0}.capture line{stroke:#ef8f00;stroke-width:2}
    .finding-marker{fill:#c62828}.finding-marker.sev-warning{fill:#ef8f00}.finding-marker.sev-info{fill:#90a4ae}
    .axis line{stroke:#cfd5de}.bar{fill:#5c6bc0}
    figure{margin:8px 0 16px}figcaption{font-size:12px;color:#667;margin-top:2px}
    .histograms{display:flex;flex-wrap:wrap;gap:12px}.histograms figure{margin:0}
    """

    /// The HTML document.
    public func render(_ batch: AnalysisBatch) -> String {
        let verdict = options.verdict(batch)
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
        out += "<title>bridgescope report</title>\n<style>\n\(Self.style)\n</style>\n</head>\n<body>\n"
        out += "<header>\n<h1>bridgescope analyze</h1>\n<p><span class=\"verdict \(verdict)\" id=\"verdict\">\(verdict.uppercased())</span> "
        out += "\(Format.plural(batch.reports.count, "session")), fail-on \(options.threshold.rawValue)</p>\n</header>\n"
        for f in batch.failures {
            out += "<p class=\"input-failure\"><strong>error:</strong> \(h(f.error.message))</p>\n"
        }
        for (i, r) in batch.reports.enumerated() { out += session(r, index: i + 1) }
        if batch.reports.count > 1 { out += aggregate(batch.aggregate) }
        out += "</body>\n</html>\n"
        return out
    }

    func h(_ s: String) -> String { XMLText.escape(s) }

    func session(_ r: AnalysisReport, index: Int) -> String {
        let verdict = options.verdict(r)
        let s = r.summary
        var out = "<section class=\"session\" id=\"session-\(index)\">\n<h2>\(h(r.source))</h2>\n"
        out += "<p><span class=\"verdict \(verdict)\">\(verdict.uppercased())</span> "
        out += "\(Format.plural(r.count(of: .error), "error")), \(Format.plural(r.count(of: .warning), "warning")), \(r.count(of: .info)) info · "
        out += "\(Format.plural(s.records, "record")), \(Format.plural(s.requests, "request")) (\(s.unanswered) unanswered), "
        out += "\(Format.plural(r.connections.count, "connection")), \(Format.duration(nanos: s.duration))</p>\n"
        let origin = s.firstTime ?? 0, end = s.lastTime ?? origin
        out += "<h3>Timeline</h3>\n"
        for c in r.connections {
            out += timeline(c, findings: r.findings.filter { $0.connection == c.id }, origin: origin, end: end)
            out += journeyTable(c)
        }
        if !r.latency.isEmpty {
            out += "<h3>Latency</h3>\n" + latencyTable(r.latency)
            out += "<div class=\"histograms\">\n" + r.latency.map(histogram).joined() + "</div>\n"
        }
        out += "<h3>Findings</h3>\n" + findingsTable(r)
        out += "</section>\n"
        return out
    }

    func journeyTable(_ c: ConnectionReport) -> String {
        var out = "<details class=\"journey\"><summary>Journey steps on \(h(c.id)): \(h(c.outcome.state))"
        if let d = c.outcome.detail { out += " (\(h(d)))" }
        out += "</summary>\n<table class=\"steps\">\n<thead><tr><th>record</th><th>at (s)</th><th>step</th><th>id</th><th>outcome</th><th>took</th><th>records</th><th>findings</th></tr></thead>\n<tbody>\n"
        for row in JourneyFolding().rows(c.steps) {
            switch row {
            case .step(let n):
                let s = c.steps[n]
                let outcome = (s.outcome ?? (s.kind == .request ? "open" : "")) + (s.errorCode.map { " \($0)" } ?? "")
                let arrow = s.kind == .capture ? "•" : (s.direction == .webToHost ? "→" : "←")
                out += "<tr><td class=\"num\">\(s.records.first.map(String.init) ?? "")</td><td class=\"num\">\(Format.offset(nanos: s.start - c.firstTime))</td>"
                out += "<td>\(arrow) <code>\(h(s.action))</code>\(s.detail.map { " " + h($0) } ?? "")</td><td>\(s.correlationId.map { "<code>\(h($0))</code>" } ?? "")</td>"
                out += "<td class=\"outcome-\(h(s.outcome ?? "none"))\">\(h(outcome))</td><td class=\"num\">\(s.duration.map { Format.duration(nanos: $0) } ?? "")</td>"
                out += "<td>\(s.records.map(String.init).joined(separator: ", "))</td><td>\(s.findings.map(\.rawValue).joined(separator: " "))</td></tr>\n"
            case .run(let count, let like, let first, let last):
                let s = c.steps[like]
                out += "<tr class=\"folded\"><td></td><td></td><td colspan=\"6\">⋮ \(count) more like <code>\(h(s.action))</code> \(h(s.outcome ?? "")) (records \(first)–\(last))</td></tr>\n"
            case .skipped(let count, let first, let last):
                out += "<tr class=\"skipped\"><td></td><td></td><td colspan=\"6\">⋮ \(Format.plural(count, "step")) not shown (records \(first)–\(last)): only the beginning, the end and the steps around findings, errors and unanswered requests are; <code>bridgescope cat</code> shows them all</td></tr>\n"
            }
        }
        out += "</tbody>\n</table>\n"
        if c.stepsOmitted > 0 {
            out += "<p class=\"muted omitted\">\(c.stepsOmitted) later steps were not kept by the analyzer (cap \(c.steps.count) per connection); their findings are in the findings table.</p>\n"
        }
        return out + "</details>\n"
    }

    func latencyTable(_ list: [ActionLatency]) -> String {
        var out = "<table class=\"latency\">\n<thead><tr><th>action</th><th>count</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>slowest</th></tr></thead>\n<tbody>\n"
        for l in list {
            out += "<tr><td><code>\(h(l.action))</code></td><td class=\"num\">\(l.count)</td>"
            for v in [l.p50, l.p90, l.p99, l.max] { out += "<td class=\"num\">\(Format.ms(micros: v))</td>" }
            out += "<td>" + l.slowest.map { "<code>\(h($0.correlationId))</code> \(Format.ms(micros: $0.micros)) ms\($0.source.map { " (" + h($0) + ")" } ?? "")" }.joined(separator: ", ") + "</td></tr>\n"
        }
        return out + "</tbody>\n</table>\n"
    }

    func findingsTable(_ r: AnalysisReport) -> String {
        guard !r.findings.isEmpty else { return "<p class=\"muted\" id=\"no-findings\">No findings.</p>\n" }
        var out = "<table class=\"findings\">\n<thead><tr><th>severity</th><th>rule</th><th>connection</th><th>records</th><th>correlationId</th><th>message</th></tr></thead>\n<tbody>\n"
        for f in r.findings {
            let runbook = RuleCatalogue.standard[f.rule]?.explanation ?? ""
            out += "<tr class=\"sev-\(f.severity)\" data-rule=\"\(f.rule)\"><td class=\"sev\">\(f.severity)</td>"
            out += "<td><span title=\"\(h(runbook))\">\(f.rule) <code>\(h(f.slug))</code></span></td><td>\(h(f.connection ?? ""))</td>"
            out += "<td>\(f.records.isEmpty ? "end" : f.records.map(String.init).joined(separator: ", "))\(f.offset.map { " @\($0)" } ?? "")</td>"
            out += "<td>\(f.correlationId.map { "<code>\(h($0))</code>" } ?? "")</td><td>\(h(f.message))</td></tr>\n"
        }
        out += "</tbody>\n</table>\n"
        if r.findingsOmitted > 0 { out += "<p class=\"muted\">\(r.findingsOmitted) more findings counted but not kept.</p>\n" }
        out += "<h3>What to check</h3>\n<ul class=\"runbook\">\n"
        for c in Format.ranked(r.ruleCounts) {
            out += "<li><strong>\(c.rule) \(h(c.slug))</strong> ×\(c.count): \(h(RuleCatalogue.standard[c.rule]?.explanation ?? ""))</li>\n"
        }
        return out + "</ul>\n"
    }

    func aggregate(_ a: AggregateReport) -> String {
        var out = "<section class=\"aggregate\" id=\"aggregate\">\n<h2>Aggregate</h2>\n"
        out += "<p>\(Format.plural(a.sessions, "session")), \(Format.plural(a.messages, "message")), \(Format.plural(a.requests, "request")) (\(a.unanswered) unanswered)</p>\n"
        out += "<table class=\"rule-totals\">\n<thead><tr><th>severity</th><th>rule</th><th>findings</th><th>sessions</th></tr></thead>\n<tbody>\n"
        for c in Format.ranked(a.ruleCounts) {
            out += "<tr class=\"sev-\(c.severity)\"><td class=\"sev\">\(c.severity)</td><td>\(c.rule) <code>\(h(c.slug))</code></td>"
            out += "<td class=\"num\">\(c.count)</td><td class=\"num\">\(a.sessionsPerRule[c.rule] ?? 0)</td></tr>\n"
        }
        out += "</tbody>\n</table>\n"
        if !a.latency.isEmpty { out += latencyTable(a.latency) }
        return out + "</section>\n"
    }
}
