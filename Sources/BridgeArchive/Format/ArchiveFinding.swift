/// A problem with an archive file found while reading it: the reader returns every
/// complete line it can, and reports each problem at the place it was met.
public struct ArchiveFinding: Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. An open set with stable spellings.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The stable spelling, e.g. `truncated-frame`.
        public let rawValue: String
        /// Wraps a spelling.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The spelling.
        public var description: String { rawValue }

        /// The file ended inside a zstd frame (a recorder was killed, or the file was cut).
        public static let truncatedFrame = Kind(rawValue: "truncated-frame")
        /// zstd rejected the compressed data; reading resumed at the next frame, if any.
        public static let corruptData = Kind(rawValue: "corrupt-data")
        /// A frame's content checksum did not match: its lines may be damaged.
        public static let checksumMismatch = Kind(rawValue: "checksum-mismatch")
        /// Decompressed bytes after the last newline were dropped (an incomplete line).
        public static let partialLine = Kind(rawValue: "partial-line")
        /// A line that is not valid JSON, or not a header, record, event or trailer.
        public static let invalidLine = Kind(rawValue: "invalid-line")
        /// A line longer than ``BridgeArchiveFormat/maxLineBytes``: skipped unread.
        public static let lineTooLong = Kind(rawValue: "line-too-long")
        /// The archive has no trailer: it was not finished (or its end was lost).
        public static let missingTrailer = Kind(rawValue: "missing-trailer")
        /// The trailer's counts differ from what was read.
        public static let countMismatch = Kind(rawValue: "count-mismatch")
        /// A sequence number that is not the previous one plus 1 (lines lost or reordered).
        public static let sequenceGap = Kind(rawValue: "sequence-gap")
        /// Lines after the trailer, or a second header.
        public static let unexpectedLine = Kind(rawValue: "unexpected-line")
        /// A frame too large to hold for its checksum: its lines were handed out unchecked.
        static let unverifiedLines = Kind(rawValue: "unverified-lines")
    }

    /// What went wrong.
    public var kind: Kind
    /// Byte offset in the compressed file where the problem was detected (for damage)
    /// or where the frame holding the line starts (for line problems).
    public var compressedOffset: Int
    /// 1-based number of the decompressed line concerned (for damage: the line that
    /// was being read when it was met), when known.
    public var line: Int?
    /// The `seq` of the last record or event read intact before the problem (0 when
    /// none was).
    public var lastSequence: Int
    /// A sentence a person understands.
    public var message: String

    /// Creates a finding.
    public init(kind: Kind, compressedOffset: Int, line: Int?, lastSequence: Int, message: String) {
        self.kind = kind
        self.compressedOffset = compressedOffset
        self.line = line
        self.lastSequence = lastSequence
        self.message = message
    }

    /// `kind at byte N (line L, after seq S): message`.
    public var description: String {
        var s = "\(kind) at compressed byte \(compressedOffset)"
        if let line { s += ", line \(line)" }
        s += ", after seq \(lastSequence): \(message)"
        return s
    }
}
