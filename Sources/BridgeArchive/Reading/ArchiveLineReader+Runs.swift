#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveLineReader {
    /// What the reader has ready: an item, or (with ``sharedLines``) a run of lines.
    enum Entry {
        /// A line of its own, or a finding.
        case item(Item)
        /// Consecutive lines of one frame in ``store``.
        case run(LineRun)
    }

    /// Consecutive complete lines of one frame, stored one after the other in
    /// ``ArchiveLineReader/store``, each followed by its newline: what ``sharedLines``
    /// queues instead of an item per line, so a consumer can take a whole run at once
    /// (``withPlainRun(_:)``) and lines are cut from it only when asked for one by one.
    struct LineRun {
        /// The number of the run's first line.
        var first: Int
        /// How many lines the run holds.
        var count: Int
        /// Where the run's bytes are in ``store``: from its first line to after its last newline.
        var start: Int
        var end: Int
        /// Offset in the compressed file of the frame the lines ended in.
        var frameOffset: Int
        /// False for lines of a damaged frame handed out by `salvage`.
        var verified = true
        /// Where the offset of the first line's newline is in ``ArchiveLineReader/lineEnds``
        /// (the others follow it).
        var ends = 0

        /// The lines' bytes without their newlines (what the frame's hold counts).
        var textBytes: Int { end - start - count }

        /// Drops the first `lines` lines, `bytes` bytes with their newlines.
        mutating func dropFirst(lines: Int, bytes: Int) {
            first += lines
            count -= lines
            start += bytes
            ends += lines
        }

        /// Takes in `next` when it carries on where this run ends, in the same frame.
        mutating func absorb(_ next: LineRun) -> Bool {
            guard next.start == end, next.frameOffset == frameOffset, next.verified == verified, next.ends == ends + count else { return false }
            count += next.count
            end = next.end
            return true
        }
    }

    /// Appends `entry` to `entries`, a run joining the run before it when it carries on
    /// from it (the frame's hold gathers a frame's runs into one).
    static func append(_ entry: Entry, to entries: inout [Entry]) {
        if case .run(let run) = entry, !entries.isEmpty, case .run(var last) = entries[entries.count - 1], last.absorb(run) {
            entries[entries.count - 1] = .run(last)
        } else {
            entries.append(entry)
        }
    }

    /// Cuts the first line off `run`.
    func cutLine(_ run: inout LineRun) -> ArchiveLine {
        let span = run.start..<lineEnds[run.ends]
        // The header is kept by the reader: an array of its own, not the frame's buffer.
        let slice = run.first == 1 ? Array(store[span])[...] : store[span]
        let line = ArchiveLine(number: run.first, slice: slice, frameOffset: run.frameOffset, verified: run.verified)
        run.dropFirst(lines: 1, bytes: span.count + 1)
        return line
    }

    /// The most bytes of a run ``withPlainRun(_:)`` hands `body` at once (whole lines;
    /// a longer line alone): a consumer that copies what it is handed (``ArchivePipeline``)
    /// then holds a bounded amount, whatever the size of a frame (a foreign writer's
    /// frame may hold up to ``maxHeldBytes`` of lines).
    static let plainPartBytes = 1 << 20

    /// When the next thing to hand out is a run of verified lines, calls `body` with
    /// its bytes, in parts of at most ``plainPartBytes`` (lines with their newlines: a
    /// slice of the reader's buffer, to let go of before the next call); `body` returns
    /// how many of those lines it took (from the first, `bytes` of them, newlines
    /// included), and they are not handed out again. Returns true when the whole run was
    /// taken; false when the next thing is not such a run (nothing is called) or `body`
    /// left lines of it: then ``next()`` hands out the next one. With ``lendsRuns``,
    /// `body` may keep the slice until it gives it back (``recycle(_:)``).
    func withPlainRun<E: Error>(_ body: (ArraySlice<UInt8>, _ newlines: PlainRunNewlines) throws(E) -> (lines: Int, bytes: Int)) throws(E) -> Bool {
        guard fillQueue(), case .run(var run) = queue[queueIndex], run.verified, run.first > 1 else { return false }
        var whole = false
        defer {
            if whole { queueIndex += 1 } else { queue[queueIndex] = .run(run) }
        }
        while true {
            let end = partEnd(run)
            // Lent only while no line waits in the hold: the buffer is then set aside
            // (``resetStore()``) before it takes more bytes; else the part is a copy.
            let lend = lendsRuns && held.isEmpty
            let newlines = PlainRunNewlines(offsets: lineEnds[run.ends..<(run.ends + run.count)], base: run.start)
            let taken = try body(lendsRuns && !lend ? Array(store[run.start..<end])[...] : store[run.start..<end], newlines)
            guard taken.lines > 0 else { return false }
            if lend { storeRunsOut += 1 }
            run.dropFirst(lines: taken.lines, bytes: taken.bytes)
            if run.count == 0 {
                whole = true
                return true
            }
            if run.start < end { return false }  // `body` stopped inside the part
        }
    }

    /// Where the next part of `run` ends: after the last newline within
    /// ``plainPartBytes`` of its start, or after its first line when that is longer.
    func partEnd(_ run: LineRun) -> Int {
        guard run.end - run.start > Self.plainPartBytes else { return run.end }
        return store.withUnsafeBytes { b -> Int in
            var k = run.start + Self.plainPartBytes - 1
            while k >= run.start, b[k] != 0x0A { k -= 1 }
            if k >= run.start { return k + 1 }
            let found = memchr(b.baseAddress! + run.start, 0x0A, run.end - run.start)!
            return b.baseAddress!.distance(to: UnsafeRawPointer(found)) + 1
        }
    }
}
