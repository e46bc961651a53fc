#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RecordLineScanner {
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
    package static func containerEnd(_ b: UnsafeRawBufferPointer, _ start: Int, maxDepth: Int) -> Int? {
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
}
