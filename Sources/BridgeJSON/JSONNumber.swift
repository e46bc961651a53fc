/// A JSON number kept as its exact source lexeme, converted on demand.
///
/// Keeping the lexeme means `1700000000000`, `1.0` and `1e2` survive a parse and a
/// write unchanged, and a 13-digit millisecond timestamp converts to `Int64` exactly.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number exactly as written (RFC 8259 §6 grammar).
    public let lexeme: String

    /// Wraps a lexeme that is already known to match the RFC 8259 number grammar.
    /// Use ``init(validating:)`` for untrusted text.
    public init(uncheckedLexeme: String) {
        self.lexeme = uncheckedLexeme
    }

    /// Wraps `lexeme` when it matches the RFC 8259 number grammar, else `nil`.
    public init?(validating lexeme: String) {
        var utf8 = Array(lexeme.utf8)
        let ok = utf8.withUnsafeMutableBytes { buf -> Bool in
            JSONNumber.grammarLength(UnsafeRawBufferPointer(buf), from: 0) == buf.count && buf.count > 0
        }
        guard ok else { return nil }
        self.lexeme = lexeme
    }

    /// A number from an integer.
    public init(_ value: Int64) {
        self.lexeme = String(value)
    }

    /// A number from a finite double (shortest round-trip form); `nil` for NaN or infinity,
    /// which JSON cannot represent.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            self.lexeme = String(Int64(value))
        } else {
            self.lexeme = "\(value)"
        }
    }

    /// The exact integer value, when the lexeme is an integer (no fraction or exponent)
    /// that fits in `Int64`; `nil` otherwise (`1.5`, `1e3`, `1.0`, overflow). `-0` is 0.
    /// A 13-digit millisecond timestamp converts exactly (a `Double` would too, but an
    /// `Int64` also stays exact past 2^53).
    public var int64: Int64? {
        Int64(lexeme)
    }

    /// Whether the lexeme is written as an integer (no `.`, `e` or `E`).
    public var isIntegerLexeme: Bool {
        !lexeme.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The value as a `Double`: correctly rounded; `±infinity` for lexemes too large
    /// (`1e400`), `0` for lexemes too small (`1e-400`).
    public var double: Double {
        Double(lexeme) ?? .nan
    }

    /// The lexeme.
    public var description: String { lexeme }

    /// Length in bytes of the longest prefix at `start` that matches the number grammar,
    /// or 0 when none does. Does not look past the number.
    static func grammarLength(_ b: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start
        let n = b.count
        func digit(_ i: Int) -> Bool { i < n && b[i] >= 0x30 && b[i] <= 0x39 }
        if i < n && b[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else { return 0 }
        if b[i] == 0x30 {
            i += 1
        } else {
            while digit(i) { i += 1 }
        }
        if i < n && b[i] == UInt8(ascii: ".") {
            guard digit(i + 1) else { return 0 }
            i += 1
            while digit(i) { i += 1 }
        }
        if i < n && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            var j = i + 1
            if j < n && (b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-")) { j += 1 }
            guard digit(j) else { return 0 }
            while digit(j) { j += 1 }
            i = j
        }
        return i - start
    }
}
