/// Equality of JSON values compares strings and member names by their exact Unicode
/// scalars (UTF-8 bytes), not by Swift's canonical equivalence: `"é"` (U+00E9) and
/// `"e\u{301}"` are different JSON strings and different member names (RFC 8259 §8.3
/// compares names code unit by code unit). Offsets never take part.
extension JSONValue {
    /// Structural, byte-exact equality (see the extension's note).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a.lexeme.utf8Equals(b.lexeme)
        case let (.string(a), .string(b)): return a.utf8Equals(b)
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }

    /// Hashes consistently with `==` (byte-equal strings are always canonically equal,
    /// so they hash alike).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(1); hasher.combine(v)
        case .number(let n): hasher.combine(2); hasher.combine(n.lexeme)
        case .string(let s): hasher.combine(3); hasher.combine(s)
        case .array(let a): hasher.combine(4); hasher.combine(a)
        case .object(let o): hasher.combine(5); hasher.combine(o)
        }
    }
}

extension String {
    /// Whether both strings hold exactly the same UTF-8 bytes (no Unicode normalization).
    func utf8Equals(_ other: String) -> Bool {
        // Byte-equal strings are canonically equal, so Swift's fast `==` (bitwise for
        // small strings, memcmp for ASCII) rejects almost every pair first.
        guard self == other else { return false }
        let a = self.utf8, b = other.utf8
        guard a.count == b.count else { return false }
        let fast = a.withContiguousStorageIfAvailable { pa in
            b.withContiguousStorageIfAvailable { pb in pa.elementsEqual(pb) }
        }
        if let fast, let result = fast { return result }
        return a.elementsEqual(b)
    }
}

/// A member name as a dictionary key with byte-exact equality (see ``JSONValue``'s `==`).
struct ExactKey: Hashable {
    let key: String
    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool { lhs.key.utf8Equals(rhs.key) }
    func hash(into hasher: inout Hasher) { hasher.combine(key) }
}
