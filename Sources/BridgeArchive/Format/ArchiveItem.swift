/// One decoded archive line.
public enum ArchiveEntry: Sendable, Hashable {
    /// The header (line 1).
    case header(ArchiveHeader)
    /// A message.
    case record(ArchiveRecord)
    /// A capture event.
    case event(ArchiveEvent)
    /// The trailer (last line of a finished archive).
    case trailer(ArchiveTrailer)
}

/// What an ``ArchiveReader`` yields after the header: entries in file order, with a
/// finding at the place where something was wrong.
public enum ArchiveItem: Sendable, Hashable {
    /// A message.
    case record(ArchiveRecord)
    /// A capture event.
    case event(ArchiveEvent)
    /// The trailer.
    case trailer(ArchiveTrailer)
    /// A problem with the archive itself (damage, truncation, bad line).
    case finding(ArchiveFinding)

    /// The record, when this is one.
    public var record: ArchiveRecord? {
        if case .record(let r) = self { return r }
        return nil
    }

    /// The finding, when this is one.
    public var finding: ArchiveFinding? {
        if case .finding(let f) = self { return f }
        return nil
    }
}
