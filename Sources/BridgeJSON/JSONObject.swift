/// A JSON object: members in source order, duplicate keys kept (RFC 8259 §4 only says
/// names SHOULD be unique; a strict tool must see both, not silently keep one).
public struct JSONObject: Sendable, Hashable {
    /// One `"key": value` member, with the byte offsets where it was read.
    public struct Member: Sendable, Hashable {
        /// The member name, unescaped.
        public var key: String
        /// The member value.
        public var value: JSONValue
        /// Byte offset of the key's opening quote in the parsed input (-1 when built in code).
        public var keyOffset: Int
        /// Byte offset of the value's first byte in the parsed input (-1 when built in code).
        public var valueOffset: Int

        /// Creates a member; offsets default to -1 (not from parsed input).
        public init(key: String, value: JSONValue, keyOffset: Int = -1, valueOffset: Int = -1) {
            self.key = key
            self.value = value
            self.keyOffset = keyOffset
            self.valueOffset = valueOffset
        }

        /// Members compare by key (exact UTF-8 bytes) and value; offsets are provenance,
        /// not content.
        public static func == (lhs: Member, rhs: Member) -> Bool {
            lhs.key.utf8Equals(rhs.key) && lhs.value == rhs.value
        }

        /// Hashes key and value only, consistent with `==`.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(value)
        }
    }

    /// The members in source order.
    public var members: [Member]

    /// Creates an object from members (order kept).
    public init(_ members: [Member] = []) {
        self.members = members
    }

    /// The value of the first member named `key` (names match by exact UTF-8 bytes, no
    /// Unicode normalization).
    public subscript(key: String) -> JSONValue? {
        member(key)?.value
    }

    /// The first member named `key`, with its offsets.
    public func member(_ key: String) -> Member? {
        for m in members where m.key.utf8Equals(key) { return m }
        return nil
    }

    /// The member names in order (duplicates included).
    public var keys: [String] { members.map(\.key) }

    /// The number of members (duplicates included).
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// Sets the first member named `key` to `value`, or appends a new member.
    public mutating func set(_ key: String, _ value: JSONValue) {
        if let i = members.firstIndex(where: { $0.key.utf8Equals(key) }) {
            members[i].value = value
        } else {
            members.append(Member(key: key, value: value))
        }
    }

    /// Removes every member named `key`.
    public mutating func remove(_ key: String) {
        members.removeAll { $0.key.utf8Equals(key) }
    }
}
