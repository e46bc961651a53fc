/// The one error of BridgeOTLP: a stable code and a sentence saying what to do.
public struct OTLPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code (open set).
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text.
        public var rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The URL cannot be used.
        public static let badEndpoint = Code(rawValue: "bad-endpoint")
        /// A `--otlp-header` is not `KEY=VALUE` or names a header the exporter sets.
        public static let badHeader = Code(rawValue: "bad-header")
        /// The collector could not be reached or did not answer within the timeout,
        /// retries included.
        public static let unreachable = Code(rawValue: "unreachable")
        /// An input could not be read.
        public static let unreadableInput = Code(rawValue: "unreadable-input")
        /// The code's text.
        public var description: String { rawValue }
    }

    /// The code.
    public var code: Code
    /// The sentence.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The sentence.
    public var description: String { message }
}
