import BridgeJSON

extension JSONObject {
    /// The byte range, in the text this object was parsed from, of the value of the
    /// member at `index`, found from the parser's offsets without re-encoding anything:
    /// it starts at the member's `valueOffset` and ends where the whitespace before the
    /// next member's `,` (or before the object's closing `}`) begins.
    ///
    /// - Parameters:
    ///   - index: the member's index in ``members``.
    ///   - text: the exact bytes that were parsed; `self` must be the top-level value.
    ///   - closingBrace: offset of this object's closing `}` in `text`.
    /// - Returns: `nil` when the offsets do not fit `text` (an object built in code).
    func rawValueRange(ofMemberAt index: Int, in text: UnsafeRawBufferPointer, closingBrace: Int) -> Range<Int>? {
        let start = members[index].valueOffset
        guard start >= 0, start < closingBrace, closingBrace < text.count else { return nil }
        var end: Int
        if index + 1 < members.count {
            end = members[index + 1].keyOffset
            guard end > start, end <= closingBrace else { return nil }
            end -= 1
            while end > start, isWhitespace(text[end]) { end -= 1 }
            guard text[end] == UInt8(ascii: ",") else { return nil }
        } else {
            end = closingBrace
        }
        end -= 1
        while end >= start, isWhitespace(text[end]) { end -= 1 }
        guard end >= start else { return nil }
        return start..<(end + 1)
    }

    private func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }
}

/// Offset of the closing `}` of a JSON text that is one object, found by skipping
/// trailing whitespace; `nil` when the text does not end with `}`.
func closingBraceOffset(_ text: UnsafeRawBufferPointer) -> Int? {
    var i = text.count - 1
    while i >= 0, text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D { i -= 1 }
    guard i >= 0, text[i] == UInt8(ascii: "}") else { return nil }
    return i
}
