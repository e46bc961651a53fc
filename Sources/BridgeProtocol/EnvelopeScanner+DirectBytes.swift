import BridgeJSON

/// The byte tests of ``EnvelopeScanner/scanDirect(_:direction:)``: each reads at `i` and
/// moves `i` past what it took, or leaves it and answers no.
extension EnvelopeScanner {
    /// The message's key at `i` (with its quotes) as its bit in ``Top``.
    @inline(__always)
    static func topKey(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> UInt8? {
        guard i &+ 1 < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
        switch b[i &+ 1] {
        case UInt8(ascii: "v"): return JSONBytes.literal(b, &i, "\"version\"") ? Top.version : nil
        case UInt8(ascii: "c"): return JSONBytes.literal(b, &i, "\"correlationId\"") ? Top.correlationId : nil
        case UInt8(ascii: "t"):
            if JSONBytes.literal(b, &i, "\"type\"") { return Top.type }
            return JSONBytes.literal(b, &i, "\"timestamp\"") ? Top.timestamp : nil
        case UInt8(ascii: "p"): return JSONBytes.literal(b, &i, "\"payload\"") ? Top.payload : nil
        default: return nil
        }
    }

    /// `payload`'s key at `i`: 1 `action`, 2 `data`, 4 `status`, 8 `error`.
    @inline(__always)
    static func payloadKey(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> UInt8? {
        guard i &+ 1 < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
        switch b[i &+ 1] {
        case UInt8(ascii: "a"): return JSONBytes.literal(b, &i, "\"action\"") ? 1 : nil
        case UInt8(ascii: "d"): return JSONBytes.literal(b, &i, "\"data\"") ? 2 : nil
        case UInt8(ascii: "s"): return JSONBytes.literal(b, &i, "\"status\"") ? 4 : nil
        case UInt8(ascii: "e"): return JSONBytes.literal(b, &i, "\"error\"") ? 8 : nil
        default: return nil
        }
    }

    /// `payload.error`'s key at `i`: 1 `code`, 2 `message`, 4 `recoverable`.
    @inline(__always)
    static func errorKey(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> UInt8? {
        guard i &+ 1 < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
        switch b[i &+ 1] {
        case UInt8(ascii: "c"): return JSONBytes.literal(b, &i, "\"code\"") ? 1 : nil
        case UInt8(ascii: "m"): return JSONBytes.literal(b, &i, "\"message\"") ? 2 : nil
        case UInt8(ascii: "r"): return JSONBytes.literal(b, &i, "\"recoverable\"") ? 4 : nil
        default: return nil
        }
    }

    /// The `:` after a key, with the whitespace around it.
    @inline(__always)
    static func colon(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Bool {
        JSONBytes.skipWhitespace(b, &i)
        guard i < b.count, b[i] == UInt8(ascii: ":") else { return false }
        i &+= 1
        JSONBytes.skipWhitespace(b, &i)
        return true
    }

    /// After a member's value: `,` (false: another member follows) or `}` (true), with
    /// the whitespace before it; nil for anything else.
    @inline(__always)
    static func memberEnd(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Bool? {
        JSONBytes.skipWhitespace(b, &i)
        guard i < b.count else { return nil }
        let c = b[i]
        i &+= 1
        if c == UInt8(ascii: ",") { return false }
        if c == UInt8(ascii: "}") { return true }
        return nil
    }

    /// The index in `quoted` of the string value at `i` (its bytes with their quotes).
    @inline(__always)
    static func known(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ quoted: [[UInt8]]) -> Int? {
        let rest = b.count &- i
        return quoted.withUnsafeBufferPointer { q -> Int? in
            for k in q.indices {
                let n = q[k].count
                guard n <= rest else { continue }
                if q[k].withUnsafeBytes({ JSONBytes.equal(b.baseAddress! + i, $0.baseAddress!, count: n) }) {
                    i &+= n
                    return k
                }
            }
            return nil
        }
    }

    /// ``MessageType/known``, each with its quotes, and the indices of request and response.
    static let quotedTypes: [[UInt8]] = MessageType.known.map { Array("\"\($0.rawValue)\"".utf8) }
    static let requestIndex = MessageType.known.firstIndex(of: .request)!
    static let responseIndex = MessageType.known.firstIndex(of: .response)!

    /// ``Status/known``, each with its quotes.
    static let quotedStatuses: [[UInt8]] = Status.known.map { Array("\"\($0.rawValue)\"".utf8) }

    /// Epoch milliseconds at `i`: a JSON integer of digits only (no sign, fraction,
    /// exponent or leading zero), at most 19 digits and `maxBytes`, that fits in
    /// `Int64` and is at least ``secondsThreshold``.
    @inline(__always)
    static func milliseconds(_ b: UnsafeRawBufferPointer, _ i: inout Int, maxBytes: Int) -> Int64? {
        let start = i
        guard i < b.count, b[i] >= UInt8(ascii: "1"), b[i] <= UInt8(ascii: "9") else { return nil }
        // Eighteen digits cannot overflow: read eight at a time, no check per digit (a
        // multiply checked for overflow per digit was a sixth of the walk). A 19th is
        // checked; a 20th is too many.
        let run = JSONBytes.leadingDigits(b, from: start, max: 18)
        var j = run.end, v = Int64(truncatingIfNeeded: run.value)
        if j == start &+ 18, j < b.count, b[j] &- UInt8(ascii: "0") <= 9 {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(b[j] &- UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            v = s
            j &+= 1
            if j < b.count, b[j] &- UInt8(ascii: "0") <= 9 { return nil }  // a 20th digit
        }
        if j < b.count, b[j] == UInt8(ascii: ".") || b[j] == UInt8(ascii: "e") || b[j] == UInt8(ascii: "E") { return nil }
        guard j - start <= 19, j - start <= maxBytes, v >= secondsThreshold else { return nil }
        i = j
        return v
    }
}
