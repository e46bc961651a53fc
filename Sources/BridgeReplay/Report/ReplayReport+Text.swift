extension ReplayReport {
    /// The report for people: a header, divergences grouped by connection, what was
    /// skipped, and a summary line ending in `0 divergences` or `N divergences`.
    public func renderText() -> String {
        var out = "replay \(archive) -> \(target) (pace \(pacing)\(runs > 1 ? ", \(runs) runs" : ""))\n"
        let rules = defaultRules.isEmpty ? "none" : defaultRules.joined(separator: ", ")
        out += "normalization: \(rules)"
        if !ignored.isEmpty { out += "; ignored: " + ignored.joined(separator: ", ") }
        out += "\n"
        if !volatile.isEmpty {
            out += "learned volatile (\(volatile.count)): " + volatile.joined(separator: ", ") + "\n"
        }
        for f in archiveFindings { out += "archive: \(f)\n" }
        for c in connections {
            out += "\nconn \(c.id): sent \(c.sent)/\(c.planned), received \(c.received)"
            if c.timedOut > 0 { out += ", \(c.timedOut) response(s) timed out" }
            if c.uncompared > 0 { out += ", \(c.uncompared) request(s) not compared (recording cut)" }
            out += c.divergences.isEmpty && c.error == nil ? ": no divergences\n" : "\n"
            if let e = c.error { out += "  error: \(e)\n" }
            for d in c.divergences { out += "  \(d)\n" }
        }
        if !skipped.isEmpty {
            out += "\nskipped:\n"
            for s in skipped { out += "  \(s)\n" }
        }
        if let lateness {
            out += "\nsend lateness: p50 \(ExchangeDiffer.ms(lateness.p50)), p99 \(ExchangeDiffer.ms(lateness.p99))\n"
        }
        let kinds = countsByKind.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
        let errors = connections.filter { $0.error != nil }.count
        out += "\n\(connections.count) connection(s), \(sent) sent, \(received) received, "
        out += "\(divergenceCount) divergence\(divergenceCount == 1 ? "" : "s")"
        if !kinds.isEmpty { out += " (\(kinds))" }
        if errors > 0 { out += ", \(errors) connection error(s)" }
        if skippedMessages > 0 { out += ", \(skippedMessages) message(s) skipped" }
        return out + "\n"
    }
}
