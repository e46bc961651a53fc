/// Pieces of the scan for a caller that walks a JSON text of a shape it knows
/// (BridgeProtocol's envelope scan): it reads the members it expects itself and hands
/// every other value to ``scanValue(_:at:depth:)``, which checks it as ``scan(_:)``
/// would (grammar, limits, duplicate keys) without recording anything.
extension JSONMemberScanner {
    /// Checks the value at `i` as a member value inside `depth` levels of containers
    /// (an object there is at level `depth + 1`): true when ``scan(_:)`` would accept
    /// it there (valid, within the limits, no duplicate keys), and `i` is then just past
    /// it; false otherwise (`i` unchanged).
    package mutating func scanValue(_ b: UnsafeRawBufferPointer, at i: inout Int, depth: Int) -> Bool {
        // A plain object is walked without the general scan's machinery (``plainObjectEnd(_:from:depth:)``).
        if let end = plainObjectEnd(b, from: i, depth: depth) {
            i = end
            return true
        }
        return scanValueGenerally(b, at: &i, depth: depth)
    }

    /// ``scanValue(_:at:depth:)`` by the general scan alone.
    mutating func scanValueGenerally(_ b: UnsafeRawBufferPointer, at i: inout Int, depth: Int) -> Bool {
        keyCount = 0
        var state = ParserState(bytes: b, limits: limits)
        state.i = i
        do {
            try state.scanValue(depth: depth, parent: -1, record: 0, &self)
        } catch {
            return false
        }
        i = state.i
        return true
    }

    /// The contents of the string whose opening quote is at `i` when it has no escape,
    /// is valid UTF-8 and within ``JSONLimits/maxStringBytes``; `i` is then just past its
    /// closing quote. Nil otherwise (`i` unchanged).
    @inline(__always)
    package func plainString(_ b: UnsafeRawBufferPointer, at i: inout Int) -> Range<Int>? {
        guard i < b.count, b[i] == UInt8(ascii: "\"") else { return nil }
        let (end, stop) = ParserState.stringEnd(b, from: i &+ 1)
        guard stop == UInt8(ascii: "\""), end &- i &- 1 <= limits.maxStringBytes else { return nil }
        defer { i = end &+ 1 }
        return (i &+ 1)..<end
    }
}
