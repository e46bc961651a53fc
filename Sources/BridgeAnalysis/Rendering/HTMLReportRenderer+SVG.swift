import BridgeProtocol

extension HTMLReportRenderer {
    static let width = 1000.0, left = 70.0, right = 20.0
    static let webY = 36.0, hostTop = 62.0, rowHeight = 12.0, maxRows = 8

    /// Short labels of ``LatencyRecorder/bucketBounds`` and the overflow bucket.
    static let bucketLabels = ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1s", "2s", "5s", "10s", "30s",
                               "1m", "2m", "5m", ">5m"]

    func fmt(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// The swim-lane timeline of one connection.
    func timeline(_ c: ConnectionReport, findings: [ReportFinding], origin: Int64, end: Int64) -> String {
        let t0 = c.firstTime
        let t1 = Swift.max(c.unanswered > 0 ? end : c.lastTime, t0 + 1_000_000)
        let plot = Self.width - Self.left - Self.right
        var times: [Int64] = []
        for s in c.steps {
            times.append(s.start)
            if let e = s.end { times.append(e) }
            if let a = s.acknowledged { times.append(a) }
        }
        times += findings.compactMap(\.time)
        let scale = TimeAxis(t0: t0, t1: t1, times: times, left: Self.left, width: plot)
        func x(_ t: Int64) -> Double { scale.x(t) }

        // Rows on the host lane so overlapping requests do not hide each other.
        var rowEnds: [Double] = []
        var rows: [Int: Int] = [:]
        for (i, s) in c.steps.enumerated() where s.kind == .request {
            let xs = x(s.start), xe = x(s.end ?? t1)
            var row = rowEnds.firstIndex { $0 + 3 < xs }
            if row == nil {
                if rowEnds.count < Self.maxRows {
                    rowEnds.append(0)
                    row = rowEnds.count - 1
                } else {
                    row = rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] }
                }
            }
            rowEnds[row!] = xe
            rows[i] = row!
        }
        let rowCount = Swift.max(1, rowEnds.count)
        let hostBottom = Self.hostTop + 14 + Self.rowHeight * Double(rowCount)
        let height = hostBottom + 30

        var svg = "<figure class=\"timeline\">\n<svg class=\"lanes\" data-connection=\"\(h(c.id))\" viewBox=\"0 0 \(fmt(Self.width)) \(fmt(height))\" width=\"\(fmt(Self.width))\" height=\"\(fmt(height))\" role=\"img\" aria-label=\"timeline of connection \(h(c.id))\">\n"
        svg += "<title>Connection \(h(c.id)): web and host lanes</title>\n"
        svg += "<g class=\"lane lane-web\"><rect class=\"lane-band\" x=\"\(fmt(Self.left))\" y=\"24\" width=\"\(fmt(plot))\" height=\"24\"/>"
        svg += "<text class=\"lane-label\" x=\"8\" y=\"40\">web</text></g>\n"
        svg += "<g class=\"lane lane-host\"><rect class=\"lane-band\" x=\"\(fmt(Self.left))\" y=\"\(fmt(Self.hostTop))\" width=\"\(fmt(plot))\" height=\"\(fmt(hostBottom - Self.hostTop))\"/>"
        svg += "<text class=\"lane-label\" x=\"8\" y=\"\(fmt(Self.hostTop + 16))\">host</text></g>\n"
        svg += axis(scale, t0: t0, y: hostBottom)

        for (i, s) in c.steps.enumerated() {
            let xs = x(s.start)
            switch s.kind {
            case .request:
                let rowY = Self.hostTop + 14 + Self.rowHeight * Double(rows[i] ?? 0)
                let open = s.end == nil
                let xe = x(s.end ?? t1)
                let outcome = s.outcome ?? "unanswered"
                let took = s.duration.map { Format.duration(nanos: $0) } ?? "no final response"
                svg += "<g class=\"request outcome-\(h(outcome))\(open ? " open-ended" : "")\(s.acknowledged != nil ? " acknowledged" : "")\" data-id=\"\(h(s.correlationId ?? ""))\">"
                svg += "<title>\(h(s.action)) \(h(s.correlationId ?? "")): \(h(outcome))\(s.errorCode.map { " " + h($0) } ?? ""), \(took)</title>"
                var points = "\(fmt(xs)),\(fmt(Self.webY)) \(fmt(xs)),\(fmt(rowY)) \(fmt(xe)),\(fmt(rowY))"
                if !open { points += " \(fmt(xe)),\(fmt(Self.webY))" }
                svg += "<polyline points=\"\(points)\"/>"
                if open {
                    svg += "<polygon class=\"open-arrow\" points=\"\(fmt(xe)),\(fmt(rowY - 4)) \(fmt(xe + 7)),\(fmt(rowY)) \(fmt(xe)),\(fmt(rowY + 4))\" fill=\"#c62828\"/>"
                }
                if let a = s.acknowledged {
                    svg += "<circle class=\"ack\" cx=\"\(fmt(x(a)))\" cy=\"\(fmt(rowY))\" r=\"3\"/>"
                }
                svg += "</g>\n"
            case .event:
                let y = s.direction == .webToHost ? Self.webY : Self.hostTop + 7
                svg += "<g class=\"event\"><title>\(h(s.action))\(s.detail.map { " " + h($0) } ?? "") (\(s.direction == .webToHost ? "web" : "host"))</title>"
                svg += "<circle cx=\"\(fmt(xs))\" cy=\"\(fmt(y))\" r=\"4\"/></g>\n"
            case .capture:
                svg += "<g class=\"capture\"><title>\(h(s.action))\(s.detail.map { " " + h($0) } ?? "")</title><line x1=\"\(fmt(xs))\" y1=\"20\" x2=\"\(fmt(xs))\" y2=\"\(fmt(hostBottom))\"/></g>\n"
            }
        }
        for f in findings {
            guard let t = f.time else { continue }
            let fx = x(t)
            svg += "<path class=\"finding-marker sev-\(f.severity)\" data-rule=\"\(f.rule)\" d=\"M\(fmt(fx - 5)),6 L\(fmt(fx + 5)),6 L\(fmt(fx)),16 Z\">"
            svg += "<title>\(f.rule) \(h(f.slug)): \(h(f.message))</title></path>\n"
        }
        var caption = "Connection \(h(c.id)): requests run from the web lane down to the host lane and back at their final response; dashed, open-ended lines never got one; triangles mark findings."
        let breaks = scale.segments.filter(\.isBreak)
        if !breaks.isEmpty {
            let idle = breaks.map { Format.duration(nanos: $0.end - $0.start) }.joined(separator: ", ")
            caption += " The axis is cut where nothing happened for long (≈ marks: \(idle)), so the busy parts keep their width."
        }
        if c.stepsOmitted > 0, let last = c.steps.last {
            caption += " Only the first \(c.steps.count) steps were kept (to +\(Format.offset(nanos: last.start - t0)) s): \(c.stepsOmitted) later steps are not drawn; their findings are in the table below."
        }
        svg += "</svg>\n<figcaption>\(caption)</figcaption>\n</figure>\n"
        return svg
    }

    /// Ticks on the linear stretches, and a `≈` break (with the idle time as its title)
    /// where the axis is cut.
    func axis(_ scale: TimeAxis, t0: Int64, y: Double) -> String {
        let (step, ticks) = scale.ticks(t0: t0)
        var out = "<g class=\"axis\">"
        for t in ticks {
            let px = scale.x(t)
            let ms = Double(t - t0) / 1e6
            out += "<line x1=\"\(fmt(px))\" y1=\"20\" x2=\"\(fmt(px))\" y2=\"\(fmt(y + 4))\"/>"
            let label = step >= 1000 ? "\(fmt(ms / 1000))s" : "\(fmt(ms))ms"
            out += "<text x=\"\(fmt(px))\" y=\"\(fmt(y + 16))\" text-anchor=\"middle\">+\(label)</text>"
        }
        for b in scale.segments where b.isBreak {
            let mid = (b.x0 + b.x1) / 2
            out += "<g class=\"axis-break\"><title>\(Format.duration(nanos: b.end - b.start)) with nothing new (axis cut)</title>"
            out += "<rect x=\"\(fmt(b.x0))\" y=\"20\" width=\"\(fmt(b.x1 - b.x0))\" height=\"\(fmt(y - 16))\" fill=\"#f4f4f4\"/>"
            out += "<text x=\"\(fmt(mid))\" y=\"\(fmt(y + 16))\" text-anchor=\"middle\">≈</text></g>"
        }
        return out + "</g>\n"
    }

    /// A bar chart of one action's latency buckets.
    func histogram(_ l: ActionLatency) -> String {
        let barW = 22.0, gap = 4.0, top = 34.0, chartH = 90.0, leftPad = 10.0
        let w = leftPad * 2 + Double(l.buckets.count) * (barW + gap)
        let hgt = top + chartH + 30
        let peak = Swift.max(1, l.buckets.map(\.count).max() ?? 1)
        var svg = "<figure>\n<svg class=\"histogram\" data-action=\"\(h(l.action))\" viewBox=\"0 0 \(fmt(w)) \(fmt(hgt))\" width=\"\(fmt(w))\" height=\"\(fmt(hgt))\" role=\"img\" aria-label=\"latency histogram of \(h(l.action))\">\n"
        svg += "<text x=\"\(fmt(leftPad))\" y=\"14\">\(h(l.action)): \(l.count) answered, p50 \(Format.ms(micros: l.p50)) ms, p99 \(Format.ms(micros: l.p99)) ms</text>\n"
        for (i, b) in l.buckets.enumerated() {
            let bx = leftPad + Double(i) * (barW + gap)
            let bh = chartH * Double(b.count) / Double(peak)
            let label = i < Self.bucketLabels.count ? Self.bucketLabels[i] : "?"
            svg += "<g><title>\(b.upperMillis.map { "≤ \($0) ms" } ?? "> \(LatencyRecorder.bucketBounds.last!) ms"): \(b.count)</title>"
            svg += "<rect class=\"bar\" x=\"\(fmt(bx))\" y=\"\(fmt(top + chartH - bh))\" width=\"\(fmt(barW))\" height=\"\(fmt(bh))\"/>"
            if b.count > 0 { svg += "<text x=\"\(fmt(bx + barW / 2))\" y=\"\(fmt(top + chartH - bh - 2))\" text-anchor=\"middle\">\(b.count)</text>" }
            svg += "<text x=\"\(fmt(bx + barW / 2))\" y=\"\(fmt(top + chartH + 14))\" text-anchor=\"middle\">\(label)</text></g>\n"
        }
        svg += "</svg>\n<figcaption>Latency of \(h(l.action)) in ms (bucket upper bounds).</figcaption>\n</figure>\n"
        return svg
    }
}
