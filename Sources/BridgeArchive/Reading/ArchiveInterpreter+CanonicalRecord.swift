import BridgeJSON

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
        guard JSONBytes.literal(b, &i, #"{"seq":"#), let (seq, e1) = plainInteger(b, from: i, negative: false) else { return nil }
        i = e1
        guard JSONBytes.literal(b, &i, #","t":"#), let (time, e2) = plainInteger(b, from: i, negative: true) else { return nil }
        i = e2
        guard JSONBytes.literal(b, &i, #","dir":""#), let dir = printable(b, &i),
              JSONBytes.literal(b, &i, #","conn":""#), let conn = printable(b, &i),
              JSONBytes.literal(b, &i, #","msg":"#) else { return nil }
        // Spaces before the value, as the general read skips them.
        i = RecordLineScanner.skipSpace(b, i)
        guard i < b.count else { return nil }
        return (PlainFields(seq: Int(seq), time: time, dir: dir, conn: conn, msg: 0..<0), i)
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
