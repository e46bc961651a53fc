import BridgeReport

/// The suite's reports: text for a terminal, JSON, JUnit for CI, and an HTML page with
/// several hosts side by side (docs/CONFORMANCE.md, "Reports").
public enum ConformanceReport {
    /// One block per host: a line per case, the failures' reasons, and counts.
    public static func text(_ runs: [ConformanceRun]) -> String {
        var out = ""
        for run in runs {
            out += "conform \(run.target)\(run.strict ? " (strict: the reference host's choices)" : ""): \(run.results.count) case(s)\n"
            for r in run.results {
                let c = r.testCase
                out += "  \(pad(c.id, 5)) \(pad(r.verdict.name.uppercased(), 16)) \(c.title) (PROTOCOL.md \(c.section))\n"
                switch r.verdict {
                case .pass: break
                default: out += "        \(r.verdict.detail)\n"
                }
            }
            let counts = run.counts
            out += "  " + ["pass", "pass-with-choice", "fail", "informational", "undecided"]
                .map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ") + "\n"
        }
        return out
    }

    static func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s : s + String(repeating: " ", count: n - s.count)
    }

    /// JUnit: a suite per host, a test case per conformance case; a failed case fails.
    public static func junit(_ runs: [ConformanceRun]) -> String {
        var doc = JUnitDocument(name: "bridgescope conform")
        for run in runs {
            var suite = JUnitDocument.TestSuite(name: "conform \(run.target)", properties: [.init("strict", String(run.strict))])
            for r in run.results {
                let c = r.testCase
                let name = "\(c.id) \(c.title)"
                var tc = JUnitDocument.TestCase(className: "conform.\(c.section)", name: name,
                                                time: String(format3(r.milliseconds)))
                switch r.verdict {
                case .fail(let rule, let reason):
                    tc.outcome = .failed([.init(type: rule, message: reason, body: exchangeText(r))])
                case .pass:
                    break
                default:
                    tc.systemOut = "\(r.verdict.name): \(r.verdict.detail)"
                }
                suite.cases.append(tc)
            }
            doc.suites.append(suite)
        }
        return doc.render()
    }

    static func format3(_ ms: Int) -> String {
        let s = String(ms / 1000), f = String(ms % 1000)
        return s + "." + String(repeating: "0", count: 3 - f.count) + f
    }

    /// The exchange as lines: `> 12 ms {…}`.
    static func exchangeText(_ r: ConformanceResult) -> String {
        r.exchange.map { "\($0.direction) \($0.atMs) ms \($0.text)" }.joined(separator: "\n")
    }
}
