extension JUnitDocument.TestCase {
    var failureCount: Int { if case .failed = outcome { 1 } else { 0 } }
    var errorCount: Int { if case .error = outcome { 1 } else { 0 } }
    var skippedCount: Int { if case .skipped = outcome { 1 } else { 0 } }
}

extension JUnitDocument {
    /// The XML text, with the counts (`tests`, `failures`, `errors`, `skipped`) computed
    /// from the cases.
    public func render() -> String {
        let e = XMLText.escape
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let all = suites.flatMap(\.cases)
        x += "<testsuites name=\"\(e(name))\" tests=\"\(all.count)\" failures=\"\(all.map(\.failureCount).reduce(0, +))\" "
        x += "errors=\"\(all.map(\.errorCount).reduce(0, +))\">\n"
        for s in suites {
            x += "  <testsuite name=\"\(e(s.name))\" tests=\"\(s.cases.count)\" failures=\"\(s.cases.map(\.failureCount).reduce(0, +))\" "
            x += "errors=\"\(s.cases.map(\.errorCount).reduce(0, +))\" skipped=\"\(s.cases.map(\.skippedCount).reduce(0, +))\""
            if let t = s.time { x += " time=\"\(e(t))\"" }
            x += ">\n"
            if !s.properties.isEmpty {
                x += "    <properties>\n"
                for p in s.properties { x += "      <property name=\"\(e(p.name))\" value=\"\(e(p.value))\"/>\n" }
                x += "    </properties>\n"
            }
            for c in s.cases { x += Self.render(c) }
            x += "  </testsuite>\n"
        }
        return x + "</testsuites>\n"
    }

    static func render(_ c: TestCase) -> String {
        let e = XMLText.escape
        var x = "    <testcase classname=\"\(e(c.className))\" name=\"\(e(c.name))\""
        if let t = c.time { x += " time=\"\(e(t))\"" }
        var inner = ""
        switch c.outcome {
        case .passed: break
        case .failed(let failures):
            for f in failures {
                inner += "      <failure" + (f.type.map { " type=\"\(e($0))\"" } ?? "") + " message=\"\(e(f.message))\">\(e(f.body))</failure>\n"
            }
        case .error(let type, let message):
            inner += "      <error" + (type.map { " type=\"\(e($0))\"" } ?? "") + " message=\"\(e(message))\"/>\n"
        case .skipped(let message):
            inner += "      <skipped message=\"\(e(message))\"/>\n"
        }
        if let out = c.systemOut { inner += "      <system-out>\(e(out))</system-out>\n" }
        return inner.isEmpty ? x + "/>\n" : x + ">\n" + inner + "    </testcase>\n"
    }
}
