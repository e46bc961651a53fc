extension TapScanner {
    /// Scans the string at `i` (on its opening quote) and moves past its closing quote.
    /// With `decode`, returns its content as UTF-8 (escapes resolved; a surrogate-pair
    /// escape gives its 4-byte sequence). Raw bytes must be valid UTF-8 (Unicode table
    /// 3-7), below U+0020 is not allowed, and a `\u` surrogate must be half of a pair.
    mutating func string(decode: Bool) throws(Invalid) -> [UInt8]? {
        i += 1
        var out: [UInt8] = []
        var runStart = i
        func flush(_ end: Int) {
            if decode && end > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<end])) }
        }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                flush(i)
                i += 1
                return decode ? out : nil
            }
            if c == UInt8(ascii: "\\") {
                flush(i)
                try escape(into: &out, decode: decode)
                runStart = i
                continue
            }
            if c < 0x20 { throw Invalid(offset: i) }
            if c < 0x80 { i += 1; continue }
            try utf8Sequence()
        }
        throw Invalid(offset: i)
    }

    private mutating func escape(into out: inout [UInt8], decode: Bool) throws(Invalid) {
        guard i + 1 < b.count else { throw Invalid(offset: i) }
        let e = b[i + 1]
        let simple: UInt8?
        switch e {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw Invalid(offset: i + 1)
        }
        if let simple {
            if decode { out.append(simple) }
            i += 2
            return
        }
        var scalar = try hex4(at: i + 2)
        i += 6
        if scalar >= 0xDC00 && scalar <= 0xDFFF { throw Invalid(offset: i - 6) }
        if scalar >= 0xD800 && scalar <= 0xDBFF {
            guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else { throw Invalid(offset: i) }
            let low = try hex4(at: i + 2)
            guard low >= 0xDC00 && low <= 0xDFFF else { throw Invalid(offset: i) }
            i += 6
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        if decode { Self.appendUTF8(scalar, to: &out) }
    }

    private func hex4(at j: Int) throws(Invalid) -> UInt32 {
        guard j + 4 <= b.count else { throw Invalid(offset: b.count) }
        var v: UInt32 = 0
        for k in j..<(j + 4) {
            let c = b[k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw Invalid(offset: k)
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// Checks one multi-byte UTF-8 sequence at `i` and moves past it.
    private mutating func utf8Sequence() throws(Invalid) {
        let c = b[i]
        let n: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: throw Invalid(offset: i)
        }
        guard i + n <= b.count else { throw Invalid(offset: i) }
        guard b[i + 1] >= lo && b[i + 1] <= hi else { throw Invalid(offset: i + 1) }
        for k in 2..<n where b[i + k] & 0xC0 != 0x80 { throw Invalid(offset: i + k) }
        i += n
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case ..<0x80: out.append(UInt8(scalar))
        case ..<0x800: out.append(contentsOf: [UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F)])
        case ..<0x10000:
            out.append(contentsOf: [UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)])
        default:
            out.append(contentsOf: [UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F),
                                    UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F)])
        }
    }
}
