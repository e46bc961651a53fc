import BridgeArchive
import BridgeProtocol

/// `bridgescope validate` over any input, judged by content (``InputKind``): a file of
/// bare envelopes (one JSON text, or one per line), a tap log (each line's message), or a
/// session archive (each record's message). Findings are placed by line, or by record
/// number for an archive, so the answer points where to look whatever the input was.
public struct InputValidator: Sendable {
    /// One finding and where it is.
    public struct Item: Sendable, Hashable {
        /// `line` (envelope files, tap logs) or `record` (archives).
        public var unit: String
        /// The line or record number (1-based).
        public var number: Int
        /// 1-based byte column in the message (in the line for envelope files).
        public var column: Int
        /// 0-based byte offset in the file (envelope files) or the message.
        public var offset: Int
        /// The finding.
        public var finding: Finding
    }

    /// The result for one input.
    public struct Result: Sendable {
        /// What the input was.
        public var kind: InputKind
        /// Messages examined.
        public var messages: Int
        /// Findings in input order.
        public var items: [Item]
        /// Whether any finding has error severity.
        public var hasErrors: Bool { items.contains { $0.finding.severity == .error } }
    }

    /// Treat an envelope file as one envelope per line even without a `.jsonl`/`.ndjson` name.
    public var lines: Bool
    /// Check RFC 8259 syntax only.
    public var syntaxOnly: Bool

    /// Creates a validator.
    public init(lines: Bool = false, syntaxOnly: Bool = false) {
        self.lines = lines
        self.syntaxOnly = syntaxOnly
    }

    /// Validates the input at `path` (`-`: standard input, read once). Throws
    /// `unreadable-input` when it cannot be read, `unsupported-input` for a packet
    /// capture or anything else that holds no envelopes, with what to do instead.
    public func validate(path: String) throws(AnalysisError) -> Result {
        let input = try SessionInput.judge(path)
        switch input.kind {
        case .archive:
            return try archive(input)
        case .tapLog:
            return try tapLog(input)
        case .envelopes, .unknown, .empty:
            // Unknown text is validated as envelopes: the findings say what is wrong.
            let bytes = try Self.readAll(input)
            let lower = path.lowercased()
            // A named file keeps its contract (.jsonl/.ndjson or --lines: one per line);
            // standard input has no name, so a first line that is a whole object decides.
            let isLines = lines || lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") || (path == "-" && Self.looksLikeLines(bytes))
            let report = MessageValidator(layout: isLines ? .lines : .single, syntaxOnly: syntaxOnly).validate(bytes)
            return Result(kind: input.kind == .unknown ? .envelopes : input.kind, messages: report.messages,
                          items: report.findings.map { Item(unit: "line", number: $0.line, column: $0.column, offset: $0.offset, finding: $0.finding) })
        default:
            throw AnalysisError(.unsupportedInput, "\(input.name) is \(input.kind), which holds no envelopes to validate: \(input.kind.advice(path: path))")
        }
    }

    /// More than one line, and the first is a complete JSON object on its own.
    static func looksLikeLines(_ bytes: [UInt8]) -> Bool {
        guard let nl = bytes.firstIndex(of: 0x0A), bytes[(nl + 1)...].contains(where: { $0 == UInt8(ascii: "{") }) else { return false }
        let first = Array(bytes[..<nl])
        return MessageValidator(layout: .single, syntaxOnly: true).validate(first).findings.isEmpty
    }

    func tapLog(_ input: PeekedInput) throws(AnalysisError) -> Result {
        var parser = TapLogParser()
        var result = Result(kind: .tapLog, messages: 0, items: [])
        let single = MessageValidator(layout: .single, syntaxOnly: syntaxOnly)
        func take(_ entries: [TapLogParser.Entry]) {
            for e in entries {
                switch e {
                case .message(let m):
                    result.messages += 1
                    for f in single.validate(m.payload).findings {
                        result.items.append(Item(unit: "line", number: m.line, column: f.column, offset: f.offset, finding: f.finding))
                    }
                case .error(let err):
                    result.items.append(Item(unit: "line", number: err.line, column: 1, offset: 0,
                                             finding: Finding(.captureError, (err.messageImported ? "tap line imported in part: " : "tap line not imported: ") + err.reason)))
                case .event: continue
                }
            }
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try Self.read(input, into: &chunk)
            if n == 0 { break }
            take(chunk[0..<n].withUnsafeBytes { parser.feed($0) })
        }
        take(parser.finish())
        return result
    }

    func archive(_ input: PeekedInput) throws(AnalysisError) -> Result {
        let reader: ArchiveReader
        do {
            reader = try ArchiveReader(source: input)
        } catch {
            throw AnalysisError(.unreadableInput, "\(input.name): \(error.message)")
        }
        var result = Result(kind: .archive, messages: 0, items: [])
        let single = MessageValidator(layout: .single, syntaxOnly: syntaxOnly)
        while let item = reader.next() {
            guard case .record(let r) = item else { continue }
            result.messages += 1
            for f in single.validate(r.payload).findings {
                result.items.append(Item(unit: "record", number: r.seq, column: f.column, offset: f.offset, finding: f.finding))
            }
        }
        return result
    }

    static func read(_ input: PeekedInput, into chunk: inout [UInt8]) throws(AnalysisError) -> Int {
        var failure: ArchiveError?
        let n = chunk.withUnsafeMutableBytes { buf -> Int in
            do throws(ArchiveError) { return try input.read(into: buf) } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw AnalysisError(.unreadableInput, "\(input.name): \(failure.message)") }
        return n
    }

    static func readAll(_ input: PeekedInput) throws(AnalysisError) -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try read(input, into: &chunk)
            if n == 0 { return all }
            all += chunk[0..<n]
        }
    }
}
