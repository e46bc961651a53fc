import BridgeReport

extension ConformanceReport {
    /// One self-contained page: a row per case, a column per host, each cell the verdict
    /// with the reason and the exchange one click away (`<details>`), no script.
    public static func html(_ runs: [ConformanceRun]) -> String {
        func e(_ s: String) -> String { XMLText.escape(s) }
        var h = """
        <!doctype html><html><head><meta charset="utf-8"><title>bridgescope conform</title><style>
        body{font:14px system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}
        th{background:#f4f4f4;text-align:left}.pass{background:#e6f6e6}.pass-with-choice{background:#eef6d8}.fail{background:#fbe0e0}
        .informational,.undecided{background:#eef0f8}pre{white-space:pre-wrap;word-break:break-all;max-width:60em;font-size:12px}
        summary{cursor:pointer;font-weight:600}</style></head><body><h1>bridgescope conform</h1>
        <p>Cases from docs/CONFORMANCE.md, judged by the protocol model: a failure means no legal host could have answered so.</p>
        <table><tr><th>case</th><th>PROTOCOL.md</th><th>what a host must do</th>
        """
        for run in runs {
            let c = run.counts
            h += "<th>\(e(run.target))\(run.strict ? " (strict)" : "")<br><small>\(c["pass"] ?? 0) pass, \(c["pass-with-choice"] ?? 0) with choices, \(c["fail"] ?? 0) fail</small></th>"
        }
        h += "</tr>\n"
        let cases = runs.first?.results.map(\.testCase) ?? []
        for (i, tc) in cases.enumerated() {
            h += "<tr><td>\(e(tc.id)) \(e(tc.title))</td><td>\(e(tc.section))</td><td>\(e(tc.expectation))</td>"
            for run in runs {
                guard i < run.results.count else { h += "<td></td>"; continue }
                let r = run.results[i]
                h += "<td class=\"\(r.verdict.name)\"><details><summary>\(e(r.verdict.name))</summary>"
                if case .pass = r.verdict {} else { h += "<p>\(e(r.verdict.detail))</p>" }
                h += "<pre>\(e(exchangeText(r)))</pre></details></td>"
            }
            h += "</tr>\n"
        }
        return h + "</table></body></html>\n"
    }
}
