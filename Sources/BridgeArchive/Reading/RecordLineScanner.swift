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
            return stringEnd(b, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Short strings (up to 48 bytes) are skipped in the loop, a backslash skipping
            // the byte after it, so a quote ends the string exactly when `stringEnd` says
            // so (an even run of backslashes before it); longer ones (base64 images) go
            // to `stringEnd` and its `memchr`.
            var depth = 0
            var i = start
            let n = b.count
            while i < n {
                switch b[i] {
                case UInt8(ascii: "\""):
                    var j = i + 1
                    let limit = Swift.min(n, i + 48)
                    var closed = false
                    while j < limit {
                        let d = b[j]
                        if d == UInt8(ascii: "\\") {
                            j += 2
                            continue
                        }
                        if d == UInt8(ascii: "\"") {
                            closed = true
                            break
                        }
                        j += 1
                    }
                    if closed {
                        i = j + 1
                    } else {
                        guard let e = stringEnd(b, i) else { return nil }
                        i = e
                    }
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
}
