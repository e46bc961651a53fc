import BridgeReport

extension ReplayReport {
    /// The report as JUnit XML for CI: one `<testsuite>` per connection, one
    /// `<testcase>` per request (named `ACTION CORRELATIONID`) and one for the host's
    /// events, each failing with its divergences; a connection error is an `<error>`;
    /// skipped parts are `<skipped>` cases.
    public func renderJUnit() -> String {
        var suites: [JUnitDocument.TestSuite] = []
        for c in connections {
            var cases: [(name: String, divergences: [Divergence])] = []
            var index: [String: Int] = [:]
            for d in c.divergences {
                let name: String
                if let cid = d.correlationId { name = "\(d.action ?? "request") \(cid)" } else if d.kind == .closedEarly {
                    name = "connection"
                } else { name = "host events" }
                if let i = index[name] { cases[i].divergences.append(d) } else {
                    index[name] = cases.count
                    cases.append((name, [d]))
                }
            }
            let className = "replay." + c.id
            var tests: [JUnitDocument.TestCase] = []
            if let e = c.error {
                tests.append(JUnitDocument.TestCase(className: className, name: "connect", outcome: .error(type: nil, message: e)))
            }
            for (name, list) in cases {
                let failures = list.map { JUnitDocument.TestCase.Failure(type: $0.kind.rawValue, message: $0.message, body: $0.description) }
                tests.append(JUnitDocument.TestCase(className: className, name: name, outcome: .failed(failures)))
            }
            let passing = max(0, c.sent - cases.count)
            if passing > 0 {
                tests.append(JUnitDocument.TestCase(className: className, name: "\(passing) message(s) without divergence"))
            }
            suites.append(JUnitDocument.TestSuite(name: "replay conn \(c.id)", cases: tests))
        }
        if !skipped.isEmpty {
            suites.append(JUnitDocument.TestSuite(name: "replay skipped", cases: skipped.map {
                JUnitDocument.TestCase(className: "replay.skipped", name: $0.connection ?? "archive", outcome: .skipped($0.description))
            }))
        }
        return JUnitDocument(name: "bridgescope replay \(archive)", suites: suites).render()
    }
}
