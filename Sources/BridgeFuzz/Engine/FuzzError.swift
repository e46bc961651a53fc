/// The fuzzer's one error type, with a stable code.
public struct FuzzError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem.
    public enum Code: String, Sendable {
        /// Bad arguments or options.
        case usage
        /// A file or process could not be read, written or started.
        case io
        /// A target could not be reached.
        case target
    }
    /// The code.
    public var code: Code
    /// A sentence naming the file, option or value.
    public var message: String
    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    /// The message.
    public var description: String { message }
}
