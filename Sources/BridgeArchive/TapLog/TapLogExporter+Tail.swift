import BridgeJSON

/// A plain record line whose tail is already the tap line: in the writer's layout
/// (`{"seq":N,"t":T,"dir":"D","conn":"C","msg":M}`), the tap line
/// (``ArchiveLineEncoder/tapRecord(time:quotedDirection:quotedConnection:payload:encoding:into:)``)
/// is `{` and the bytes from `"t"` on. Copying them spares writing the time again in
/// decimal and four appends per line.
extension TapLogExporter {
    /// Where the tail `"t":...}` of `b` starts, when `{` and that tail are, byte for
    /// byte, what ``ArchiveLineEncoder/tapRecord(time:quotedDirection:quotedConnection:payload:encoding:into:)``
    /// writes for the line's fields (`f`, its message accepted verbatim) with lines of
    /// at most `maxLineBytes`; nil for any other line, which is then encoded.
    ///
    /// Every byte of the tail is checked against what the encoder writes: the message
    /// member's key right before the message, which ends the line's object; the
    /// connection and direction members right before it, as the encoder writes them; and
    /// the time as its decimal digits (``ArchiveInterpreter/plainInteger(_:from:negative:)``
    /// took no leading zeros; `-0` is written `0`, so it is not copied).
    static func verbatimTail(_ b: UnsafeRawBufferPointer, _ f: ArchiveInterpreter.PlainFields, maxLineBytes: Int) -> Int? {
        guard f.accepted, b.count > 0, f.msg.upperBound == b.count - 1, b[b.count - 1] == UInt8(ascii: "}") else { return nil }
        // `","msg":` then the message.
        var i = f.msg.lowerBound - 8
        guard f.conn.upperBound == i, i >= 0, JSONBytes.literal(b, &i, #"","msg":"#) else { return nil }
        // `","conn":"` then the connection.
        i = f.conn.lowerBound - 10
        guard f.dir.upperBound == i, i >= 0, JSONBytes.literal(b, &i, #"","conn":""#) else { return nil }
        // `,"dir":"` then the direction, right after the time's digits.
        let timeEnd = f.dir.lowerBound - 8
        i = timeEnd
        guard i >= 0, JSONBytes.literal(b, &i, #","dir":""#) else { return nil }
        var digits = timeEnd
        while digits > 0, b[digits - 1] &- 0x30 <= 9 { digits -= 1 }
        var start = digits
        if start > 0, b[start - 1] == UInt8(ascii: "-") {
            start -= 1
            guard f.time != 0 else { return nil }  // `-0`
        }
        guard digits < timeEnd, start >= 4 else { return nil }
        start -= 4
        var k = start
        guard JSONBytes.literal(b, &k, #""t":"#) else { return nil }
        // The encoder's budget for the message: what it writes before, and `}` and LF after.
        let prefix = 1 + (f.conn.upperBound + 1 - start)
        guard f.msg.count <= maxLineBytes - prefix - 2 else { return nil }
        return start
    }
}
