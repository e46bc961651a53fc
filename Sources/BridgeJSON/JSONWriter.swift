/// Writes compact JSON: no insignificant whitespace, numbers as their lexeme, strings
/// with the minimal escapes (`\"`, `\\`, `\b \f \n \r \t`, other controls as `\u00XX`,
/// everything else as raw UTF-8). With `sortedKeys` the output is canonical: members
/// ordered by the UTF-8 bytes of their keys (a stable sort, so duplicates keep order).
public struct JSONWriter: Sendable {
    /// Order object members by key bytes instead of keeping source order.
    public var sortedKeys: Bool

    /// Creates a writer; members keep their order unless `sortedKeys`.
    public init(sortedKeys: Bool = false) {
        self.sortedKeys = sortedKeys
    }

    /// The compact UTF-8 bytes of `value`.
    public func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// The compact text of `value`.
    public func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Appends the compact bytes of `value` to `out`.
    ///
    /// Iterative, like the parser: open containers live on an explicit stack, so a value
    /// nested thousands of levels deep costs heap, not call stack.
    public func write(_ value: JSONValue, into out: inout [UInt8]) {
        var stack: [Frame] = []
        var next: JSONValue? = value
        while true {
            if let v = next {
                next = nil
                switch v {
                case .null: out.append(contentsOf: "null".utf8)
                case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
                case .number(let n): out.append(contentsOf: n.lexeme.utf8)
                case .string(let s): JSONWriter.writeString(s, into: &out)
                case .array(let a):
                    out.append(UInt8(ascii: "["))
                    stack.append(Frame(elements: a))
                case .object(let o):
                    out.append(UInt8(ascii: "{"))
                    stack.append(Frame(members: sortedKeys ? o.members.sortedByKeyBytes() : o.members))
                }
            }
            guard !stack.isEmpty else { return }
            let top = stack.count - 1
            let k = stack[top].index
            if stack[top].isObject {
                guard k < stack[top].members.count else {
                    out.append(UInt8(ascii: "}"))
                    stack.removeLast()
                    continue
                }
                if k > 0 { out.append(UInt8(ascii: ",")) }
                let member = stack[top].members[k]
                JSONWriter.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                next = member.value
            } else {
                guard k < stack[top].elements.count else {
                    out.append(UInt8(ascii: "]"))
                    stack.removeLast()
                    continue
                }
                if k > 0 { out.append(UInt8(ascii: ",")) }
                next = stack[top].elements[k]
            }
            stack[top].index = k + 1
        }
    }

    /// A container being written: its children and the next one to write.
    private struct Frame {
        let isObject: Bool
        var elements: [JSONValue] = []
        var members: [JSONObject.Member] = []
        var index = 0

        init(elements: [JSONValue]) {
            self.isObject = false
            self.elements = elements
        }

        init(members: [JSONObject.Member]) {
            self.isObject = true
            self.members = members
        }
    }

    /// Appends `s` as a quoted, escaped JSON string.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        // Fast path: most strings (keys, ids, base64 images) need no escape at all.
        var s = s
        let clean = s.withUTF8 { buf -> Bool in
            for c in buf where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return false }
            out.reserveCapacity(out.count + buf.count + 2)
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: buf)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if clean { return }
        out.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(c)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(c)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                // Only 0x00-0x1F get here: the first hex digit is 0 or 1.
                let low = c & 0xF
                out.append(contentsOf: "\\u00".utf8)
                out.append(UInt8(ascii: "0") + (c >> 4))
                out.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension Array where Element == JSONObject.Member {
    func sortedByKeyBytes() -> [JSONObject.Member] {
        // Byte order of UTF-8 is code point order; ties keep source order (stable).
        self.enumerated().sorted { (a: (offset: Int, element: JSONObject.Member), b: (offset: Int, element: JSONObject.Member)) -> Bool in
            let ka = a.element.key.utf8, kb = b.element.key.utf8
            if ka.lexicographicallyPrecedes(kb) { return true }
            if kb.lexicographicallyPrecedes(ka) { return false }
            return a.offset < b.offset
        }.map(\.element)
    }
}
