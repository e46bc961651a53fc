#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveInterpreter {
    /// Takes the lines at the start of `run` (lines of a verified frame, each with its
    /// newline) that need nothing said about them: record lines ``plainRecord(_:)``
    /// reads, each `seq` following the last, no trailer read yet. They are counted
    /// exactly as ``take(_:into:)`` counts them, and nothing is built. Returns how many
    /// lines it took and their bytes (newlines included); stops at the first other line,
    /// which the caller hands to ``take(_:into:)``.
    ///
    /// What `cat`, `export --jsonl` and the analyzer read a clean archive with: their use
    /// of such a line is the line itself or its members, and the interpretation costs one
    /// pass over the line with no copy.
    /// `accept`: see ``plainFields(_:accept:)``. `newlines`: where the lines end (the
    /// offsets of their newlines, less `newlineBase`), when the caller knows; else they
    /// are searched for.
    package mutating func takePlainLines(_ run: UnsafeRawBufferPointer, accept: PlainAccept? = nil,
                                         newlines: UnsafeBufferPointer<Int>? = nil, newlineBase: Int = 0,
                                         each: (_ line: UnsafeRawBufferPointer, _ fields: PlainFields) -> Void = { _, _ in })
        -> (lines: Int, bytes: Int) {
        guard fastRecords, trailer == nil, let base = run.baseAddress else { return (0, 0) }
        var start = 0, lines = 0
        while start < run.count {
            let end: Int
            if let newlines {
                guard lines < newlines.count else { break }
                end = newlines[lines] &- newlineBase
                guard end < run.count else { break }
            } else {
                guard let found = memchr(base + start, 0x0A, run.count - start) else { break }
                end = base.distance(to: UnsafeRawPointer(found))
            }
            let line = UnsafeRawBufferPointer(rebasing: run[start..<end])
            guard let f = Self.plainFields(line, accept: accept), f.seq == lastSequence + 1 else { break }
            each(line, f)
            lastSequence = f.seq
            countRecord(time: f.time, bytes: f.msg.count)
            lines += 1
            start = end + 1
        }
        return (lines, start)
    }
}
