import BridgeJSON
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
package enum RecordLineScanner {
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

    /// Whether `c` ends a number or literal for ``valueEnd(_:_:maxDepth:)``: `,` `}` `]`,
    /// a space or a tab.
    @inline(__always)
    static func endsScalar(_ c: UInt8) -> Bool {
        c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c == 0x20 || c == 0x09
    }

    @inline(__always)
    static func skipSpace(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int {
        var i = start
        JSONBytes.skipWhitespace(b, &i)
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
            while i < b.count, !endsScalar(b[i]) { i += 1 }
            return i > start ? i : nil
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
