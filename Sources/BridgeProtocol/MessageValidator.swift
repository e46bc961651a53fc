import BridgeJSON

/// A finding placed in a file: which line, column and byte offset.
public struct LocatedFinding: Sendable, Hashable {
    /// 1-based line in the file.
    public var line: Int
    /// 1-based byte column in the line.
    public var column: Int
    /// 0-based byte offset in the file.
    public var offset: Int
    /// The finding.
    public var finding: Finding
}

/// Validates a file's bytes as one envelope, or as one envelope per line, and places
/// every finding in the file. Pure: the caller reads the file.
public struct MessageValidator: Sendable {
    /// How the bytes are laid out.
    public enum Layout: Sendable {
        /// The whole file is one JSON text holding one envelope.
        case single
        /// One envelope per line (JSON Lines); blank lines are skipped.
        case lines
    }

    /// The layout.
    public var layout: Layout
    /// Check RFC 8259 syntax only, not the envelope rules.
    public var syntaxOnly: Bool
    /// Limits per message.
    public var limits: JSONLimits

    /// Creates a validator.
    public init(layout: Layout, syntaxOnly: Bool = false, limits: JSONLimits = .default) {
        self.layout = layout
        self.syntaxOnly = syntaxOnly
        self.limits = limits
    }

    /// The result of validating one file.
    public struct Report: Sendable {
        /// Messages examined (lines with content, or 1 for a single file).
        public var messages: Int
        /// Findings in file order.
        public var findings: [LocatedFinding]
        /// Whether any finding has error severity.
        public var hasErrors: Bool { findings.contains { $0.finding.severity == .error } }
    }

    /// Validates `bytes`.
    public func validate(_ bytes: [UInt8]) -> Report {
        bytes.withUnsafeBytes { validate($0) }
    }

    /// Validates `bytes`.
    public func validate(_ bytes: UnsafeRawBufferPointer) -> Report {
        switch layout {
        case .single:
            return Report(messages: 1, findings: place(check(bytes), base: 0, line: nil, in: bytes))
        case .lines:
            var findings: [LocatedFinding] = []
            var messages = 0
            var start = 0
            var lineNumber = 1
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                var contentEnd = end
                if contentEnd > start && bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                let line = UnsafeRawBufferPointer(rebasing: bytes[start..<contentEnd])
                if line.contains(where: { $0 != 0x20 && $0 != 0x09 }) {
                    messages += 1
                    findings += place(check(line), base: start, line: lineNumber, in: line)
                }
                if end >= bytes.count { break }
                start = end + 1
                lineNumber += 1
            }
            return Report(messages: messages, findings: findings)
        }
    }

    func check(_ message: UnsafeRawBufferPointer) -> [Finding] {
        if !syntaxOnly { return EnvelopeDecoder(limits: limits).decode(message).findings }
        guard message.count <= limits.maxInputBytes else {
            return [Finding(.tooLarge, "message is \(message.count) bytes, over the limit of \(limits.maxInputBytes) bytes", offset: limits.maxInputBytes)]
        }
        do {
            _ = try JSONParser(limits: limits).parse(message)
            return []
        } catch {
            let rule: RuleID = error.code == .tooDeep ? .tooDeep : error.code == .invalidUTF8 ? .invalidUTF8 : .malformedJSON
            return [Finding(rule, error.reason, offset: error.offset)]
        }
    }

    /// Places the findings of one message, locating them all in one pass.
    func place(_ findings: [Finding], base: Int, line: Int?, in message: UnsafeRawBufferPointer) -> [LocatedFinding] {
        let locals = findings.map { min($0.offset ?? 0, message.count) }
        let locations = SourceLocation.locate(locals, in: message)
        return findings.indices.map { i in
            LocatedFinding(line: (line ?? 1) + locations[i].line - 1, column: locations[i].column, offset: base + locals[i], finding: findings[i])
        }
    }
}
