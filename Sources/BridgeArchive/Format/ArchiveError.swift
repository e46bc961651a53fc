#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an archive could not be opened, written or read at all. Damage found while
/// reading is not an error but an ``ArchiveFinding``.
public struct ArchiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable reason. An open set.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable spelling.
        public let rawValue: String
        /// Wraps a spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The spelling.
        public var description: String { rawValue }

        /// A system call failed (open, read, write, close, poll).
        public static let io = Code(rawValue: "io")
        /// The file is not a bridgescope archive (not zstd, or no header line).
        public static let notAnArchive = Code(rawValue: "not-an-archive")
        /// The header's `formatVersion` is not one this build reads.
        public static let unsupportedVersion = Code(rawValue: "unsupported-version")
        /// The header line is present but malformed.
        public static let invalidHeader = Code(rawValue: "invalid-header")
        /// libzstd refused an operation.
        public static let compression = Code(rawValue: "compression")
        /// A call that is not allowed in the writer's state (e.g. append after finish).
        public static let invalidState = Code(rawValue: "invalid-state")
    }

    /// What went wrong.
    public var code: Code
    /// The file concerned, when known.
    public var path: String?
    /// A sentence a person understands, including the system's error text when there is one.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, path: String? = nil, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// An ``Code/io`` error for the current `errno`: "`what` failed: <strerror>".
    static func system(_ what: String, path: String?, errno code: Int32 = errno) -> ArchiveError {
        let text = String(cString: strerror(code))
        return ArchiveError(.io, path: path, "\(what) failed: \(text) (errno \(code))")
    }

    /// `path: message`.
    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}
