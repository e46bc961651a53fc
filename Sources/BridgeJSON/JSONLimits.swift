/// Limits the parser enforces before it buffers anything, so hostile input costs at
/// most what the limits allow. Defaults follow PROTOCOL.md §6 (16 MiB message cap,
/// nesting depth 64).
public struct JSONLimits: Sendable, Hashable {
    /// Largest accepted input, in bytes. Default 16 MiB (16,777,216): one bridge message.
    public var maxInputBytes: Int
    /// Deepest accepted nesting of arrays and objects; the top-level container is depth 1.
    /// Default 64. Parsing and writing cost no call stack per level (explicit stacks),
    /// but destroying a ``JSONValue`` does (the runtime releases nested arrays
    /// recursively, about 210 bytes a level): keep this near 1,000 at most for values
    /// handled on threads with small stacks.
    public var maxDepth: Int
    /// Longest accepted string, in encoded bytes between the quotes. Default 16 MiB, so
    /// a base64 image that fits in a message fits in a string.
    public var maxStringBytes: Int
    /// Most members in one object, or elements in one array. Default 1,000,000.
    public var maxMembers: Int
    /// Longest accepted number lexeme, in bytes. Default 1,024 (numbers are kept as
    /// text, so a megabyte of digits would otherwise be kept as well).
    public var maxNumberBytes: Int

    /// Creates limits; every argument defaults to the documented default.
    public init(
        maxInputBytes: Int = 16 << 20,
        maxDepth: Int = 64,
        maxStringBytes: Int = 16 << 20,
        maxMembers: Int = 1_000_000,
        maxNumberBytes: Int = 1024
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxMembers = maxMembers
        self.maxNumberBytes = maxNumberBytes
    }

    /// The documented defaults.
    public static let `default` = JSONLimits()
}
