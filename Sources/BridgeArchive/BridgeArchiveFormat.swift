/// Session archives (*.bsz): see docs/FORMAT.md.
public enum BridgeArchiveFormat {
    /// The archive format version this build writes.
    public static let currentVersion = 1
}
