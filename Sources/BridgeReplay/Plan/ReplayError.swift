/// Why a replay or a playback could not run at all. Divergences are not errors: they
/// are the replay's result.
public struct ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable reason. An open set.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable spelling.
        public let rawValue: String
        /// Wraps a spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The spelling.
        public var description: String { rawValue }

        /// The archive cannot be opened or is not an archive.
        public static let archive = Code(rawValue: "archive")
        /// An option is malformed (target, pacing, pointer, scenario).
        public static let usage = Code(rawValue: "usage")
        /// The target cannot be reached (refused, timed out, command failed to start).
        public static let connection = Code(rawValue: "connection")
        /// Listening or serving failed (`--as-host`).
        public static let server = Code(rawValue: "server")
    }

    /// What went wrong.
    public var code: Code
    /// A sentence a person understands, saying what to do where it can.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
