/// The plain run of a string, shared by the parser, the validator and the member scan:
/// eight bytes at a time (SWAR), as static functions of the bytes (no copy of the state).
extension ParserState {
    /// The plain part of the string whose opening quote is at `quote`, shared by
    /// ``parseString()`` and ``skipString()``: returns the index of the closing quote
    /// (`escaped` false, the length limit checked) or of the first backslash (`escaped`
    /// true; the escaped path checks the limit). Throws for a control character, invalid
    /// UTF-8 or the end of the input. Eight bytes at a time, jumping straight to the
    /// first byte that is not plain content.
    ///
    /// The loop is a static function of the bytes alone and the errors are made in a
    /// cold one: a method that could throw with `self` copied `self` (72 bytes) on every
    /// call, and the copy's 16-byte load over the 8-byte store of `i` just before stalled
    /// the store buffer (half of the validator's string time, by `perf annotate`).
    @inline(__always)
    func scanPlainString(quote: Int) throws(JSONError) -> (end: Int, escaped: Bool) {
        let (j, stop) = Self.stringEnd(b, from: quote &+ 1)
        if stop == UInt8(ascii: "\"") {
            guard j &- quote &- 1 <= limits.maxStringBytes else {
                throw Self.stringTooLong(b, quote: quote, bytes: j &- quote &- 1, limit: limits.maxStringBytes)
            }
            return (j, false)
        }
        if stop == UInt8(ascii: "\\") { return (j, true) }
        throw Self.plainStringError(b, at: j, quote: quote)
    }

    /// ``plainStringEnd(_:from:)``, with the common case first and inline: a string of
    /// printable ASCII without escapes that closes within the sixteen bytes at `start`
    /// (``shortStringEnd(_:from:)``: one or two SWAR words, no loop). The general loop
    /// is too large to be inlined everywhere, and a call per string (saving five
    /// registers, loading the masks) cost as much as the scan of a short string.
    @inline(__always)
    static func stringEnd(_ b: UnsafeRawBufferPointer, from start: Int) -> (end: Int, stop: UInt8) {
        if let end = shortStringEnd(b, from: start) { return (end, UInt8(ascii: "\"")) }
        return plainStringEnd(b, from: start)
    }

    /// The closing quote of a string whose contents start at `start`, when they are
    /// printable ASCII without a backslash and the quote is among the sixteen bytes at
    /// `start` (as far as `b` has eight-byte words there); nil otherwise.
    @inline(__always)
    static func shortStringEnd(_ b: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start &+ 8 <= b.count else { return nil }
        var special = specialStringBytes8(b, at: start)
        var end = start
        if special == 0 {
            guard start &+ 16 <= b.count else { return nil }
            special = specialStringBytes8(b, at: start &+ 8)
            guard special != 0 else { return nil }
            end &+= 8
        }
        end &+= special.trailingZeroBitCount &>> 3
        return b[end] == UInt8(ascii: "\"") ? end : nil
    }

    /// Where the plain run of the string starting at `start` stops, and on what: its
    /// closing quote (`"`), a backslash (`\\`), or 0 for a control character, an
    /// ill-formed UTF-8 sequence or the end of the input (`end` is then where).
    @inline(__always)
    static func plainStringEnd(_ b: UnsafeRawBufferPointer, from start: Int) -> (end: Int, stop: UInt8) {
        var j = start
        let n = b.count
        while j < n {
            if j &+ 8 <= n {
                let special = specialStringBytes8(b, at: j)
                if special == 0 {
                    j &+= 8
                    continue
                }
                j &+= special.trailingZeroBitCount &>> 3
            }
            let c = b[j]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return (j, c) }
            if c < 0x20 { return (j, 0) }
            if c < 0x80 {
                j &+= 1
            } else {
                let len = utf8SequenceLength(b, at: j)
                guard len > 0 else { return (j, 0) }
                j &+= len
            }
        }
        return (n, 0)
    }

    /// The error ``plainStringEnd(_:from:)`` stopped at (cold: made once per bad input).
    @inline(never)
    static func plainStringError(_ b: UnsafeRawBufferPointer, at j: Int, quote: Int) -> JSONError {
        let s = ParserState(bytes: b, limits: .default)
        guard j < b.count else { return s.fail(.unexpectedEnd, at: b.count, "input ended inside the string that starts at byte \(quote)") }
        let c = b[j]
        if c < 0x20 {
            return s.fail(.controlCharacter, at: j, "unescaped control character \(s.describe(c)) in a string: write it as an escape such as \\n or \\u00XX")
        }
        return s.invalidUTF8(at: j)
    }

    /// The error for a plain string over `maxStringBytes` (cold).
    @inline(never)
    static func stringTooLong(_ b: UnsafeRawBufferPointer, quote: Int, bytes: Int, limit: Int) -> JSONError {
        ParserState(bytes: b, limits: .default)
            .fail(.stringTooLong, at: quote, "string of \(bytes) bytes is over the limit of \(limit) bytes")
    }

    /// The SWAR test of ``plainStringBytes8(at:)`` as a mask over the eight bytes of `b`
    /// at `k`: the high bit of each byte that is not plain string content (below 0x20,
    /// `"`, `\\`, or 0x80 and up) is set, and possibly of bytes after such a byte
    /// (borrows), never of bytes before the first. Its trailing zero bits over eight are
    /// the plain bytes before the first special one (the load is little-endian).
    @inline(__always)
    static func specialStringBytes8(_ b: UnsafeRawBufferPointer, at k: Int) -> UInt64 {
        let x = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: k, as: UInt64.self))
        let ones: UInt64 = 0x0101_0101_0101_0101
        let t = (x &- ones &* 0x20) | ((x ^ (ones &* 0x22)) &- ones) | ((x ^ (ones &* 0x5C)) &- ones) | x
        return t & (ones &* 0x80)
    }
}
