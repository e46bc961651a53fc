#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The record line exactly as the writer lays it out (``ArchiveLineEncoder``):
/// `{"seq":N,"t":N,"dir":"…","conn":"…","msg":…}`, no spaces, the members in that order.
/// ``ArchiveInterpreter/plainFields(_:accept:)`` tries this first: its keys are compared
/// as words where they must stand, not found and matched one by one. Any other layout
/// (spaces, another order, a missing or repeated member) is left to the general read,
/// which takes every plain line; this one takes a subset of them, with the same fields.
extension ArchiveInterpreter {
    /// The members before `msg` of a line in the writer's layout, and where `msg`'s value
    /// starts; nil for any other layout (the general read decides).
    static func canonicalFields(_ b: UnsafeRawBufferPointer) -> (fields: PlainFields, msg: Int)? {
        var i = 0
        guard word(b, &i, #"{"seq":"#), let (seq, e1) = plainInteger(b, from: i, negative: false) else { return nil }
        i = e1
        guard word(b, &i, #","t":"#), let (time, e2) = plainInteger(b, from: i, negative: true) else { return nil }
        i = e2
        guard word(b, &i, #","dir":""#), let dir = printable(b, &i),
              word(b, &i, #","conn":""#), let conn = printable(b, &i),
              word(b, &i, #","msg":"#) else { return nil }
        // Spaces before the value, as the general read skips them.
        i = RecordLineScanner.skipSpace(b, i)
        guard i < b.count else { return nil }
        return (PlainFields(seq: Int(seq), time: time, dir: dir, conn: conn, msg: 0..<0), i)
    }

    /// Whether the bytes at `i` are `text`; `i` then moves past them.
    @inline(__always)
    static func word(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ text: StaticString) -> Bool {
        let k = text.utf8CodeUnitCount
        guard i &+ k <= b.count else { return false }
        let p = b.baseAddress! + i, q = UnsafeRawPointer(text.utf8Start)
        let same: Bool
        if k >= 8 {
            same = p.loadUnaligned(as: UInt64.self) == q.loadUnaligned(as: UInt64.self)
                && (p + (k &- 8)).loadUnaligned(as: UInt64.self) == (q + (k &- 8)).loadUnaligned(as: UInt64.self)
        } else if k >= 4 {
            same = p.loadUnaligned(as: UInt32.self) == q.loadUnaligned(as: UInt32.self)
                && (p + (k &- 4)).loadUnaligned(as: UInt32.self) == (q + (k &- 4)).loadUnaligned(as: UInt32.self)
        } else {
            same = memcmp(p, q, k) == 0
        }
        guard same else { return false }
        i &+= k
        return true
    }

    /// The contents of the string whose opening quote is just before `i`, up to its
    /// closing quote, when they are printable ASCII without a backslash (``plainString(_:_:)``);
    /// `i` then moves past the closing quote.
    @inline(__always)
    static func printable(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> Range<Int>? {
        let start = i
        var k = i
        while k < b.count {
            let c = b[k]
            if c == UInt8(ascii: "\"") {
                i = k &+ 1
                return start..<k
            }
            guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\") else { return nil }
            k &+= 1
        }
        return nil
    }
}
