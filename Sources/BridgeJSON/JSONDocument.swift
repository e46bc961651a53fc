/// The result of a successful parse: the value and every duplicate key seen.
public struct JSONDocument: Sendable, Hashable {
    /// The single top-level value.
    public var value: JSONValue
    /// Duplicate keys in any object, in the order they were found.
    public var duplicateKeys: [DuplicateKey]
}
