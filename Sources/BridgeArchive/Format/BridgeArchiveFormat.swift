import BridgeJSON

/// Session archives (`*.bsz`): constants of the format. The byte-level spec is
/// `docs/FORMAT.md`.
public enum BridgeArchiveFormat {
    /// The archive format version this build writes.
    public static let currentVersion = 1

    /// Every format version this build reads (older ones through one-step migrations,
    /// see ``ArchiveMigration``).
    static let supportedVersions: ClosedRange<Int> = 1...1

    /// The `bridgescope` member value of a header line.
    static let headerMarker = "session"

    /// The `bridgescope` member value of a trailer line.
    static let trailerMarker = "trailer"

    /// Longest line, in bytes without its newline, that a reader buffers or a writer
    /// writes: 64 MiB (67,108,864). A payload whose `text` form would not fit is stored
    /// as `b64` (4/3 of its size); one that does not fit even so (over about 47 MiB)
    /// is not stored and an `error` event says so.
    public static let maxLineBytes = 64 << 20

    /// The JSON limits used to validate a `msg` payload before writing it verbatim: the
    /// protocol's own (16 MiB, depth 64). Payloads outside them are stored as `text`.
    static let messageLimits = JSONLimits.default

    /// The JSON limits a reader applies to one archive line: the line cap for input and
    /// strings, one level of nesting more than ``messageLimits`` (the record object
    /// holds the message).
    public static let lineLimits = JSONLimits(
        maxInputBytes: maxLineBytes,
        maxDepth: messageLimits.maxDepth + 1,
        maxStringBytes: maxLineBytes,
        maxMembers: messageLimits.maxMembers,
        maxNumberBytes: messageLimits.maxNumberBytes
    )
}
