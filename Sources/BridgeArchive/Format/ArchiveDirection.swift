/// Which way a message travelled, as spelled in an archive (`dir`). An open set: a
/// spelling written by a newer tool is kept as is.
public struct ArchiveDirection: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The archive spelling: `w2h` or `h2w`.
    public let rawValue: String
    /// Wraps an archive spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The archive spelling.
    public var description: String { rawValue }

    /// From the web journey to the native host.
    public static let webToHost = ArchiveDirection(rawValue: "w2h")
    /// From the native host to the web journey.
    public static let hostToWeb = ArchiveDirection(rawValue: "h2w")

    /// Whether this is `w2h` or `h2w`.
    public var isKnown: Bool { self == .webToHost || self == .hostToWeb }
}
