#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the top-level members of one archive line (a JSON object) without building any
/// value: each key and the byte range of its value. Strings are skipped with `memchr`
/// for their closing quote, so a 500 KB base64 image costs a memory scan, not a parse.
///
/// Used by ``ArchiveInterpreter`` to read a record line once: the small members are
/// then parsed on their own, and the `msg` value's bytes go to the envelope decoder,
/// which parses (and so validates) them. The scanner does not validate: it answers
/// nil for anything it does not recognise as a flat object of plain keys, and the line
/// is then decoded in full by BridgeArchive's `ArchiveLineDecoder`, which says exactly
/// what is wrong.
enum RecordLineScanner {
    /// One member: its key's bytes (between the quotes) and its value's bytes.
    struct Member {
        var key: Range<Int>
        var value: Range<Int>
    }

    /// The members of the object `b` holds, in order; nil when `b` is not a flat object
    /// of plain keys (no escapes in keys), or its nesting goes past `maxDepth`.
    static func members(_ b: UnsafeRawBufferPointer, maxDepth: Int) -> [Member]? {
        var i = skipSpace(b, 0)
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        i = skipSpace(b, i + 1)
        var out: [Member] = []
        out.reserveCapacity(6)
        if i < b.count, b[i] == UInt8(ascii: "}") { return skipSpace(b, i + 1) == b.count ? out : nil }
        while true {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
            guard let keyEnd = stringEnd(b, i) else { return nil }
            let key = (i + 1)..<(keyEnd - 1)
            if b[key].contains(UInt8(ascii: "\\")) { return nil }
            i = skipSpace(b, keyEnd)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(b, i + 1)
            guard let valueEnd = valueEnd(b, i, maxDepth: maxDepth) else { return nil }
            out.append(Member(key: key, value: i..<valueEnd))
            i = skipSpace(b, valueEnd)
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: "}") { return skipSpace(b, i + 1) == b.count ? out : nil }
            guard b[i] == UInt8(ascii: ",") else { return nil }
            i = skipSpace(b, i + 1)
        }
    }

    /// Whether the key of `member` is `name` (ASCII).
    static func key(_ member: Member, in b: UnsafeRawBufferPointer, is name: StaticString) -> Bool {
        guard member.key.count == name.utf8CodeUnitCount else { return false }
        return memcmp(b.baseAddress! + member.key.lowerBound, name.utf8Start, member.key.count) == 0
    }

    /// JSON's insignificant whitespace.
    static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    @inline(__always)
    static func skipSpace(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int {
        var i = start
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        return i
    }

    /// The offset after the closing quote of the string opening at `start`.
    static func stringEnd(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        var i = start + 1
        let base = b.baseAddress!
        while i < b.count {
            guard let found = memchr(base + i, Int32(UInt8(ascii: "\"")), b.count - i) else { return nil }
            let q = base.distance(to: UnsafeRawPointer(found))
            var backslashes = 0
            while q - backslashes - 1 > start, b[q - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return q + 1 }
            i = q + 1
        }
        return nil
    }

    /// The offset after the value starting at `start`: a string, an object or array
    /// (brackets counted outside strings), or a literal or number (up to the next `,`,
    /// `}`, `]` or space).
    static func valueEnd(_ b: UnsafeRawBufferPointer, _ start: Int, maxDepth: Int) -> Int? {
        guard start < b.count else { return nil }
        switch b[start] {
        case UInt8(ascii: "\""):
            return shortStringEnd(b, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return containerEnd(b, start, maxDepth: maxDepth)
        default:
            var i = start
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c == 0x20 || c == 0x09 { break }
                i += 1
            }
            return i > start ? i : nil
        }
    }

    /// The offset after the object or array starting at `start`: brackets counted
    /// outside strings (a backslash in a string escaping the byte after it), 64 bytes at
    /// a time (``Block``): where the strings are is worked out for a whole block from its
    /// quotes and backslashes, as simdjson does (escapes by its branchless carry, then a
    /// prefix XOR of the unescaped quotes), and only the brackets outside strings are
    /// visited one by one, and only in a block where the depth could reach 0 or pass
    /// `maxDepth`. A block that lies wholly inside a string hands over to `memchr` for the
    /// string's closing quote (base64 images). A backslash outside any string (never in
    /// valid JSON) sends the value to ``containerEndByBytes(_:_:maxDepth:)``, whose
    /// answer this always is (held by the tests on hostile bytes).
    static func containerEnd(_ b: UnsafeRawBufferPointer, _ start: Int, maxDepth: Int) -> Int? {
        let n = b.count
        guard let base = b.baseAddress, start < n else { return nil }
        let odd: UInt64 = 0xAAAA_AAAA_AAAA_AAAA
        var depth = 0
        var inString: UInt64 = 0  // all ones when the block before ended inside a string
        var nextEscaped: UInt64 = 0  // 1 when the block's first byte is escaped
        var i = start
        while i < n {
            let block = i &+ 64 <= n ? Block(base + i) : Block(tail: UnsafeRawBufferPointer(start: base + i, count: n &- i))
            let quote = block.bits(0x22), backslash = block.bits(0x5C)
            var escaped = nextEscaped
            nextEscaped = 0
            if backslash != 0 {
                let potential = backslash & ~escaped
                let code = (((potential << 1) | odd) &- potential) ^ odd
                escaped = code ^ (backslash | escaped)
                nextEscaped = (code & backslash) >> 63
            }
            let strings = prefixXOR(quote & ~escaped) ^ inString
            if backslash & ~strings != 0 { return containerEndByBytes(b, start, maxDepth: maxDepth) }
            inString = UInt64(bitPattern: Int64(bitPattern: strings) >> 63)
            let opens = block.foldedBits(0x7B) & ~strings, closes = block.foldedBits(0x7D) & ~strings
            let closing = closes.nonzeroBitCount
            if depth > closing && depth &+ opens.nonzeroBitCount <= maxDepth {
                depth &+= opens.nonzeroBitCount &- closing
            } else {
                var s = opens | closes
                while s != 0 {
                    let k = s.trailingZeroBitCount
                    if opens & (1 << UInt64(k)) != 0 {
                        depth += 1
                        if depth > maxDepth { return nil }
                    } else {
                        depth -= 1
                        if depth == 0 { return i &+ k &+ 1 }
                    }
                    s &= s &- 1
                }
            }
            if strings == ~0 {
                // The whole block is inside a string: find its closing quote with memchr.
                guard let q = closingQuote(b, from: i &+ 64) else { return nil }
                i = q &+ 1
                inString = 0
                nextEscaped = 0
            } else {
                i &+= 64
            }
        }
        return nil
    }

    /// The first quote at or after `from` (inside a string) that no backslash escapes.
    static func closingQuote(_ b: UnsafeRawBufferPointer, from: Int) -> Int? {
        let base = b.baseAddress!
        var i = from
        while i < b.count {
            guard let found = memchr(base + i, Int32(UInt8(ascii: "\"")), b.count - i) else { return nil }
            let q = base.distance(to: UnsafeRawPointer(found))
            var backslashes = 0
            while b[q - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return q }
            i = q + 1
        }
        return nil
    }

    /// Each bit set, and every bit above it up to the next bit set, cleared: the bits
    /// inside quotes (the opening quote's set, the closing quote's not).
    @inline(__always)
    static func prefixXOR(_ x: UInt64) -> UInt64 {
        var x = x
        x ^= x << 1
        x ^= x << 2
        x ^= x << 4
        x ^= x << 8
        x ^= x << 16
        x ^= x << 32
        return x
    }

    /// 64 bytes, as four vectors of 16 (past the end of the input: zeros, which match
    /// nothing the scan looks for).
    struct Block {
        var v0, v1, v2, v3: SIMD16<UInt8>

        @inline(__always)
        init(_ p: UnsafeRawPointer) {
            v0 = p.loadUnaligned(as: SIMD16<UInt8>.self)
            v1 = p.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
            v2 = p.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self)
            v3 = p.loadUnaligned(fromByteOffset: 48, as: SIMD16<UInt8>.self)
        }

        init(tail: UnsafeRawBufferPointer) {
            var bytes = (SIMD16<UInt8>(), SIMD16<UInt8>(), SIMD16<UInt8>(), SIMD16<UInt8>())
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: tail.prefix(64))) }
            (v0, v1, v2, v3) = bytes
        }

        /// A bit per byte equal to `c` (byte k: bit k).
        @inline(__always)
        func bits(_ c: UInt8) -> UInt64 {
            let c = SIMD16<UInt8>(repeating: c)
            return Self.gather(v0 .== c) | Self.gather(v1 .== c) << 16 | Self.gather(v2 .== c) << 32 | Self.gather(v3 .== c) << 48
        }

        /// ``bits(_:)`` of the bytes with bit 5 set: `{` for `{` or `[`, `}` for `}` or `]`.
        @inline(__always)
        func foldedBits(_ c: UInt8) -> UInt64 {
            let c = SIMD16<UInt8>(repeating: c), f = SIMD16<UInt8>(repeating: 0x20)
            return Self.gather(v0 | f .== c) | Self.gather(v1 | f .== c) << 16 | Self.gather(v2 | f .== c) << 32
                | Self.gather(v3 | f .== c) << 48
        }

        /// The lanes of a comparison as 16 bits: the top bit of each byte gathered by a multiply.
        @inline(__always)
        static func gather(_ m: SIMDMask<SIMD16<Int8>>) -> UInt64 {
            let v = unsafeBitCast(m, to: SIMD2<UInt64>.self)
            let lo = ((v[0] & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
            let hi = ((v[1] & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
            return lo | hi << 8
        }
    }

    /// ``containerEnd(_:_:maxDepth:)`` read byte by byte, eight bytes at a time while none
    /// is a quote or a bracket (``lanes(_:_:)``); strings skipped by
    /// ``shortStringEnd(_:_:)``. A backslash outside a string is just a byte here.
    static func containerEndByBytes(_ b: UnsafeRawBufferPointer, _ start: Int, maxDepth: Int) -> Int? {
        let n = b.count
        let base = b.baseAddress!
        var depth = 0
        var i = start
        while i < n {
            while i &+ 8 <= n {
                let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let folded = w | 0x2020_2020_2020_2020  // `[` -> `{`, `]` -> `}`
                let m = lanes(w, 0x22) | lanes(folded, 0x7B) | lanes(folded, 0x7D)
                if m == 0 {
                    i &+= 8
                    continue
                }
                i &+= m.trailingZeroBitCount >> 3
                break
            }
            guard i < n else { return nil }
            switch b[i] {
            case UInt8(ascii: "\""):
                guard let e = shortStringEnd(b, i) else { return nil }
                i = e
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > maxDepth { return nil }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return i + 1 }
            default: break
            }
            i += 1
        }
        return nil
    }

    /// ``stringEnd(_:_:)`` for short strings: eight bytes at a time to the first quote or
    /// backslash, a backslash skipping the byte after it, so a quote ends the string
    /// exactly when `stringEnd` says so; past 64 bytes (base64 images) `stringEnd` and
    /// its `memchr` take over.
    @inline(__always)
    static func shortStringEnd(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        let n = b.count
        let base = b.baseAddress!
        var j = start &+ 1
        while true {
            while j &+ 8 <= n {
                let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: j, as: UInt64.self))
                let m = lanes(w, 0x22) | lanes(w, 0x5C)
                if m == 0 {
                    j &+= 8
                    if j &- start > 64 { return stringEnd(b, start) }
                    continue
                }
                j &+= m.trailingZeroBitCount >> 3
                break
            }
            guard j < n else { return nil }
            let c = b[j]
            if c == UInt8(ascii: "\"") { return j + 1 }
            j += c == UInt8(ascii: "\\") ? 2 : 1
        }
    }

    /// The high bit of every byte of `w` that equals `c`, and possibly of bytes above the
    /// first such byte (a borrow): the lowest bit set is always exact.
    @inline(__always)
    static func lanes(_ w: UInt64, _ c: UInt8) -> UInt64 {
        let x = w ^ (0x0101_0101_0101_0101 &* UInt64(c))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }
}
