/// Where the lines of a run that ``ArchiveLineReader/withPlainRun(_:)`` hands out end:
/// the reader found every newline when it cut the decompressed bytes into lines, so a
/// reader of the run does not search for them again.
struct PlainRunNewlines {
    /// The offsets of the run's newlines in the reader's buffer, in order (a part may end
    /// before the last of them).
    var offsets: ArraySlice<Int>
    /// The offset in the reader's buffer of the part's first byte.
    var base: Int

    /// Calls `body` with the newlines' offsets from the part's first byte.
    func withOffsets<R>(_ body: (_ offsets: UnsafeBufferPointer<Int>, _ base: Int) -> R) -> R {
        offsets.withUnsafeBufferPointer { body($0, base) }
    }
}
