/// An array or object the parser has opened and not yet closed: one entry of its
/// explicit stack.
struct OpenContainer {
    /// Byte offset of the opening bracket.
    let open: Int
    /// Whether it is an object (members) rather than an array (elements).
    let isObject: Bool
    /// The array's elements so far.
    var elements: [JSONValue] = []
    /// The object's members so far.
    var members: [JSONObject.Member] = []
    /// The key of the member whose value is being read, and where key and value start.
    var key = ""
    var keyOffset = 0
    var valueOffset = 0

    /// An array opened at `open` (envelope arrays are short: room for 4 at once).
    init(array open: Int) {
        self.open = open
        self.isObject = false
        elements.reserveCapacity(4)
    }

    /// An object opened at `open` (envelope objects have a handful of members: room for 8).
    init(object open: Int) {
        self.open = open
        self.isObject = true
        members.reserveCapacity(8)
    }
}
