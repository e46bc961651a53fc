import BridgeProtocol
import BridgeReport

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
        var suites: [JUnitDocument.TestSuite] = []
        for r in batch.reports {
            var cases: [JUnitDocument.TestCase] = []
            let counts = Dictionary(uniqueKeysWithValues: r.ruleCounts.map { ($0.rule, $0) })
            let className = "bridgescope." + className(r.source)
            var complete = JUnitDocument.TestCase(className: className, name: "complete input", time: "0")
            if options.verdict(r) == "incomplete" {
                complete.outcome = .failed([.init(type: "incomplete", message: "the input is damaged, truncated or lost traffic",
                                                  body: "See the capture-error and capture-gap findings; --accept-incomplete judges what was read.")])
            }
            cases.append(complete)
            for rule in rules {
                var testCase = JUnitDocument.TestCase(className: className, name: "\(rule.id) \(rule.slug)", time: "0")
                if let c = counts[rule.id], c.count > 0 {
                    let examples = r.findings.filter { $0.rule == rule.id }.prefix(20).map { f in
                        let at = f.records.isEmpty ? "end of session" : "record " + f.records.map(String.init).joined(separator: ",")
                        return "\(at)\(f.connection.map { " conn \($0)" } ?? ""): \(f.message)"
                    }
                    var body = examples.joined(separator: "\n")
                    if c.count > examples.count { body += "\n… and \(c.count - examples.count) more" }
                    body += "\nWhat to check: \(rule.explanation)"
                    if let t = options.threshold.severity, c.severity >= t {
                        testCase.outcome = .failed([.init(type: "\(c.severity)", message: "\(c.count) \(c.severity) finding(s): \(rule.summary)", body: body)])
                    } else {
                        testCase.systemOut = body
                    }
                }
                cases.append(testCase)
            }
            suites.append(JUnitDocument.TestSuite(
                name: r.source, time: Format.ms(micros: r.summary.duration / 1_000_000),
                properties: [.init("failOn", options.threshold.rawValue), .init("messages", "\(r.summary.messages)")],
                cases: cases))
        }
        for f in batch.failures {
            suites.append(JUnitDocument.TestSuite(name: f.path, time: "0", cases: [
                JUnitDocument.TestCase(className: "bridgescope." + className(f.path), name: "read input", time: "0",
                                       outcome: .error(type: f.error.code.rawValue, message: f.error.message)),
            ]))
        }
        return JUnitDocument(name: "bridgescope analyze", suites: suites).render()
    }

    /// A class name from a path: its file name without the extension, dots as underscores.
    func className(_ path: String) -> String {
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return String(name.map { $0 == "." ? "_" : $0 })
    }
}
