/// Why a capture could not be opened, read or filtered: one error type for the module,
/// with a stable kind and a sentence that names the file or interface and says what to do.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable category (an open set).
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The category name.
        public let rawValue: String
        /// Wraps a category name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The category name.
        public var description: String { rawValue }

        /// A capture file could not be opened or is not pcap/pcapng.
        public static let openFile = Kind(rawValue: "open-file")
        /// A capture file is damaged or truncated part-way.
        public static let readFile = Kind(rawValue: "read-file")
        /// The capture's link type is not one the decoder knows.
        public static let unsupportedLinkType = Kind(rawValue: "unsupported-link-type")
        /// No such interface.
        public static let noSuchInterface = Kind(rawValue: "no-such-interface")
        /// Capturing needs privileges this process lacks.
        public static let permission = Kind(rawValue: "permission")
        /// The BPF filter does not compile or cannot be set.
        public static let filter = Kind(rawValue: "filter")
        /// A live capture could not be set up or read.
        public static let live = Kind(rawValue: "live")
    }

    /// The category.
    public var kind: Kind
    /// A sentence for the user: what failed, where, and what to do.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

extension CaptureError.Kind {
    /// The recording proxy could not listen (address in use, not permitted).
    public static let proxy = CaptureError.Kind(rawValue: "proxy")
}
