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
            // Read in place: a `for` over the steps copied each one (retaining and
            // releasing its seven references).
            c.steps.withUnsafeBufferPointer { steps in
                for i in steps.indices {
                    s.element(indent: m)
                    write(step: steps[i], origin: c.firstTime, indent: m + 2, into: &s)
                    s.end(last: i == steps.count - 1)
                }
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
        s.milliseconds("atMs", micros: (t.start - origin) / 1000, indent: m)
        s.milliseconds("durationMs", micros: t.duration.map { $0 / 1000 }, indent: m)
        s.milliseconds("acknowledgedMs", micros: t.acknowledged.map { ($0 - t.start) / 1000 }, indent: m)
        s.string("outcome", t.outcome, indent: m)
        s.string("errorCode", t.errorCode, indent: m)
        s.string("detail", t.detail, indent: m)
        s.memberKey("records", indent: m)
        s.scalars(t.records)
        s.end(last: false)
        s.memberKey("findings", indent: m)
        s.strings(t.findings)
        s.end(last: true)
        s.pad(indent)
        s.raw("}")
    }
}

extension PrettyJSONStream {
    /// `"key": ` at `indent` (the member's own line): built on the stack and appended
    /// at once (an append per piece checked the buffer's capacity and uniqueness each
    /// time; a report of 8 MB writes some 200,000 keys).
    mutating func memberKey(_ key: StaticString, indent: Int) {
        let n = key.utf8CodeUnitCount
        StackBytes.with(count: indent + n + 4) { raw in
            let line = raw.bindMemory(to: UInt8.self)
            let base = line.baseAddress!
            base.initialize(repeating: UInt8(ascii: " "), count: indent)
            base[indent] = UInt8(ascii: "\"")
            (base + indent + 1).initialize(from: key.utf8Start, count: n)
            base[indent + 1 + n] = UInt8(ascii: "\"")
            base[indent + 2 + n] = UInt8(ascii: ":")
            base[indent + 3 + n] = UInt8(ascii: " ")
            bytes.append(contentsOf: UnsafeBufferPointer(line))
        }
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
        decimal(value)
        end(last: last)
    }

    /// A member whose value is milliseconds from `micros`, as ``Format/ms(micros:)``
    /// writes them (or null).
    mutating func milliseconds(_ key: StaticString, micros: Int64?, indent: Int) {
        memberKey(key, indent: indent)
        if let micros {
            if micros < 0 { bytes.append(UInt8(ascii: "-")) }
            let m = micros.magnitude
            decimal(m / 1000)
            var frac = m % 1000
            if frac != 0 {
                bytes.append(UInt8(ascii: "."))
                var digits = 3
                while frac % 10 == 0 {
                    frac /= 10
                    digits -= 1
                }
                var divisor: UInt64 = digits == 3 ? 100 : digits == 2 ? 10 : 1
                while divisor > 0 {
                    bytes.append(UInt8(ascii: "0") + UInt8(frac / divisor % 10))
                    divisor /= 10
                }
            }
        } else {
            raw("null")
        }
        end(last: false)
    }

    /// `value` in decimal, as `String(value)` writes it.
    mutating func decimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        decimal(value.magnitude)
    }

    /// `value` in decimal.
    mutating func decimal(_ value: UInt64) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var n = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[23 - n] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                n += 1
            } while v > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: d[(24 - n)...]))
        }
    }

    /// An array of integers on one line (`[]` when empty).
    mutating func scalars(_ values: [Int]) { oneLine(values) { $0.decimal(Int64($1)) } }

    /// An array of strings on one line (`[]` when empty): the raw values of `values`
    /// (rule ids), with no array of strings made.
    mutating func strings<T: RawRepresentable>(_ values: [T]) where T.RawValue == String {
        oneLine(values) { JSONWriter.writeString($1.rawValue, into: &$0.bytes) }
    }

    /// An array on one line, `[a, b]`, each element written by `write`.
    private mutating func oneLine<T>(_ values: [T], _ write: (inout PrettyJSONStream, T) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 {
                bytes.append(UInt8(ascii: ","))
                bytes.append(UInt8(ascii: " "))
            }
            write(&self, v)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
