/// The one error type of BridgeAnalysis: a stable code and a sentence for people.
public struct AnalysisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable reason. An open set.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The spelling, e.g. `unreadable-input`.
        public let rawValue: String
        /// Wraps a spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The spelling.
        public var description: String { rawValue }

        /// An option value is malformed (a usage error).
        static let badOption = Code(rawValue: "bad-option")
        /// The input cannot be opened or read (an I/O error).
        public static let unreadableInput = Code(rawValue: "unreadable-input")
        /// The input's kind is not one the analyzer reads.
        public static let unsupportedInput = Code(rawValue: "unsupported-input")
    }

    /// The reason code.
    public var code: Code
    /// What went wrong, naming the file or value.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
