/// A duplicate member name found in one object: RFC 8259 allows it, but the protocol
/// tools must see it, so the parser keeps both members and reports it here.
public struct DuplicateKey: Sendable, Hashable {
    /// The repeated name.
    public var key: String
    /// Byte offset of the first member's key.
    public var firstOffset: Int
    /// Byte offset of the repeated member's key.
    public var duplicateOffset: Int
    /// Nesting depth of the object holding both, counting arrays and objects alike
    /// (1 = the top-level value, so `{"a":1,"a":2}` is depth 1 and `[{"a":1,"a":2}]`
    /// depth 2).
    public var depth: Int

    /// Creates a report (the parser makes these; public for tests and tools).
    public init(key: String, firstOffset: Int, duplicateOffset: Int, depth: Int) {
        self.key = key
        self.firstOffset = firstOffset
        self.duplicateOffset = duplicateOffset
        self.depth = depth
    }
}
