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
    /// `accept`: see ``plainFields(_:accept:)``. `newlines`: where the lines end, the
    /// offsets of their newlines less `newlineBase` (the line reader found them when it
    /// cut the lines: ``PlainRunNewlines``); a newline past `run` ends the walk.
    package mutating func takePlainLines(_ run: UnsafeRawBufferPointer, accept: PlainAccept? = nil,
                                         newlines: UnsafeBufferPointer<Int>, newlineBase: Int,
                                         each: (_ line: UnsafeRawBufferPointer, _ fields: PlainFields) -> Void = { _, _ in })
        -> (lines: Int, bytes: Int) {
        guard fastRecords, trailer == nil, run.baseAddress != nil else { return (0, 0) }
        var start = 0, lines = 0
        while start < run.count, lines < newlines.count {
            let end = newlines[lines] &- newlineBase
            guard end >= start, end < run.count else { break }
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
