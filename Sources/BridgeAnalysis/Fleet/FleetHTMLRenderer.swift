import BridgeReport
import Foundation

/// `analyze --fleet --format html`: one self-contained page (no scripts, no external
/// files) with the text report's parts as tables and two plots in SVG: p50/p90/p99 per
/// action over the fleet, and p99 per action for each host version.
public struct FleetHTMLRenderer: Sendable {
    /// Creates a renderer.
    public init() {}

    /// The page.
    public func render(_ r: FleetReport) -> String {
        let text = FleetTextRenderer()
        var o = """
        <!doctype html><html><head><meta charset="utf-8"><title>bridgescope fleet report</title><style>
        body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}
        td,th{border-bottom:1px solid #ddd;padding:3px 10px;text-align:right}td:first-child,th:first-child{text-align:left}
        h2{margin-top:1.5em}.muted{color:#777}svg text{font:12px system-ui,sans-serif}
        </style></head><body>
        <h1>Fleet: \(text.n(r.sessions)) sessions</h1>
        <p>\(text.n(r.journeys)) journeys, \(text.n(r.requests)) requests, \(text.n(r.records)) records\(r.firstSessionTime.map { ", from \(FleetTextRenderer.date($0))" } ?? "")\(r.lastSessionTime.map { " to \(FleetTextRenderer.date($0))" } ?? "").
        Unreadable: \(r.failures.count); damaged: \(r.damaged.count); outside the time window: \(r.outsideWindow).</p>
        <p>Journeys: \(["complete", "error", "incomplete", "none"].map { "\($0) <b>\(text.n(r.outcomes[$0] ?? 0))</b>" }.joined(separator: " · ")).</p>
        <h2>Latency per action</h2>
        """
        o += table(r.latency)
        o += plot(r.latency.map { ($0.action, [$0.p50, $0.p90, $0.p99]) }, legend: ["p50", "p90", "p99"])
        o += "<h2>Findings per rule</h2><table><tr><th>rule</th><th>severity</th><th>findings</th><th>sessions</th><th>first sessions</th></tr>"
        for rule in r.rules {
            o += "<tr><td>\(h(rule.rule.rawValue)) \(h(rule.slug))</td><td>\(rule.severity)</td><td>\(rule.count)</td><td>\(rule.sessions)</td>"
            o += "<td class=muted>\(rule.examples.map(h).joined(separator: "<br>"))</td></tr>"
        }
        o += "</table><h2>Worst sessions</h2><table><tr><th>file</th><th>errors</th><th>warnings</th><th>unanswered</th><th>failed journeys</th><th>rules</th></tr>"
        for s in r.worst {
            o += "<tr><td>\(h(s.path))</td><td>\(s.errors)</td><td>\(s.warnings)</td><td>\(s.unanswered)</td><td>\(s.failedJourneys)</td><td>\(h(s.topRules.joined(separator: ", ")))</td></tr>"
        }
        o += "</table>"
        for d in FleetCut.Dimension.all {
            let cuts = r.cuts.filter { $0.dimension == d }
            guard !cuts.isEmpty else { continue }
            o += "<h2>By \(h(d.rawValue))</h2>"
            if d == .hostVersion {
                let actions = Array(Set(cuts.flatMap { $0.latency.map(\.action) })).sorted()
                let rows = actions.map { a in (a, cuts.map { c in c.latency.first { $0.action == a }?.p99 ?? 0 }) }
                o += "<p class=muted>p99 per action and host version</p>" + plot(rows, legend: cuts.map(\.value))
            }
            for c in cuts {
                o += "<h3>\(h(c.value)) <span class=muted>(\(c.sessions) sessions)</span></h3>" + table(c.latency)
            }
        }
        if !r.failures.isEmpty {
            o += "<h2>Unreadable inputs</h2><ul>" + r.failures.map { "<li>\(h($0.error.message))</li>" }.joined() + "</ul>"
        }
        if !r.damaged.isEmpty {
            o += "<h2>Damaged sessions</h2><ul>" + r.damaged.map { "<li>\(h($0))</li>" }.joined() + "</ul>"
        }
        return o + "</body></html>\n"
    }

    func table(_ list: [ActionLatency]) -> String {
        var o = "<table><tr><th>action</th><th>count</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th></tr>"
        for l in list {
            o += "<tr><td>\(h(l.action))</td><td>\(l.count)</td>" + [l.p50, l.p90, l.p99, l.max].map { "<td>\(Format.ms(micros: $0))</td>" }.joined() + "</tr>"
        }
        return o + "</table>"
    }

    /// Horizontal grouped bars on a log scale (microseconds), one group per row.
    func plot(_ rows: [(String, [Int64])], legend: [String]) -> String {
        guard !rows.isEmpty, !legend.isEmpty else { return "" }
        let colours = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"]
        let bar = 10, gap = 8, label = 230, width = 520
        let maxValue = Double(rows.flatMap(\.1).max() ?? 1)
        let scale = log10(Swift.max(10, maxValue))
        func x(_ v: Int64) -> Int { v <= 1 ? 0 : Int(Double(width) * log10(Double(v)) / scale) }
        let groupHeight = bar * legend.count + gap
        let height = rows.count * groupHeight + 40
        var o = "<svg width=\"\(label + width + 120)\" height=\"\(height)\" role=img>"
        for (i, row) in rows.enumerated() {
            let top = i * groupHeight
            o += "<text x=0 y=\(top + bar * legend.count / 2 + 4)>\(h(row.0))</text>"
            for (j, v) in row.1.enumerated() {
                o += "<rect x=\(label) y=\(top + j * bar) width=\(x(v)) height=\(bar - 1) fill=\"\(colours[j % colours.count])\"><title>\(h(legend[j])): \(Format.ms(micros: v)) ms</title></rect>"
            }
        }
        let axis = rows.count * groupHeight + 12
        var decade: Int64 = 1000
        while Double(decade) <= maxValue * 1.0001 {
            o += "<text x=\(label + x(decade)) y=\(axis)>\(Format.ms(micros: decade))</text>"
            decade *= 10
        }
        for (j, name) in legend.enumerated() {
            o += "<rect x=\(label + j * 90) y=\(axis + 10) width=10 height=10 fill=\"\(colours[j % colours.count])\"></rect><text x=\(label + j * 90 + 14) y=\(axis + 19)>\(h(name))</text>"
        }
        return o + "<text x=\(label + width + 4) y=\(axis)>ms (log)</text></svg>"
    }

    func h(_ s: String) -> String { XMLText.escape(s) }
}
