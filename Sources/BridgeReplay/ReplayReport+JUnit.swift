extension ReplayReport {
    /// The report as JUnit XML for CI: one `<testsuite>` per connection, one
    /// `<testcase>` per request (named `ACTION CORRELATIONID`) and one for the host's
    /// events, each failing with its divergences; a connection error is an `<error>`;
    /// skipped parts are `<skipped>` cases.
    public func renderJUnit() -> String {
        var suites = ""
        var totalTests = 0, totalFailures = 0, totalErrors = 0
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
            let passing = max(0, c.sent - cases.count)
            var body = ""
            if let e = c.error {
                body += "    <testcase classname=\"replay.\(xml(c.id))\" name=\"connect\"><error message=\"\(xml(e))\"/></testcase>\n"
                totalErrors += 1
            }
            for (name, list) in cases {
                body += "    <testcase classname=\"replay.\(xml(c.id))\" name=\"\(xml(name))\">\n"
                for d in list {
                    body += "      <failure type=\"\(d.kind.rawValue)\" message=\"\(xml(d.message))\">\(xml(d.description))</failure>\n"
                }
                body += "    </testcase>\n"
            }
            if passing > 0 {
                body += "    <testcase classname=\"replay.\(xml(c.id))\" name=\"\(passing) message(s) without divergence\"/>\n"
            }
            let tests = cases.count + (passing > 0 ? 1 : 0) + (c.error != nil ? 1 : 0)
            totalTests += tests
            totalFailures += cases.count
            suites += "  <testsuite name=\"replay conn \(xml(c.id))\" tests=\"\(tests)\" failures=\"\(cases.count)\" errors=\"\(c.error != nil ? 1 : 0)\">\n"
            suites += body + "  </testsuite>\n"
        }
        if !skipped.isEmpty {
            suites += "  <testsuite name=\"replay skipped\" tests=\"\(skipped.count)\" skipped=\"\(skipped.count)\">\n"
            for s in skipped {
                suites += "    <testcase classname=\"replay.skipped\" name=\"\(xml(s.connection ?? "archive"))\"><skipped message=\"\(xml(s.description))\"/></testcase>\n"
            }
            suites += "  </testsuite>\n"
            totalTests += skipped.count
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\"bridgescope replay \(xml(archive))\" tests=\"\(totalTests)\" failures=\"\(totalFailures)\" errors=\"\(totalErrors)\">\n"
            + suites + "</testsuites>\n"
    }

    private func xml(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            default:
                // XML 1.0 forbids most control characters even escaped.
                if c.value < 0x20 && c != "\t" { out += "?" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}
