extension ParserState {
    /// Parses a string; `i` is at the opening quote. Leaves `i` after the closing quote.
    mutating func parseString() throws(JSONError) -> String {
        let quote = i
        let (j, escaped) = try scanPlainString(quote: quote)
        if escaped { return try parseEscapedString(quote: quote, prefixEnd: j) }
        i = j + 1
        return String(decoding: UnsafeRawBufferPointer(rebasing: b[(quote + 1)..<j]), as: UTF8.self)
    }

    /// The slow path: the string holds escapes. `prefixEnd` is the first backslash.
    mutating func parseEscapedString(quote: Int, prefixEnd: Int) throws(JSONError) -> String {
        let start = quote + 1
        let n = b.count
        var out: [UInt8] = []
        out.reserveCapacity(min(64 + (prefixEnd - start) * 2, limits.maxStringBytes))
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[start..<prefixEnd]))
        var j = prefixEnd
        while j < n {
            if j - start > limits.maxStringBytes {
                throw fail(.stringTooLong, at: quote, "string is over the limit of \(limits.maxStringBytes) bytes")
            }
            var run = j
            while run &+ 8 <= n && plainStringBytes8(at: run) { run &+= 8 }
            if run > j {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[j..<run]))
                j = run
                continue
            }
            let c = b[j]
            if c == UInt8(ascii: "\"") {
                i = j + 1
                return String(decoding: out, as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") {
                guard j + 1 < n else { break }
                let e = b[j + 1]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e); j += 2
                case UInt8(ascii: "b"): out.append(0x08); j += 2
                case UInt8(ascii: "f"): out.append(0x0C); j += 2
                case UInt8(ascii: "n"): out.append(0x0A); j += 2
                case UInt8(ascii: "r"): out.append(0x0D); j += 2
                case UInt8(ascii: "t"): out.append(0x09); j += 2
                case UInt8(ascii: "u"):
                    let scalar = try unicodeEscape(at: j)
                    appendUTF8(scalar.value, to: &out)
                    j += scalar.value > 0xFFFF ? 12 : 6
                default:
                    throw fail(.invalidEscape, at: j, "invalid escape '\\\(describe(e).trimmingQuotes)': JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
                }
                continue
            }
            if c < 0x20 {
                throw fail(.controlCharacter, at: j, "unescaped control character \(describe(c)) in a string: write it as an escape such as \\n or \\u00XX")
            }
            if c < 0x80 {
                out.append(c)
                j += 1
            } else {
                let len = utf8SequenceLength(at: j)
                guard len > 0 else { throw invalidUTF8(at: j) }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[j..<(j + len)]))
                j += len
            }
        }
        throw fail(.unexpectedEnd, at: n, "input ended inside the string that starts at byte \(quote)")
    }

    /// Whether the eight bytes at `k` (which must be in bounds) are all plain string
    /// content: printable ASCII other than `"` and `\`. A SWAR test with no false "yes":
    /// a byte below 0x20, equal to 0x22 or 0x5C, or at or above 0x80 sets its high bit
    /// in `t`, and borrows between bytes only start at such a byte.
    @inline(__always)
    func plainStringBytes8(at k: Int) -> Bool {
        Self.specialStringBytes8(b, at: k) == 0
    }

    /// Reads `\uXXXX` (and its low-surrogate partner when it is a high surrogate) at `j`.
    func unicodeEscape(at j: Int) throws(JSONError) -> Unicode.Scalar {
        let high = try hex4(at: j + 2, escapeAt: j)
        if high >= 0xDC00 && high <= 0xDFFF {
            throw fail(.loneSurrogate, at: j, "\\u\(hexString(high)) is a low surrogate with no high surrogate before it")
        }
        if high >= 0xD800 && high <= 0xDBFF {
            guard j + 6 < b.count, j + 7 < b.count || b[j + 6] != UInt8(ascii: "\\") else {
                throw fail(.unexpectedEnd, at: b.count, "input ended after the high surrogate \\u\(hexString(high)) at byte \(j): expected a \\u low surrogate")
            }
            guard b[j + 6] == UInt8(ascii: "\\"), j + 7 < b.count, b[j + 7] == UInt8(ascii: "u") else {
                throw fail(.loneSurrogate, at: j, "\\u\(hexString(high)) is a high surrogate not followed by a \\u low surrogate")
            }
            let low = try hex4(at: j + 8, escapeAt: j + 6)
            guard low >= 0xDC00 && low <= 0xDFFF else {
                throw fail(.loneSurrogate, at: j + 6, "\\u\(hexString(high)) must be followed by a low surrogate (\\uDC00-\\uDFFF), not \\u\(hexString(low))")
            }
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            return Unicode.Scalar(value)!
        }
        return Unicode.Scalar(high)!
    }

    func hex4(at k: Int, escapeAt: Int) throws(JSONError) -> UInt32 {
        var v: UInt32 = 0
        for p in k..<(k + 4) {
            guard p < b.count else {
                throw fail(.unexpectedEnd, at: b.count, "input ended inside the \\u escape at byte \(escapeAt)")
            }
            let c = b[p]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 0x41 + 10)
            default:
                throw fail(.invalidEscape, at: p, "\\u escape at byte \(escapeAt) needs four hex digits, found \(describe(c))")
            }
            v = v << 4 | d
        }
        return v
    }

    func hexString(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// The error for the ill-formed UTF-8 sequence at `j` (where ``utf8SequenceLength(at:)``
    /// returned 0): `unexpected-end` when the input stops inside an otherwise valid
    /// sequence, else `invalid-utf8` with a reason naming the kind of damage.
    func invalidUTF8(at j: Int) -> JSONError {
        let n = b.count
        let c0 = b[j]
        let need: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch c0 {
        case 0x80...0xBF:
            return fail(.invalidUTF8, at: j, "stray UTF-8 continuation \(describe(c0)) with no lead byte before it: the text must be UTF-8")
        case 0xC0, 0xC1:
            return fail(.invalidUTF8, at: j, "overlong UTF-8 encoding (lead \(describe(c0))): the text must be shortest-form UTF-8")
        case 0xF5...0xFF:
            let what = c0 <= 0xF7 ? "would start a code point above U+10FFFF" : "never occurs in UTF-8"
            return fail(.invalidUTF8, at: j, "\(describe(c0)) \(what): the text must be UTF-8")
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xED: need = 2; hi = 0x9F
        case 0xE1...0xEF: need = 2
        case 0xF0: need = 3; lo = 0x90
        case 0xF4: need = 3; hi = 0x8F
        default: need = 3
        }
        for k in 1...need {
            guard j + k < n else {
                return fail(.unexpectedEnd, at: n, "input ended inside the UTF-8 sequence that starts at byte \(j)")
            }
            let c = b[j + k]
            let (l, h) = k == 1 ? (lo, hi) : (UInt8(0x80), UInt8(0xBF))
            if c < l || c > h {
                let what: String
                if k == 1 && c >= 0x80 && c <= 0xBF {
                    switch c0 {
                    case 0xE0, 0xF0: what = "an overlong encoding"
                    case 0xED: what = "a UTF-16 surrogate (U+D800-U+DFFF), which UTF-8 must not encode"
                    default: what = "a code point above U+10FFFF"
                    }
                } else {
                    what = "a truncated sequence: \(describe(c)) at byte \(j + k) is not a continuation byte"
                }
                return fail(.invalidUTF8, at: j, "ill-formed UTF-8 starting with \(describe(c0)): \(what)")
            }
        }
        return fail(.invalidUTF8, at: j, "\(describe(c0)) does not start a well-formed UTF-8 sequence here: the text must be UTF-8")
    }

    /// Length of the well-formed UTF-8 sequence starting at `j` (a non-ASCII lead byte),
    /// or 0 when it is ill-formed or truncated (Unicode 15, table 3-7).
    @inline(__always)
    func utf8SequenceLength(at j: Int) -> Int {
        Self.utf8SequenceLength(b, at: j)
    }

    /// ``utf8SequenceLength(at:)`` in `b`.
    @inline(__always)
    static func utf8SequenceLength(_ b: UnsafeRawBufferPointer, at j: Int) -> Int {
        let n = b.count
        let c0 = b[j]
        @inline(__always) func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            k < n && b[k] >= lo && b[k] <= hi
        }
        switch c0 {
        case 0xC2...0xDF: return cont(j + 1) ? 2 : 0
        case 0xE0: return cont(j + 1, 0xA0, 0xBF) && cont(j + 2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(j + 1) && cont(j + 2) ? 3 : 0
        case 0xED: return cont(j + 1, 0x80, 0x9F) && cont(j + 2) ? 3 : 0
        case 0xF0: return cont(j + 1, 0x90, 0xBF) && cont(j + 2) && cont(j + 3) ? 4 : 0
        case 0xF1...0xF3: return cont(j + 1) && cont(j + 2) && cont(j + 3) ? 4 : 0
        case 0xF4: return cont(j + 1, 0x80, 0x8F) && cont(j + 2) && cont(j + 3) ? 4 : 0
        default: return 0
        }
    }
}

extension String {
    var trimmingQuotes: String {
        if hasPrefix("'") && hasSuffix("'") && count >= 2 { return String(dropFirst().dropLast()) }
        return self
    }
}
