/// Scratch bytes on the stack for the hot paths that build a short byte string before
/// handing it on (an id's key, a report member's key line).
enum StackBytes {
    /// The size of the fixed buffer: 64 bytes.
    static let fixedCount = 64

    /// Calls `body` with `count` bytes of scratch memory (zeroed up to ``fixedCount``,
    /// uninitialized past it): a fixed buffer on the stack when they fit, else a temporary
    /// allocation. A temporary allocation of a size not known at compile time calls the
    /// runtime to check that it fits on the stack: a call per request and answer (the
    /// id's key) and per member of the JSON report.
    @inline(__always)
    static func with<R>(count: Int, _ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        guard count <= fixedCount else { return withUnsafeTemporaryAllocation(byteCount: count, alignment: 1, body) }
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &words) { body(UnsafeMutableRawBufferPointer(rebasing: $0[..<count])) }
    }
}
