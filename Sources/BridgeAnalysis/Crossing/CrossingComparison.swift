import BridgeJSON

/// The differences between a message as one side of the bridge recorded it and as the
/// other did, as JSON values: object members compare by name whatever their order (key
/// order alone is never a difference), array elements by position, strings byte for byte,
/// and numbers by value: two integer spellings by their exact digits (`-0` is `0`), any
/// other pair as the binary64 doubles a JavaScript number is (`1`, `1.0` and `1e0` are the
/// same; `12345678901234567890` and `12345678901234567000` are not).
///
/// Each difference is one line, `path: <web value> on the web side, <native value> on the
/// native side` (`missing` for an absent member); paths are written as the JavaScript tap
/// writes them (`payload.data.n`, `payload.items[2]`, `payload["a b"]`). Values are cut
/// to ``maxValueBytes``; the first ``maxListed`` differences are listed, the rest counted.
struct CrossingComparison {
    /// Differences listed per message; more are counted. 8.
    static let maxListed = 8
    /// The longest value shown, in bytes of compact JSON; longer ones end in `…`. 80.
    static let maxValueBytes = 80

    /// The differences listed (at most ``maxListed``).
    private(set) var listed: [String] = []
    /// Every difference found.
    private(set) var total = 0

    /// Compares the web side's value with the native side's.
    init(web: JSONValue, native: JSONValue) {
        compare(web, native, path: "")
    }

    /// Compares two messages that are not both JSON: byte for byte.
    init(webBytes: [UInt8], nativeBytes: [UInt8], webValue: JSONValue?, nativeValue: JSONValue?) {
        if let webValue, let nativeValue {
            compare(webValue, nativeValue, path: "")
        } else if webBytes != nativeBytes {
            func shown(_ bytes: [UInt8], _ value: JSONValue?) -> String {
                let text = value.map { JSONWriter().string($0) } ?? String(decoding: bytes, as: UTF8.self)
                return Self.cut(text) + (value == nil ? " (not JSON)" : "")
            }
            add("the message: \(shown(webBytes, webValue)) on the web side, \(shown(nativeBytes, nativeValue)) on the native side")
        }
    }

    /// Whether nothing differs.
    var isEmpty: Bool { total == 0 }

    private mutating func add(_ line: String) {
        total += 1
        if listed.count < Self.maxListed { listed.append(line) }
    }

    private mutating func differ(_ path: String, web: JSONValue?, native: JSONValue?) {
        let w = web.map { Self.cut(JSONWriter().string($0)) } ?? "missing"
        let n = native.map { Self.cut(JSONWriter().string($0)) } ?? "missing"
        add("\(path.isEmpty ? "the message" : path): \(w) on the web side, \(n) on the native side")
    }

    private mutating func compare(_ web: JSONValue, _ native: JSONValue, path: String) {
        switch (web, native) {
        case (.null, .null):
            return
        case let (.bool(a), .bool(b)) where a == b:
            return
        case let (.string(a), .string(b)) where a.utf8.elementsEqual(b.utf8):
            return
        case let (.number(a), .number(b)) where Self.sameNumber(a, b):
            return
        case let (.array(a), .array(b)):
            for i in 0..<min(a.count, b.count) {
                compare(a[i], b[i], path: path + "[\(i)]")
            }
            for i in b.count..<max(a.count, b.count) { differ(path + "[\(i)]", web: a[i], native: nil) }
            for i in a.count..<max(a.count, b.count) { differ(path + "[\(i)]", web: nil, native: b[i]) }
        case let (.object(a), .object(b)):
            compareMembers(a, b, path: path)
        default:
            differ(path, web: web, native: native)
        }
    }

    /// Members by name, in the web side's order, then those only the native side has;
    /// a name given twice pairs its values in order.
    private mutating func compareMembers(_ a: JSONObject, _ b: JSONObject, path: String) {
        var nativeByName: [String: [JSONValue]] = [:]
        for m in b.members { nativeByName[m.key, default: []].append(m.value) }
        var used: [String: Int] = [:]
        for m in a.members {
            let k = used[m.key, default: 0]
            used[m.key] = k + 1
            let twins = nativeByName[m.key] ?? []
            let memberPath = Self.path(path, m.key)
            if k < twins.count {
                compare(m.value, twins[k], path: memberPath)
            } else {
                differ(memberPath, web: m.value, native: nil)
            }
        }
        var seen: [String: Int] = [:]
        for m in b.members {
            let k = seen[m.key, default: 0]
            seen[m.key] = k + 1
            if k >= used[m.key, default: 0] { differ(Self.path(path, m.key), web: nil, native: m.value) }
        }
    }

    /// `parent.key`, or `parent["key"]` for a name that is not a plain identifier.
    static func path(_ parent: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.utf8.allSatisfy { c in
            (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x24
        } && !(key.utf8.first! >= 0x30 && key.utf8.first! <= 0x39)
        if plain { return parent.isEmpty ? key : parent + "." + key }
        var quoted: [UInt8] = []
        JSONWriter.writeString(key, into: &quoted)
        return parent + "[" + String(decoding: quoted, as: UTF8.self) + "]"
    }

    /// Two numbers are the same when their spellings are, when both are integers with the
    /// same digits (`-0` and `0` alike), or, when either is not an integer, when both
    /// round to the same double.
    static func sameNumber(_ a: JSONNumber, _ b: JSONNumber) -> Bool {
        if a.lexeme == b.lexeme { return true }
        if a.isIntegerLexeme && b.isIntegerLexeme {
            func normal(_ s: String) -> Substring { s == "-0" ? "0" : Substring(s) }
            return normal(a.lexeme) == normal(b.lexeme)
        }
        let x = a.double, y = b.double
        return x == y
    }

    /// `text` cut to ``maxValueBytes`` on a character boundary, with `…`.
    static func cut(_ text: String) -> String {
        guard text.utf8.count > maxValueBytes else { return text }
        var out = ""
        var used = 0
        for c in text {
            used += c.utf8.count
            if used > maxValueBytes - 3 { break }
            out.append(c)
        }
        return out + "…"
    }
}
