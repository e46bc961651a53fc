/// What reads an archive on ``ArchivePipeline``'s thread: the reader and whatever the
/// consumer does per message that needs no order (a check, a scan), handing runs of
/// plain lines to `plain` with what it worked out for them (`Extra`).
package protocol ArchivePipelineSource: AnyObject, SendableMetatype {
    /// What goes with a run of plain lines.
    associatedtype Extra
    /// The next reading (nil at the end); runs of plain lines met before it go to `plain`
    /// (``ArchiveReader/nextReading(accept:plain:)``).
    func next(plain: (_ run: ArraySlice<UInt8>, _ lines: [ArchiveReader.PlainLine], _ extra: Extra) -> Void) -> ArchiveReading?
    /// The reader ``next(plain:)`` reads: its runs are lent to the consumer while the
    /// pipeline runs (``ArchiveLineReader/lendsRuns``).
    var reader: ArchiveReader { get }
}

/// Reads an archive on a thread of its own while the caller's thread does the ordered
/// work: the reading thread runs an ``ArchivePipelineSource`` (decompression itself
/// runs on a third thread with the reader's `readAhead`), the caller gets what it
/// reads, in order, in chunks.
///
/// - Runs are handed over as they are, slices of the reader's buffers, and handed back
///   once consumed (``ArchiveLineReader/lendsRuns``, ``ArchiveLineReader/recycle(_:)``):
///   the buffers go round between the two threads and are reused, and no large block is
///   freed on the other thread (glibc gives those back to the kernel: page faults).
///   (Until session 16 each run was copied into buffers that went round: a copy of every
///   decompressed byte.)
/// - At most ``chunksInFlight`` chunks wait; other readings are gathered
///   ``readingsPerChunk`` at a time.
/// - The reading thread is waited for before ``run(_:consume:)`` returns, on every way
///   out (also when `consume` throws): the source is never used by both threads.
package enum ArchivePipeline {
    /// What the reading thread hands over.
    package enum Chunk<Extra> {
        /// A run of plain record lines (a slice of a reader's buffer, which goes back to
        /// the reading thread once `consume` returns), their places and what the source
        /// worked out.
        case plain(run: ArraySlice<UInt8>, lines: [ArchiveReader.PlainLine], extra: Extra)
        /// Other readings, in order.
        case readings([ArchiveReading])
    }

    /// Chunks that may wait between the two threads (a run is at most a frame's lines,
    /// in parts of at most 1 MiB). Eight measured no faster than four or two, on an idle
    /// machine and beside a busy process, and their buffers were 4-8 MB more peak RSS
    /// (session 14: 54 -> 51 MB on the bench's small session, 64 -> 57 MB on its images).
    package static let chunksInFlight = 4
    /// Readings gathered before they are handed over together.
    static let readingsPerChunk = 256

    /// Reads `source` on a new thread, calling `consume` on this one with every chunk in
    /// order; false when no thread could be made (nothing was read: the caller reads on
    /// its own thread). Rethrows what `consume` throws, once the thread has stopped.
    package static func run<Source: ArchivePipelineSource, E: Error>(
        _ source: Source, consume: (Chunk<Source.Extra>) throws(E) -> Void
    ) throws(E) -> Bool {
        let pipe = ThreadPipe<Chunk<Source.Extra>>(capacity: chunksInFlight)
        let consumed = ConsumedRuns()
        let done = ThreadPipe<Bool>(capacity: 1)
        // The source is lent to the thread until `done` says it has finished with it.
        let started = DetachedThread.start(handing: source) { source in
            source.reader.lines.lendsRuns = true
            read(source, into: pipe, handingBack: consumed)
            source.reader.lines.lendsRuns = false
            done.put(true)
        }
        guard started else { return false }
        defer {
            pipe.cancel()
            _ = done.take()
        }
        while let chunk = pipe.take() {
            try consume(chunk)
            if case .plain(let run, _, _) = consume chunk { consumed.add(run) }
        }
        return true
    }

    /// The reading thread: every reading and run, in order, until the end or until the
    /// consumer stops taking them.
    private static func read<Source: ArchivePipelineSource>(_ source: Source, into pipe: ThreadPipe<Chunk<Source.Extra>>,
                                                            handingBack consumed: ConsumedRuns) {
        var readings: [ArchiveReading] = []
        var open = true
        while open, let reading = source.next(plain: { run, lines, extra in
            if lines.isEmpty { return }
            if !readings.isEmpty {
                open = open && pipe.put(.readings(readings))
                readings = []
            }
            guard open else { return }
            for back in consumed.takeAll() { source.reader.lines.recycle(back) }
            open = pipe.put(.plain(run: run, lines: lines, extra: extra))
        }) {
            readings.append(reading)
            if readings.count >= readingsPerChunk {
                open = pipe.put(.readings(readings))
                readings = []
            }
        }
        if open, !readings.isEmpty { open = pipe.put(.readings(readings)) }
        if open { pipe.finish() }
    }
}
