/// A JSON Pointer (RFC 6901) that may hold wildcards, naming the parts of an envelope a
/// comparison ignores (`--ignore`).
///
/// `/payload/data/referenceId` names one member; a segment `*` matches any one member
/// name or array index (`/payload/data/items/*/id`); a segment `**` matches any number
/// of segments, none included (`/**/timestamp` is every member named `timestamp`).
/// `~1` and `~0` escape `/` and `~` as in RFC 6901. A pattern matches a value and
/// everything inside it.
public struct JSONPointerPattern: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped segments (`*` and `**` as wildcards).
    public let segments: [String]
    /// The pattern as written.
    public let text: String

    /// Longest pattern accepted, in bytes: 4,096.
    public static let maxBytes = 4096

    /// Parses a pointer pattern: empty (the whole message) or starting with `/`.
    ///
    /// - Throws: ``ReplayError`` (`usage`) saying what is wrong, with the byte offset.
    public init(_ text: String) throws(ReplayError) {
        guard text.utf8.count <= Self.maxBytes else {
            throw ReplayError(.usage, "JSON pointer of \(text.utf8.count) bytes is longer than \(Self.maxBytes)")
        }
        self.text = text
        if text.isEmpty { segments = []; return }
        guard text.hasPrefix("/") else {
            throw ReplayError(.usage, "\"\(text)\" is not a JSON pointer: it must start with \"/\" (e.g. /payload/data/referenceId)")
        }
        var out: [String] = []
        var offset = 1
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var s = ""
            var chars = raw.makeIterator()
            var at = offset
            while let c = chars.next() {
                if c == "~" {
                    switch chars.next() {
                    case "0"?: s.append("~")
                    case "1"?: s.append("/")
                    default:
                        throw ReplayError(.usage, "\"\(text)\": \"~\" at byte \(at) must be followed by 0 or 1 (RFC 6901)")
                    }
                    at += 1
                } else {
                    s.append(c)
                }
                at += c.utf8.count
            }
            out.append(s)
            offset += raw.utf8.count + 1
        }
        segments = out
    }

    /// Whether the value at `path` (unescaped segments) is this pattern's or inside it.
    public func covers(_ path: ArraySlice<String>) -> Bool {
        Self.match(segments[...], path)
    }

    private static func match(_ pattern: ArraySlice<String>, _ path: ArraySlice<String>) -> Bool {
        guard let head = pattern.first else { return true }
        if head == "**" {
            let rest = pattern.dropFirst()
            var p = path
            while true {
                if match(rest, p) { return true }
                guard !p.isEmpty else { return false }
                p = p.dropFirst()
            }
        }
        guard let first = path.first else { return false }
        guard head == "*" || head == first else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// The pattern as written.
    public var description: String { text }

    /// A pointer for `path` (segments escaped per RFC 6901).
    public static func pointer(_ path: some Sequence<String>) -> String {
        var out = ""
        for s in path {
            out.append("/")
            for c in s {
                switch c {
                case "~": out.append("~0")
                case "/": out.append("~1")
                default: out.append(c)
                }
            }
        }
        return out
    }
}
