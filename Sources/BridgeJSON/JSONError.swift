/// Why a JSON text was rejected, and where.
///
/// `offset` is the 0-based byte offset of the offending byte; `line` and `column` are
/// 1-based, counted in lines (LF, CR or CRLF) and bytes, like a compiler diagnostic.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable reason. An open set: new codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable spelling, e.g. `unexpected-byte`.
        public let rawValue: String
        /// Wraps a raw code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The spelling.
        public var description: String { rawValue }

        /// The input ended inside a value.
        public static let unexpectedEnd = Code(rawValue: "unexpected-end")
        /// A byte that cannot start or continue the value here.
        public static let unexpectedByte = Code(rawValue: "unexpected-byte")
        /// Non-whitespace after the single top-level value.
        public static let trailingData = Code(rawValue: "trailing-data")
        /// The input is empty or only whitespace.
        public static let empty = Code(rawValue: "empty")
        /// A number that breaks the RFC 8259 grammar (leading zero, lone `-`, `1.`, ...).
        public static let invalidNumber = Code(rawValue: "invalid-number")
        /// An unknown escape, or `\u` not followed by four hex digits.
        public static let invalidEscape = Code(rawValue: "invalid-escape")
        /// A `\u` escape for a surrogate half that is not part of a valid pair.
        public static let loneSurrogate = Code(rawValue: "lone-surrogate")
        /// An unescaped control character (U+0000–U+001F) inside a string.
        public static let controlCharacter = Code(rawValue: "control-character")
        /// Bytes that are not well-formed UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalid-utf8")
        /// The input is longer than ``JSONLimits/maxInputBytes``.
        public static let inputTooLarge = Code(rawValue: "input-too-large")
        /// Nesting deeper than ``JSONLimits/maxDepth``.
        public static let tooDeep = Code(rawValue: "too-deep")
        /// A string longer than ``JSONLimits/maxStringBytes``.
        public static let stringTooLong = Code(rawValue: "string-too-long")
        /// An object or array with more than ``JSONLimits/maxMembers`` entries.
        public static let tooManyMembers = Code(rawValue: "too-many-members")
        /// A number lexeme longer than ``JSONLimits/maxNumberBytes``.
        public static let numberTooLong = Code(rawValue: "number-too-long")
    }

    /// What went wrong.
    public var code: Code
    /// 0-based byte offset of the problem in the input.
    public var offset: Int
    /// 1-based line of `offset`.
    public var line: Int
    /// 1-based byte column of `offset` within its line.
    public var column: Int
    /// A sentence a person understands, e.g. "expected ':' after object key".
    public var reason: String

    /// Creates an error; `line`/`column` are usually filled in by the parser.
    public init(code: Code, offset: Int, line: Int = 0, column: Int = 0, reason: String) {
        self.code = code
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `line:column (byte offset): reason`.
    public var description: String {
        "\(line):\(column) (byte \(offset)): \(reason)"
    }
}

/// A 1-based line and column for a byte offset in a buffer.
public struct SourceLocation: Sendable, Hashable {
    /// 1-based line number (LF, CR and CRLF each end a line; CRLF counts once).
    public var line: Int
    /// 1-based byte column within the line.
    public var column: Int

    /// Computes the location of `offset` (clamped to the buffer) by scanning from the start.
    public init(offset: Int, in bytes: UnsafeRawBufferPointer) {
        var line = 1
        var lineStart = 0
        var i = 0
        let end = min(max(offset, 0), bytes.count)
        while i < end {
            let c = bytes[i]
            if c == 0x0A {
                line += 1
                lineStart = i + 1
            } else if c == 0x0D && !(i + 1 < bytes.count && bytes[i + 1] == 0x0A) {
                // A lone CR ends a line; the CR of a CRLF does not (its LF does), so the
                // LF of a CRLF still belongs to the line it ends.
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        self.line = line
        self.column = end - lineStart + 1
    }

    /// Computes the location of `offset` in a byte array.
    public init(offset: Int, in bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { SourceLocation(offset: offset, in: $0) }
    }
}
