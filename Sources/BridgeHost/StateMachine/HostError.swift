/// The one error type of the BridgeHost module: a stable code, a sentence, and where in
/// an input the problem is (a scenario's JSON path and byte offset) when it has a place.
public struct HostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error code. An open set.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The spelling.
        public let rawValue: String
        /// Wraps a spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The spelling.
        public var description: String { rawValue }

        /// A scenario file is not valid JSON, or breaks docs/SCENARIOS.md.
        public static let invalidScenario = Code(rawValue: "invalid-scenario")
        /// A scenario file could not be read.
        public static let unreadableScenario = Code(rawValue: "unreadable-scenario")
        /// An event or response the encoder refuses (it would not decode cleanly).
        static let invalidEnvelope = Code(rawValue: "invalid-envelope")
        /// An image could not be encoded (zlib or TurboJPEG failed).
        static let imageEncoding = Code(rawValue: "image-encoding")
        /// A transport could not send or receive.
        public static let transport = Code(rawValue: "transport")
        /// The host was used in a way its contract forbids (e.g. `run` twice).
        public static let misuse = Code(rawValue: "misuse")
    }

    /// What kind of failure.
    public var code: Code
    /// A sentence naming the field and value at fault.
    public var message: String
    /// The JSON path of the offending member in a scenario (`capabilities.nfc.read.latencyMs`).
    public var path: String?
    /// The 0-based byte offset in the input, when known.
    public var offset: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.offset = offset
    }

    /// `[code] path: message (at byte N)`.
    public var description: String {
        let at = offset.map { " (at byte \($0))" } ?? ""
        let p = path.map { "\($0): " } ?? ""
        return "[\(code)] \(p)\(message)\(at)"
    }
}
