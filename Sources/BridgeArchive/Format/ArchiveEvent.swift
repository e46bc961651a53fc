/// Something that happened during capture other than a message: an event line.
///
/// Nothing lost is ever silent: connection changes, gaps, drops and unreadable input are
/// all written as events and counted in the trailer.
public struct ArchiveEvent: Sendable, Hashable {
    /// What happened. An open set: a kind written by a newer tool is kept as is.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The archive spelling.
        public let rawValue: String
        /// Wraps an archive spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The archive spelling.
        public var description: String { rawValue }

        /// A connection opened (`conn`).
        public static let open = Kind(rawValue: "open")
        /// A connection closed (`conn`, optional `reason`).
        public static let close = Kind(rawValue: "close")
        /// Bytes of a stream were never seen (`conn`, `dir`, `bytes`).
        public static let gap = Kind(rawValue: "gap")
        /// The capture layer dropped packets (`count`).
        public static let drop = Kind(rawValue: "drop")
        /// Input that could not be recorded (`reason`; `line` for a tap log line).
        public static let error = Kind(rawValue: "error")
        /// A field tap started a file (docs/TAP.md §1; `reason` names the tap and file).
        public static let tap = Kind(rawValue: "tap")
    }

    /// Sequence number, shared with records (assigned by the writer).
    public var seq: Int
    /// When it happened: nanoseconds since the Unix epoch.
    public var time: Int64
    /// What happened.
    public var kind: Kind
    /// The connection concerned, if any.
    public var connection: String?
    /// The direction concerned, if any (gaps).
    public var direction: ArchiveDirection?
    /// A byte count (gap size; size of a message that could not be stored).
    public var bytes: Int?
    /// A packet count (drops).
    public var count: Int?
    /// A 1-based input line number (tap log errors).
    public var line: Int?
    /// A sentence saying what happened.
    public var reason: String?

    /// Creates an event; `seq` is assigned when it is written.
    public init(seq: Int = 0, time: Int64, kind: Kind, connection: String? = nil,
                direction: ArchiveDirection? = nil, bytes: Int? = nil, count: Int? = nil,
                line: Int? = nil, reason: String? = nil) {
        self.seq = seq
        self.time = time
        self.kind = kind
        self.connection = connection
        self.direction = direction
        self.bytes = bytes
        self.count = count
        self.line = line
        self.reason = reason
    }
}
