/// Whether and when ``ArchiveLineReader`` moves decompression to a thread of its own
/// (``ArchiveReadAhead``). The lines and findings are the same in every mode: only
/// where the decompressor's steps run changes.
public enum ArchiveReadAheadMode: Sendable, Hashable {
    /// Decompression runs on the reader's thread.
    case off
    /// Decompression runs on a thread of its own from the start: for a consumer that
    /// does its work on the reader's thread and has a second core (`cat`, `export`).
    case on
    /// Decompression starts on the reader's thread; once the first
    /// ``ArchiveLineReader/readAheadDecisionBytes`` decompressed bytes are read, it
    /// moves to a thread of its own when their lines average at least
    /// ``ArchiveLineReader/readAheadLineBytes`` bytes, and stays otherwise. For a
    /// consumer that already hands the lines to a thread of its own (`analyze`): with
    /// small messages, the work per line outweighs decompression, and a third busy
    /// thread on two cores cost more than it saved (wall 0.37 s against 0.35 s on the
    /// bench's 630,000 small messages); with images, decompression is most of the work
    /// and keeps its thread.
    case forLongLines

    /// ``on`` when `enabled`, else ``off``.
    public init(_ enabled: Bool) { self = enabled ? .on : .off }
}
