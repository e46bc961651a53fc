import BridgeReport
import Foundation

/// `analyze --fleet` as text: the totals, latency per action, findings per rule with
/// their sessions, the worst sessions, the cuts, then every unreadable and damaged
/// input. Passed through ``TerminalText`` (values come from sessions).
public struct FleetTextRenderer: Sendable {
    /// Creates a renderer.
    public init() {}

    /// The report as text (ends with a newline).
    public func render(_ r: FleetReport) -> String {
        var o = "FLEET \(n(r.sessions)) session\(r.sessions == 1 ? "" : "s")"
        if let a = r.firstSessionTime, let b = r.lastSessionTime { o += " from \(Self.date(a)) to \(Self.date(b))" }
        o += ", \(n(r.journeys)) journeys, \(n(r.requests)) requests, \(n(r.records)) records"
        if r.seconds > 0 { o += "; analysed in \(String(format: "%.1f", r.seconds)) s (\(n(Int(Double(r.sessions + r.failures.count) / r.seconds)))/s)" }
        o += "\n"
        o += "unreadable: \(r.failures.count), damaged (read in part): \(r.damaged.count)"
        if r.outsideWindow > 0 { o += ", outside --since/--until: \(n(r.outsideWindow))" }
        o += "\n"
        o += "journeys: " + ["complete", "error", "incomplete", "none"].map { "\($0) \(n(r.outcomes[$0] ?? 0))" }.joined(separator: ", ")
        o += ", unanswered requests \(n(r.unanswered))\n"

        o += "\nLatency over all sessions (ms, merged HdrHistograms)\n" + latency(r.latency, indent: "  ")
        o += "\nFindings per rule\n"
        if r.rules.isEmpty { o += "  none\n" }
        for rule in r.rules {
            o += "  \(rule.rule) \(rule.slug) [\(rule.severity)]: \(n(rule.count)) in \(n(rule.sessions)) session\(rule.sessions == 1 ? "" : "s")"
            o += ", e.g. " + rule.examples.prefix(3).joined(separator: ", ") + (rule.sessions > 3 ? ", ..." : "") + "\n"
        }
        o += "\nWorst sessions (open them with `bridgescope analyze FILE`)\n"
        if r.worst.isEmpty { o += "  none\n" }
        for s in r.worst {
            o += "  \(s.path): \(s.errors) error\(s.errors == 1 ? "" : "s"), \(s.warnings) warning\(s.warnings == 1 ? "" : "s"), "
            o += "\(s.unanswered) unanswered, \(s.failedJourneys) failed journey\(s.failedJourneys == 1 ? "" : "s")"
            if !s.topRules.isEmpty { o += " (\(s.topRules.joined(separator: ", ")))" }
            o += "\n"
        }
        for d in FleetCut.Dimension.all {
            let cuts = r.cuts.filter { $0.dimension == d }
            guard !cuts.isEmpty else { continue }
            o += "\nBy \(d) (ms)\n"
            for c in cuts {
                o += "  \(c.value): \(n(c.sessions)) session\(c.sessions == 1 ? "" : "s")\n" + latency(c.latency, indent: "    ")
            }
        }
        if !r.failures.isEmpty {
            o += "\nUnreadable inputs\n"
            for f in r.failures { o += "  \(f.error.message)\n" }
        }
        if !r.damaged.isEmpty {
            o += "\nDamaged sessions (analysed as far as readable)\n"
            for d in r.damaged { o += "  \(d)\n" }
        }
        return TerminalText.render(o, colour: false)
    }

    func latency(_ list: [ActionLatency], indent: String) -> String {
        guard !list.isEmpty else { return indent + "no answered requests\n" }
        let width = Swift.max(6, list.map(\.action.count).max() ?? 0)
        func pad(_ s: String, _ w: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: Swift.max(0, w - s.count))
            return left ? s + fill : fill + s
        }
        var o = indent + pad("action", width, left: true) + pad("count", 9) + pad("p50", 10) + pad("p90", 10) + pad("p99", 10) + pad("max", 10) + "\n"
        for l in list {
            o += indent + pad(l.action, width, left: true) + pad(n(l.count), 9)
            for v in [l.p50, l.p90, l.p99, l.max] { o += pad(Format.ms(micros: v), 10) }
            o += "\n"
        }
        return o
    }

    func n(_ v: Int) -> String {
        let s = String(v)
        var out = ""
        for (i, c) in s.reversed().enumerated() {
            if i > 0 && i % 3 == 0 && c != "-" { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }

    static func date(_ ns: Int64) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: Double(ns) / 1e9))
    }
}
