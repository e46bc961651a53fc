/// The validator's first try: one loop over the bytes with an explicit stack, no call
/// per value and nothing thrown, for the JSON that messages are (compact, strings
/// without escapes). It answers only "valid": anything it does not take (an escape,
/// a control character, invalid UTF-8, an unusual number, any error) leaves the answer
/// to ``validateDocument()``, which says exactly what is wrong and where. So it is
/// stricter than the validator, never looser (the validator's tests hold both to the
/// parser, on every JSONTestSuite file and their mutations).
extension ParserState {
    /// Nesting the loop follows (one bit per level); deeper input is left to the validator.
    static let quickMaxDepth = 63

    /// True when `b` is certainly one valid JSON text under `limits`; false when the
    /// validator must decide.
    static func quickValid(_ b: UnsafeRawBufferPointer, limits: JSONLimits) -> Bool {
        let n = b.count
        // No string, array or object can outgrow the input: below these, only depth and
        // number length need a count.
        guard n > 0, n <= limits.maxInputBytes, n <= limits.maxStringBytes, n <= limits.maxMembers else { return false }
        let maxDepth = Swift.min(limits.maxDepth, quickMaxDepth)
        var i = 0
        var objects: UInt64 = 0  // bit d: the container at depth d + 1 is an object
        var depth = 0
        var expectKey = false
        JSONBytes.skipWhitespace(b, &i)
        while true {
            // A value (or, after `{` or `,` in an object, a key and its colon first).
            guard i < n else { return false }
            if expectKey {
                guard b[i] == UInt8(ascii: "\""), shortString(b, &i) || quickString(b, &i) else { return false }
                JSONBytes.skipWhitespace(b, &i)
                guard i < n, b[i] == UInt8(ascii: ":") else { return false }
                i &+= 1
                JSONBytes.skipWhitespace(b, &i)
                guard i < n else { return false }
            }
            let c = b[i]
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maxDepth else { return false }
                let isObject = c == UInt8(ascii: "{")
                if isObject { objects |= 1 << UInt64(depth) } else { objects &= ~(1 << UInt64(depth)) }
                depth &+= 1
                i &+= 1
                JSONBytes.skipWhitespace(b, &i)
                guard i < n else { return false }
                if b[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i &+= 1
                    depth &-= 1
                } else {
                    expectKey = isObject
                    continue
                }
            case UInt8(ascii: "\""):
                guard shortString(b, &i) || quickString(b, &i) else { return false }
            case UInt8(ascii: "t"):
                guard literal(b, &i, 0x74_72_75_65, 4) else { return false }
            case UInt8(ascii: "n"):
                guard literal(b, &i, 0x6E_75_6C_6C, 4) else { return false }
            case UInt8(ascii: "f"):
                guard i &+ 5 <= n, b[i &+ 4] == UInt8(ascii: "e"), literal(b, &i, 0x66_61_6C_73, 5) else { return false }
            default:
                guard number(b, &i, maxBytes: limits.maxNumberBytes) else { return false }
            }
            // After a value: `,` for another, or the closing brackets.
            while true {
                JSONBytes.skipWhitespace(b, &i)
                if depth == 0 { return i == n }
                guard i < n else { return false }
                let inObject = objects & (1 << UInt64(depth &- 1)) != 0
                let d = b[i]
                i &+= 1
                if d == UInt8(ascii: ",") {
                    JSONBytes.skipWhitespace(b, &i)
                    expectKey = inObject
                    break
                }
                guard d == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                depth &-= 1
            }
        }
    }

    /// A string at `i` (its quote) of printable ASCII without escapes that closes within
    /// the sixteen bytes after the quote (``shortStringEnd(_:from:)``), inline in the
    /// loop; `i` then past its closing quote. False (and `i` unchanged) for any other
    /// string, which ``quickString(_:_:)`` then reads.
    @inline(__always)
    static func shortString(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Bool {
        guard let end = shortStringEnd(b, from: i &+ 1) else { return false }
        i = end &+ 1
        return true
    }

    /// A string at `i` (its quote) without escapes; `i` then past its closing quote.
    @inline(__always)
    static func quickString(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Bool {
        let (end, stop) = plainStringEnd(b, from: i &+ 1)
        guard stop == UInt8(ascii: "\"") else { return false }
        i = end &+ 1
        return true
    }

    /// `true`, `null` (4 bytes) or `false` (5, its last checked by the caller) at `i`,
    /// by its first four bytes big-endian.
    @inline(__always)
    static func literal(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ first4: UInt32, _ length: Int) -> Bool {
        guard i &+ length <= b.count, UInt32(bigEndian: b.loadUnaligned(fromByteOffset: i, as: UInt32.self)) == first4 else { return false }
        i &+= length
        return true
    }

    /// An RFC 8259 number at `i` of at most `maxBytes`; `i` then past it.
    @inline(__always)
    static func number(_ b: UnsafeRawBufferPointer, _ i: inout Int, maxBytes: Int) -> Bool {
        let n = b.count, start = i
        var j = i
        @inline(__always) func digit(_ k: Int) -> Bool { k < n && b[k] &- 0x30 <= 9 }
        if j < n, b[j] == UInt8(ascii: "-") { j &+= 1 }
        guard digit(j) else { return false }
        if b[j] == UInt8(ascii: "0") {
            j &+= 1
            if digit(j) { return false }
        } else {
            while digit(j) { j &+= 1 }
        }
        if j < n, b[j] == UInt8(ascii: ".") {
            j &+= 1
            guard digit(j) else { return false }
            while digit(j) { j &+= 1 }
        }
        if j < n, b[j] | 0x20 == UInt8(ascii: "e") {
            j &+= 1
            if j < n, b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-") { j &+= 1 }
            guard digit(j) else { return false }
            while digit(j) { j &+= 1 }
        }
        guard j &- start <= maxBytes else { return false }
        i = j
        return true
    }
}
