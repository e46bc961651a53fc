extension HTTPHead {
    /// The outcome of reading a head from the start of a stream's bytes.
    public enum Parse: Sendable, Hashable {
        /// The head is not complete yet.
        case needMore
        /// A head that took `length` bytes (blank line included).
        case head(HTTPHead, length: Int)
        /// These bytes do not start an HTTP/1.x head.
        case notHTTP(String)
    }

    /// Whether `bytes` can start an HTTP/1.x head: `HTTP/` (a response) or an
    /// upper-case method token and a space (a request). Nil when too few bytes to say.
    static func looksLikeHead(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        let response = Array("HTTP/".utf8)
        var responsePrefix = true
        for (i, c) in response.enumerated() where i < bytes.count && bytes[i] != c { responsePrefix = false }
        if responsePrefix { return bytes.count >= response.count ? true : nil }
        var i = 0
        while i < bytes.count && i <= 16 {
            let c = bytes[i]
            if c == UInt8(ascii: " ") { return i >= 3 }
            if !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) && c != UInt8(ascii: "-") { return false }
            i += 1
        }
        return i > 16 ? false : nil
    }

    /// Reads one head from the start of `bytes`: lines end with CRLF (a bare LF is
    /// accepted), the head ends at an empty line; at most ``maxHeadBytes`` and
    /// ``maxFields``; obsolete line folding is rejected (RFC 9112 §5.2).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Parse {
        if let start = looksLikeHead(bytes) {
            if !start { return .notHTTP("stream does not start with an HTTP/1.x request or response") }
        } else {
            return .needMore
        }
        var lines: [String] = []
        var lineStart = 0
        var i = 0
        let limit = min(bytes.count, maxHeadBytes)
        while i < limit {
            if bytes[i] == 0x0A {
                var end = i
                if end > lineStart && bytes[end - 1] == 0x0D { end -= 1 }
                if end == lineStart {
                    return finish(lines, length: i + 1)
                }
                let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<end])
                guard let text = String(validating: line, as: UTF8.self) else {
                    return .notHTTP("head line at byte \(lineStart) is not UTF-8")
                }
                lines.append(text)
                if lines.count > maxFields + 1 {
                    return .notHTTP("head has more than \(maxFields) fields")
                }
                lineStart = i + 1
            }
            i += 1
        }
        if bytes.count >= maxHeadBytes {
            return .notHTTP("head longer than \(maxHeadBytes) bytes")
        }
        return .needMore
    }

    private static func finish(_ lines: [String], length: Int) -> Parse {
        guard let start = lines.first else { return .notHTTP("empty head") }
        let isResponse = start.hasPrefix("HTTP/1.")
        if !isResponse && !start.hasSuffix(" HTTP/1.1") && !start.hasSuffix(" HTTP/1.0") {
            return .notHTTP("start line is not HTTP/1.x: \(start.prefix(80))")
        }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            if line.first == " " || line.first == "\t" {
                return .notHTTP("obsolete line folding in the head")
            }
            guard let colon = line.firstIndex(of: ":") else {
                return .notHTTP("header line without a colon: \(line.prefix(80))")
            }
            let name = String(line[..<colon])
            guard !name.isEmpty, !name.contains(" ") else {
                return .notHTTP("invalid header name: \(name.prefix(80))")
            }
            fields.append((name: name, value: line[line.index(after: colon)...].trimmingWhitespace()))
        }
        return .head(HTTPHead(startLine: start, fields: fields), length: length)
    }
}
