import BridgeJSON

/// Writes JSON indented by two spaces, one member per line; arrays of scalars stay on
/// one line. Members keep their order, so reports diff well.
enum PrettyJSON {
    static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(value, indent: 0, into: &out)
        out.append(UInt8(ascii: "\n"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func isScalar(_ v: JSONValue) -> Bool {
        switch v {
        case .array(let a): return a.isEmpty
        case .object(let o): return o.isEmpty
        default: return true
        }
    }

    private static func pad(_ n: Int, _ out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: n))
    }

    /// Writes `value` whose first line is already indented to `indent`.
    static func write(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .array(let a) where !a.isEmpty:
            if a.allSatisfy(isScalar) {
                out.append(UInt8(ascii: "["))
                for (i, e) in a.enumerated() {
                    if i > 0 { out.append(contentsOf: ", ".utf8) }
                    JSONWriter().write(e, into: &out)
                }
                out.append(UInt8(ascii: "]"))
                return
            }
            out.append(contentsOf: "[\n".utf8)
            for (i, e) in a.enumerated() {
                pad(indent + 2, &out)
                write(e, indent: indent + 2, into: &out)
                out.append(contentsOf: (i + 1 < a.count ? ",\n" : "\n").utf8)
            }
            pad(indent, &out)
            out.append(UInt8(ascii: "]"))
        case .object(let o) where !o.isEmpty:
            out.append(contentsOf: "{\n".utf8)
            for (i, m) in o.members.enumerated() {
                pad(indent + 2, &out)
                JSONWriter.writeString(m.key, into: &out)
                out.append(contentsOf: ": ".utf8)
                write(m.value, indent: indent + 2, into: &out)
                out.append(contentsOf: (i + 1 < o.members.count ? ",\n" : "\n").utf8)
            }
            pad(indent, &out)
            out.append(UInt8(ascii: "}"))
        default:
            JSONWriter().write(value, into: &out)
        }
    }
}
