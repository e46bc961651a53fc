/// An HTTP/1.1 request or response head (start line and header fields), as read from a
/// reassembled TCP stream. Only what upgrade detection needs: no body handling.
public struct HTTPHead: Sendable, Hashable {
    /// Largest head accepted, in bytes (start line, fields and the blank line). Default
    /// 64 KiB; a stream whose head is longer is not followed.
    static let maxHeadBytes = 64 << 10
    /// Most header fields accepted. 128.
    static let maxFields = 128

    /// The start line without its line ending.
    var startLine: String
    /// Header fields in order, names as sent.
    public var fields: [(name: String, value: String)]

    /// Creates a head.
    public init(startLine: String, fields: [(name: String, value: String)]) {
        self.startLine = startLine
        self.fields = fields
    }

    /// Heads compare by start line and fields.
    public static func == (l: HTTPHead, r: HTTPHead) -> Bool {
        l.startLine == r.startLine && l.fields.elementsEqual(r.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the start line and field count (consistent with `==`).
    public func hash(into h: inout Hasher) {
        h.combine(startLine)
        h.combine(fields.count)
    }

    /// Whether this is a response (`HTTP/1.x NNN ...`).
    public var isResponse: Bool { startLine.hasPrefix("HTTP/") }

    /// The request method, when a request.
    public var method: String? {
        isResponse ? nil : startLine.split(separator: " ", maxSplits: 1).first.map(String.init)
    }

    /// The status code, when a response.
    public var status: Int? {
        guard isResponse else { return nil }
        let parts = startLine.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// All values of a field (case-insensitive name) joined with `, ` (RFC 9110 §5.3),
    /// nil when absent.
    public func field(_ name: String) -> String? {
        let values = fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Whether a comma-separated field holds `token` (case-insensitive).
    func fieldHasToken(_ name: String, _ token: String) -> Bool {
        guard let v = field(name) else { return false }
        return v.split(separator: ",").contains { $0.trimmingWhitespace().lowercased() == token.lowercased() }
    }

    /// `Upgrade: websocket` (with `Connection: upgrade` on requests, as RFC 6455 §4.1
    /// requires; lenient about responses).
    public var asksForWebSocket: Bool {
        fieldHasToken("Upgrade", "websocket") && (isResponse || fieldHasToken("Connection", "upgrade"))
    }

    /// The `Content-Length`, nil when absent or invalid.
    var contentLength: Int? {
        guard let v = field("Content-Length"), let n = Int(v.trimmingWhitespace()), n >= 0 else { return nil }
        return n
    }

    /// Whether `Transfer-Encoding` is present (a chunked body).
    var hasTransferEncoding: Bool { field("Transfer-Encoding") != nil }
}

extension Substring {
    func trimmingWhitespace() -> String {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    func trimmingWhitespace() -> String { Substring(self).trimmingWhitespace() }
}
