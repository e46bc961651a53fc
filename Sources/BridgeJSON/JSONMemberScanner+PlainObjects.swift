/// A walk for the objects envelopes carry as `data` (`{"side":"front"}`,
/// `{"step":"document-front","percent":40}`, an image's placeholder object): keys and
/// string values without escapes, non-negative integers, `true`, `false`, `null` and
/// objects of the same kind, a few members each. It answers only what
/// ``scanValue(_:at:depth:)``'s general scan would accept, with the same end; anything
/// else (an escape, an array, a negative number or a fraction, a repeated key, a limit
/// reached, more than ``plainObjectMembers`` members) it leaves to the general scan,
/// which decides. The general scan built a ``ParserState`` per value and went through
/// its recursion and key list for every member (about 7% of `analyze` on a session of
/// small messages).
extension JSONMemberScanner {
    /// The most members of one object the walk takes (their keys are compared on the stack).
    static let plainObjectMembers = 8

    /// The end of the object at `start` (inside `depth` levels of containers) when it is
    /// of the plain kind and the general scan accepts it; nil otherwise (not decided).
    func plainObjectEnd(_ b: UnsafeRawBufferPointer, from start: Int, depth: Int) -> Int? {
        let level = depth + 1
        guard level <= limits.maxDepth, level <= Self.maxRecursionDepth, start < b.count,
              b[start] == UInt8(ascii: "{"), let base = b.baseAddress else { return nil }
        var i = start + 1
        JSONBytes.skipWhitespace(b, &i)
        guard i < b.count else { return nil }
        if b[i] == UInt8(ascii: "}") { return i + 1 }
        // Each key's start (high half) and length (low half).
        var keys: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        while true {
            JSONBytes.skipWhitespace(b, &i)
            // A key without an escape, as the general scan takes (``plainString(_:at:)``).
            guard let key = plainString(b, at: &i), count < Self.plainObjectMembers, count < Self.maxCheckedMembers,
                  key.lowerBound < Int(UInt32.max) else { return nil }
            let repeated = withUnsafeBytes(of: keys) { k in
                for n in 0..<count {
                    let e = k.load(fromByteOffset: n * 8, as: UInt64.self)
                    let length = Int(e & 0xFFFF_FFFF), at = Int(e >> 32)
                    if length == key.count && JSONBytes.equal(base + at, base + key.lowerBound, count: length) { return true }
                }
                return false
            }
            guard !repeated else { return nil }
            withUnsafeMutableBytes(of: &keys) {
                $0.storeBytes(of: UInt64(key.lowerBound) << 32 | UInt64(key.count), toByteOffset: count * 8, as: UInt64.self)
            }
            JSONBytes.skipWhitespace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            JSONBytes.skipWhitespace(b, &i)
            guard i < b.count, let valueEnd = plainValueEnd(b, from: i, depth: level) else { return nil }
            i = valueEnd
            count += 1
            guard count <= limits.maxMembers else { return nil }
            JSONBytes.skipWhitespace(b, &i)
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                continue
            }
            return b[i] == UInt8(ascii: "}") ? i + 1 : nil
        }
    }

    /// The end of the member value at `i` (inside `depth` levels) when it is of the plain
    /// kind (see the type's comment); nil otherwise.
    @inline(__always)
    func plainValueEnd(_ b: UnsafeRawBufferPointer, from start: Int, depth: Int) -> Int? {
        var i = start
        switch b[i] {
        case UInt8(ascii: "\""):
            return plainString(b, at: &i) != nil ? i : nil
        case UInt8(ascii: "{"):
            return plainObjectEnd(b, from: i, depth: depth)
        case UInt8(ascii: "t"):
            return JSONBytes.literal(b, &i, "true") ? i : nil
        case UInt8(ascii: "f"):
            return JSONBytes.literal(b, &i, "false") ? i : nil
        case UInt8(ascii: "n"):
            return JSONBytes.literal(b, &i, "null") ? i : nil
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            // A non-negative integer: no leading zero, no fraction or exponent here.
            var j = i + 1
            if b[i] != UInt8(ascii: "0") {
                while j < b.count, b[j] &- UInt8(ascii: "0") <= 9 { j += 1 }
            }
            guard j - i <= limits.maxNumberBytes else { return nil }
            if j < b.count {
                let c = b[j]
                guard c &- UInt8(ascii: "0") > 9, c != UInt8(ascii: "."), c != UInt8(ascii: "e"), c != UInt8(ascii: "E") else { return nil }
            }
            return j
        default:
            return nil
        }
    }
}
