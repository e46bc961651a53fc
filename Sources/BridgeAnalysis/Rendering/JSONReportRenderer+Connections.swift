import BridgeJSON

/// A connection and its journey steps written straight into the stream, in
/// ``PrettyJSON``'s layout, byte for byte what writing ``JSONReportRenderer/connection(_:)``
/// gives: a long session keeps tens of thousands of steps, and building a `JSONValue`
/// for each (then walking it) took a tenth of `analyze --format json`, all of it after
/// the analysis, on one thread.
extension JSONReportRenderer {
    /// Writes `c` as an object whose first line is already indented to `indent`.
    func write(connection c: ConnectionReport, indent: Int, into s: inout PrettyJSONStream) {
        let m = indent + 2
        s.raw("{\n")
        s.string("id", c.id, indent: m)
        s.integer("firstTime", c.firstTime, indent: m)
        s.integer("lastTime", c.lastTime, indent: m)
        s.integer("webMessages", Int64(c.webMessages), indent: m)
        s.integer("hostMessages", Int64(c.hostMessages), indent: m)
        s.integer("requests", Int64(c.requests), indent: m)
        s.integer("unanswered", Int64(c.unanswered), indent: m)
        s.key("outcome", indent: indent)
        s.raw("{\n")
        s.string("state", c.outcome.state, indent: m + 2)
        s.string("detail", c.outcome.detail, indent: m + 2, last: true)
        s.close("}", indent: m)
        s.end(last: false)
        s.key("steps", indent: indent)
        if c.steps.isEmpty {
            s.raw("[]")
        } else {
            s.open("[")
            for (i, step) in c.steps.enumerated() {
                s.element(indent: m)
                write(step: step, origin: c.firstTime, indent: m + 2, into: &s)
                s.end(last: i == c.steps.count - 1)
            }
            s.close("]", indent: m)
        }
        s.end(last: false)
        s.integer("stepsOmitted", Int64(c.stepsOmitted), indent: m, last: true)
        s.close("}", indent: indent)
    }

    /// Writes `step` as an object whose first line is already indented to `indent`.
    func write(step t: JourneyStep, origin: Int64, indent: Int, into s: inout PrettyJSONStream) {
        let m = indent + 2
        s.raw("{\n")
        s.string("kind", t.kind.rawValue, indent: m)
        s.string("action", t.action, indent: m)
        s.string("correlationId", t.correlationId, indent: m)
        s.string("direction", t.direction.rawValue, indent: m)
        s.integer("start", t.start, indent: m)
        s.lexeme("atMs", Format.ms(micros: (t.start - origin) / 1000), indent: m)
        s.lexeme("durationMs", t.duration.map { Format.ms(micros: $0 / 1000) }, indent: m)
        s.lexeme("acknowledgedMs", t.acknowledged.map { Format.ms(micros: ($0 - t.start) / 1000) }, indent: m)
        s.string("outcome", t.outcome, indent: m)
        s.string("errorCode", t.errorCode, indent: m)
        s.string("detail", t.detail, indent: m)
        s.memberKey("records", indent: m)
        s.scalars(t.records.map { Int64($0) })
        s.end(last: false)
        s.memberKey("findings", indent: m)
        s.strings(t.findings.map(\.rawValue))
        s.end(last: true)
        s.pad(indent)
        s.raw("}")
    }
}

extension PrettyJSONStream {
    /// `"key": ` at `indent` (the member's own line).
    mutating func memberKey(_ key: StaticString, indent: Int) {
        pad(indent)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(contentsOf: "\": ".utf8)
    }

    /// A member whose value is a string (or null).
    mutating func string(_ key: StaticString, _ value: String?, indent: Int, last: Bool = false) {
        memberKey(key, indent: indent)
        if let value { JSONWriter.writeString(value, into: &bytes) } else { raw("null") }
        end(last: last)
    }

    /// A member whose value is an integer.
    mutating func integer(_ key: StaticString, _ value: Int64, indent: Int, last: Bool = false) {
        memberKey(key, indent: indent)
        bytes.append(contentsOf: String(value).utf8)
        end(last: last)
    }

    /// A member whose value is a number written as `lexeme` (or null).
    mutating func lexeme(_ key: StaticString, _ lexeme: String?, indent: Int) {
        memberKey(key, indent: indent)
        raw(lexeme ?? "null")
        end(last: false)
    }

    /// An array of integers on one line (`[]` when empty).
    mutating func scalars(_ values: [Int64]) {
        bytes.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(contentsOf: ", ".utf8) }
            bytes.append(contentsOf: String(v).utf8)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An array of strings on one line (`[]` when empty).
    mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(contentsOf: ", ".utf8) }
            JSONWriter.writeString(v, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
