import BridgeProtocol

/// `--format junit`: one `<testsuite>` per session with one `<testcase>` per rule of the
/// catalogue; a test case fails when the session has findings of that rule at or above
/// the `--fail-on` threshold (findings below it are listed in `<system-out>`). An input
/// that could not be read is a suite with one test case in `<error>`.
public struct JUnitReportRenderer: Sendable {
    /// The options (threshold).
    public var options: RenderOptions
    /// The rules that become test cases: the whole catalogue by default.
    public var rules: [Rule]

    /// Creates a renderer.
    public init(options: RenderOptions = RenderOptions(), rules: [Rule] = RuleCatalogue.standard.rules) {
        self.options = options
        self.rules = rules
    }

    /// The JUnit XML document.
    public func render(_ batch: AnalysisBatch) -> String {
        let e = XMLEscape.escape
        var suites: [String] = []
        var tests = 0, failures = 0, errors = 0
        for r in batch.reports {
            var cases = ""
            var suiteFailures = 0
            let counts = Dictionary(uniqueKeysWithValues: r.ruleCounts.map { ($0.rule, $0) })
            for rule in rules {
                let name = "\(rule.id) \(rule.slug)"
                cases += "    <testcase classname=\"bridgescope.\(e(className(r.source)))\" name=\"\(e(name))\" time=\"0\""
                guard let c = counts[rule.id], c.count > 0 else { cases += "/>\n"; continue }
                let examples = r.findings.filter { $0.rule == rule.id }.prefix(20).map { f in
                    let at = f.records.isEmpty ? "end of session" : "record " + f.records.map(String.init).joined(separator: ",")
                    return "\(at)\(f.connection.map { " conn \($0)" } ?? ""): \(f.message)"
                }
                var body = examples.joined(separator: "\n")
                if c.count > examples.count { body += "\n… and \(c.count - examples.count) more" }
                body += "\nWhat to check: \(rule.explanation)"
                cases += ">\n"
                if let t = options.threshold.severity, c.severity >= t {
                    suiteFailures += 1
                    cases += "      <failure type=\"\(c.severity)\" message=\"\(e("\(c.count) \(c.severity) finding(s): \(rule.summary)"))\">\(e(body))</failure>\n"
                } else {
                    cases += "      <system-out>\(e(body))</system-out>\n"
                }
                cases += "    </testcase>\n"
            }
            tests += rules.count
            failures += suiteFailures
            let seconds = Format.ms(micros: r.summary.duration / 1_000_000)
            suites.append("  <testsuite name=\"\(e(r.source))\" tests=\"\(rules.count)\" failures=\"\(suiteFailures)\" errors=\"0\" skipped=\"0\" time=\"\(seconds)\">\n"
                + "    <properties>\n      <property name=\"failOn\" value=\"\(options.threshold.rawValue)\"/>\n"
                + "      <property name=\"messages\" value=\"\(r.summary.messages)\"/>\n    </properties>\n"
                + cases + "  </testsuite>\n")
        }
        for f in batch.failures {
            tests += 1
            errors += 1
            suites.append("  <testsuite name=\"\(e(f.path))\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\">\n"
                + "    <testcase classname=\"bridgescope.\(e(className(f.path)))\" name=\"read input\" time=\"0\">\n"
                + "      <error type=\"\(e(f.error.code.rawValue))\" message=\"\(e(f.error.message))\"/>\n    </testcase>\n  </testsuite>\n")
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"bridgescope analyze\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\">\n"
            + suites.joined() + "</testsuites>\n"
    }

    /// A class name from a path: its file name without the extension, dots as underscores.
    func className(_ path: String) -> String {
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return String(name.map { $0 == "." ? "_" : $0 })
    }
}
