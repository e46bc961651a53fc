import BridgeJSON

/// One place where two messages differ after normalization.
public struct ValueDifference: Sendable, Hashable {
    /// JSON pointer of the value (RFC 6901; "" for the whole message).
    public var pointer: String
    /// The recorded value as compact JSON, or `absent`.
    public var expected: String
    /// The replayed value as compact JSON, or `absent`.
    public var actual: String
}

/// Compares two messages member by member under ``NormalizationRules``: objects by
/// member name (order does not matter; the first of duplicate names counts), arrays by
/// position, numbers by value, images by ``ImageSummary``. Messages that are not JSON
/// are compared as bytes.
public struct MessageDiffer: Sendable {
    /// The rules in force.
    public var rules: NormalizationRules

    /// Creates a differ.
    public init(rules: NormalizationRules = .default) {
        self.rules = rules
    }

    /// The differences between `expected` and `actual` (at most
    /// ``ReplayLimits/maxDifferencesPerMessage`` + 1; the last one then counts the rest).
    public func diff(_ expected: RecordedMessage, _ actual: RecordedMessage) -> [ValueDifference] {
        if expected.bytes == actual.bytes { return [] }
        let parser = JSONParser(limits: ReplayLimits.json)
        guard let a = try? parser.parse(expected.bytes).value, let b = try? parser.parse(actual.bytes).value else {
            return [ValueDifference(pointer: "", expected: Self.text(expected.bytes), actual: Self.text(actual.bytes))]
        }
        var walk = Walk(rules: rules, isResponse: expected.kind == .response)
        var path: [String] = []
        walk.compare(a, b, &path, key: nil)
        if walk.extra > 0 {
            walk.out.append(ValueDifference(pointer: "", expected: "",
                                            actual: "and \(walk.extra) more difference(s)"))
        }
        return walk.out
    }

    static func text(_ bytes: [UInt8]) -> String {
        let s = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? s + "…" : s
    }

    /// Compact JSON of `v`, cut at 200 characters.
    static func render(_ v: JSONValue?) -> String {
        guard let v else { return "absent" }
        if case .string(let s) = v, s.utf8.count > 200 {
            return "\"" + String(s.prefix(60)) + "…\" (\(s.utf8.count) bytes)"
        }
        let s = JSONWriter().string(v)
        return s.count > 200 ? String(s.prefix(200)) + "…" : s
    }

    struct Walk {
        let rules: NormalizationRules
        let isResponse: Bool
        var out: [ValueDifference] = []
        var extra = 0

        mutating func report(_ path: [String], _ a: JSONValue?, _ b: JSONValue?) {
            report(path, MessageDiffer.render(a), MessageDiffer.render(b))
        }

        mutating func report(_ path: [String], _ a: String, _ b: String) {
            if out.count < ReplayLimits.maxDifferencesPerMessage {
                out.append(ValueDifference(pointer: JSONPointerPattern.pointer(path), expected: a, actual: b))
            } else {
                extra += 1
            }
        }

        mutating func compare(_ a: JSONValue?, _ b: JSONValue?, _ path: inout [String], key: String?) {
            if !path.isEmpty && rules.ignores(path[...], isResponse: isResponse) { return }
            guard let a, let b else {
                if a != nil || b != nil { report(path, a, b) }
                return
            }
            switch (a, b) {
            case (.object(let x), .object(let y)):
                var seen = Set<String>()
                for m in x.members + y.members where seen.insert(m.key).inserted {
                    path.append(m.key)
                    compare(x[m.key], y[m.key], &path, key: m.key)
                    path.removeLast()
                }
            case (.array(let x), .array(let y)):
                for i in 0..<max(x.count, y.count) {
                    // Explicitly optional: a bare `nil` here would become JSON null.
                    let ex: JSONValue? = i < x.count ? .some(x[i]) : .none
                    let ey: JSONValue? = i < y.count ? .some(y[i]) : .none
                    path.append(String(i))
                    compare(ex, ey, &path, key: nil)
                    path.removeLast()
                }
            case (.number(let x), .number(let y)):
                if x.lexeme != y.lexeme && x.double != y.double { report(path, a, b) }
            case (.string(let x), .string(let y)):
                guard x != y else { return }
                if let key, rules.isImage(key) {
                    compareImages(ImageSummary(base64: x), ImageSummary(base64: y), &path)
                } else {
                    report(path, a, b)
                }
            default:
                if a != b { report(path, a, b) }
            }
        }

        mutating func compareImages(_ x: ImageSummary, _ y: ImageSummary, _ path: inout [String]) {
            guard x != y else { return }
            if x.mimeType != y.mimeType { report(path + ["(mimeType)"], x.mimeType ?? "not an image", y.mimeType ?? "not an image") }
            if x.width != y.width { report(path + ["(width)"], String(x.width), String(y.width)) }
            if x.height != y.height { report(path + ["(height)"], String(x.height), String(y.height)) }
            if x.decodable != y.decodable { report(path + ["(decodable)"], String(x.decodable), String(y.decodable)) }
        }
    }
}
