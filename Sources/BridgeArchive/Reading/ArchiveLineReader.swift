#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One decompressed archive line (without its newline).
public struct ArchiveLine: Sendable, Hashable {
    /// 1-based line number in the decompressed stream (the header is line 1).
    public var number: Int
    /// The line's bytes, exactly as in the archive: its own array, or (from a reader
    /// made with `sharedLines: true`) a slice of the frame's decompressed bytes. Indices
    /// are those of the underlying buffer.
    public var slice: ArraySlice<UInt8>
    /// Offset in the compressed file of the zstd frame the line ended in.
    public var frameOffset: Int
    /// False for a line of a frame whose checksum failed or that is corrupt, handed out
    /// only by a reader made with `salvage: true` (docs/FORMAT.md §7).
    public var verified: Bool = true

    /// The line's bytes as an array of their own (a copy when ``slice`` is part of a
    /// larger buffer).
    public var bytes: [UInt8] {
        get { Array(slice) }
        set { slice = newValue[...] }
    }

    /// A line with the given bytes.
    public init(number: Int, bytes: [UInt8], frameOffset: Int, verified: Bool = true) {
        self.init(number: number, slice: bytes[...], frameOffset: frameOffset, verified: verified)
    }

    /// A line whose bytes are a slice of some buffer.
    public init(number: Int, slice: ArraySlice<UInt8>, frameOffset: Int, verified: Bool = true) {
        self.number = number
        self.slice = slice
        self.frameOffset = frameOffset
        self.verified = verified
    }

    /// The length of the line in bytes.
    var byteCount: Int { slice.count }

    public static func == (a: ArchiveLine, b: ArchiveLine) -> Bool {
        a.number == b.number && a.frameOffset == b.frameOffset && a.verified == b.verified && a.slice.elementsEqual(b.slice)
    }

    public func hash(into h: inout Hasher) {
        h.combine(number)
        h.combine(frameOffset)
        h.combine(verified)
        slice.withUnsafeBytes { h.combine(bytes: $0) }
    }
}

/// Streams the lines of a zstd-compressed JSON Lines file with bounded memory, and
/// turns every kind of damage into a finding instead of an error.
///
/// - Decompresses with `ZSTD_decompressStream` in chunks of `ZSTD_DStreamInSize()`
///   (about 128 KiB) into chunks of `ZSTD_DStreamOutSize()`.
/// - A line is buffered only while its length stays within ``maxLineBytes``; a longer
///   line is skipped to its newline and reported (`line-too-long`).
/// - Frames may need a window of at most 2^`maxWindowLog` bytes (the initializer's; 16 MiB by default);
///   a frame asking for more is reported as corrupt.
/// - A frame's lines are handed out only once the frame is complete and its content
///   checksum verified (libzstd checks it at the frame's end): damage never yields a
///   line that was not written. Memory: one frame's lines (the writer ends frames every
///   256 KiB of lines); a longer frame's lines are handed out from
///   ``maxHeldBytes`` on, with an `unverified-lines` finding.
/// - At the end of the input inside a frame: `truncated-frame`, after the complete lines
///   the frame held (a recorder killed after a flush leaves exactly that; the lines are
///   what was flushed, not checked by a checksum); bytes after the last newline:
///   `partial-line` (dropped). On corrupt data: `corrupt-data`; on a checksum mismatch:
///   `checksum-mismatch`; either way the frame's lines are dropped (counted in the
///   finding; `salvage` hands them out marked unverified instead) and the reader goes on
///   at the next frame's magic number after the point of detection.
///
/// Every loop step consumes input, produces output or ends, so it never hangs.
/// Findings from this layer carry `lastSequence` 0; ``ArchiveReader`` fills it in.
public final class ArchiveLineReader {
    /// One step of the stream.
    public enum Item: Sendable, Hashable {
        /// A complete line.
        case line(ArchiveLine)
        /// Damage found at this point of the stream.
        case finding(ArchiveFinding)
    }

    /// The longest line buffered (``BridgeArchiveFormat/maxLineBytes`` by default).
    public let maxLineBytes: Int
    /// Lines completed so far (skipped over-long lines included).
    var linesRead = 0
    /// Whether the lines of a damaged frame are handed out (marked unverified) rather
    /// than dropped.
    public let salvage: Bool
    /// Decompressed bytes of one frame held for its checksum; past this, its lines are
    /// handed out unverified (with a finding). Default 64 MiB.
    public let maxHeldBytes: Int
    /// Whether lines are handed out as slices of one buffer of decompressed bytes
    /// (reused once a frame's lines are all handed out) instead of an array each: for a
    /// consumer that lets go of every line before asking for the next frame's (`cat`,
    /// `export --jsonl`, the analyzer, which copies what it keeps); one that keeps lines
    /// keeps their frame's buffer alive. Lines are then queued as runs (``LineRun``),
    /// which a consumer can also take whole (``withPlainRun(_:)``).
    public let sharedLines: Bool

    /// The zstd half, when stepped on this thread (nil with ``readAhead``).
    var decompressor: ArchiveDecompressor?
    /// The zstd half on a thread of its own (``ArchiveReadAhead``).
    var ahead: ArchiveReadAhead?
    /// With ``ArchiveReadAheadMode/forLongLines``: the ring to start once the decision is
    /// made (``decideReadAhead()``), nil once made.
    var deferredRing: (batchBytes: Int, slots: Int)?
    /// Decompressed bytes looked at before deciding (``readAheadDecisionBytes``; smaller in tests).
    let decisionBytes: Int
    /// Decompressed bytes taken so far (counted until the decision).
    var decompressedBytes = 0
    /// Where ``decompressor`` decompresses to without ``sharedLines`` (with them it writes
    /// into ``store``; unused with ``readAhead``).
    var output: [UInt8]
    /// Whether decompression runs on a thread of its own, ahead of the lines.
    public var readAhead: Bool { ahead != nil }
    /// Compressed bytes consumed as of the last step taken.
    public internal(set) var compressedOffset = 0
    /// Where the frame being read starts.
    var frameStart = 0
    var finished = false
    var pending: [UInt8] = []
    /// With ``sharedLines``: the decompressed bytes of the lines not yet handed out
    /// (and of those handed out since the last reset), each with its newline, up to
    /// ``storeEnd``, and where the line being read starts. Its count is what can be
    /// written: the decompressor writes after ``storeEnd`` in place.
    var store: [UInt8] = []
    /// The end of the bytes in ``store``.
    var storeEnd = 0
    /// The offset in ``store`` of each newline cut since the last reset (``LineRun/ends``).
    var lineEnds: [Int] = []
    var lineStart = 0
    /// Whether a consumer keeps the runs ``withPlainRun(_:)`` hands it and gives them
    /// back later (``recycle(_:)``): ``ArchivePipeline`` hands them to another thread
    /// instead of copying them. The buffer a run was lent from is then not reused in
    /// place but set aside, and a spare one takes the line being read. Off: runs are to
    /// be let go of before the next call.
    var lendsRuns = false {
        didSet { if !lendsRuns { endLending() } }
    }
    /// Runs of ``store`` lent out and not yet handed back.
    var storeRunsOut = 0
    /// Buffers with runs lent out, and how many, waiting for them to come back
    /// (``recycle(_:)``).
    var lentBuffers: [(buffer: [UInt8], runsOut: Int)] = []
    /// Buffers whose runs came back, to start the next store with.
    var spareBuffers: [[UInt8]] = []
    var discarding = false
    /// What is ready to hand out: items, and (with ``sharedLines``) runs of lines in ``store``.
    var queue: [Entry] = []
    var queueIndex = 0
    /// Lines (and findings) of the current frame, waiting for its end.
    var held: [Entry] = []
    var heldBytes = 0
    var heldOverflow = false

    /// Reads from `source`. With `readAhead`, decompression runs on a thread of its
    /// own (``ArchiveReadAhead``), a few batches ahead, from the start or once long lines
    /// show it is worth it (``ArchiveReadAheadMode``): the same lines and findings, in
    /// the same order, for a reader that has a second core to use.
    public convenience init(source: any ArchiveByteSource, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes,
                            maxWindowLog: Int32 = 24, salvage: Bool = false, maxHeldBytes: Int = 64 << 20,
                            sharedLines: Bool = false, readAhead: ArchiveReadAheadMode = .off) throws(ArchiveError) {
        try self.init(source: source, maxLineBytes: maxLineBytes, maxWindowLog: maxWindowLog, salvage: salvage,
                      maxHeldBytes: maxHeldBytes, sharedLines: sharedLines,
                      ring: readAhead == .off ? nil : (ArchiveReadAhead.batchBytes, ArchiveReadAhead.slotCount),
                      deferred: readAhead == .forLongLines)
    }

    /// Lines of at least this many bytes on average (newlines included) make
    /// ``ArchiveReadAheadMode/forLongLines`` start the read-ahead thread: from there,
    /// decompression costs more than the work on a line (the bench's image session
    /// averages 55 KB per record, its small-message session 310 bytes).
    public static let readAheadLineBytes = 2_048
    /// Decompressed bytes ``ArchiveReadAheadMode/forLongLines`` reads before it decides.
    public static let readAheadDecisionBytes = 1 << 20

    /// ``init(source:maxLineBytes:maxWindowLog:salvage:maxHeldBytes:sharedLines:readAhead:)``
    /// with the read-ahead ring's size (`nil`: no read-ahead), for tests; `deferred`: the
    /// ring starts only for long lines, decided after `decisionBytes`.
    init(source: any ArchiveByteSource, maxLineBytes: Int, maxWindowLog: Int32, salvage: Bool, maxHeldBytes: Int,
         sharedLines: Bool, ring: (batchBytes: Int, slots: Int)?, deferred: Bool = false,
         decisionBytes: Int = ArchiveLineReader.readAheadDecisionBytes) throws(ArchiveError) {
        let decompressor = try ArchiveDecompressor(source: source, maxWindowLog: maxWindowLog)
        self.maxLineBytes = max(1, maxLineBytes)
        self.salvage = salvage
        self.maxHeldBytes = max(1, maxHeldBytes)
        self.sharedLines = sharedLines
        self.decisionBytes = max(1, decisionBytes)
        output = []
        if let ring, deferred {
            deferredRing = ring
        } else if let ring, let ahead = ArchiveReadAhead.start(decompressor, batchBytes: ring.batchBytes, slots: ring.slots) {
            self.ahead = ahead
            return
        }
        self.decompressor = decompressor
        if !sharedLines { output = [UInt8](repeating: 0, count: ArchiveDecompressor.stepOutputBytes) }
    }

    /// Opens the file at `path`.
    public convenience init(path: String, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes, salvage: Bool = false) throws(ArchiveError) {
        try self.init(source: FileByteSource(path: path), maxLineBytes: maxLineBytes, salvage: salvage)
    }

    deinit {
        ahead?.stop()
    }

    /// The next line or finding, or nil at the end. I/O errors from the source end the
    /// stream with a `truncated-frame`-style finding naming the error.
    public func next() -> Item? {
        guard fillQueue() else { return nil }
        switch queue[queueIndex] {
        case .item(let item):
            queueIndex += 1
            return item
        case .run(var run):
            let line = cutLine(&run)
            if run.count == 0 {
                queueIndex += 1
            } else {
                queue[queueIndex] = .run(run)
            }
            return .line(line)
        }
    }

    /// Steps until something is ready to hand out; false at the end.
    func fillQueue() -> Bool {
        while queueIndex == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueIndex = 0
            if sharedLines && held.isEmpty { resetStore() }
            if finished { return false }
            step()
        }
        return true
    }

    /// Every line before the one being read was handed out: their bytes go (a line still
    /// held by the consumer keeps the old buffer; this one then starts a new one).
    func resetStore() {
        guard lineStart > 0 else { return }
        lineEnds.removeAll(keepingCapacity: true)
        if storeRunsOut > 0 {
            startAnotherStore()
        } else {
            // The line being read moves to the front; the count (what is writable) stays.
            let (from, count) = (lineStart, storeEnd - lineStart)
            if count > 0 {
                store.withUnsafeMutableBytes { s in _ = memmove(s.baseAddress!, s.baseAddress! + from, count) }
            }
            storeEnd = count
        }
        lineStart = 0
    }

    func finding(_ kind: ArchiveFinding.Kind, at offset: Int, line: Int?, _ message: String) {
        queue.append(.item(.finding(ArchiveFinding(kind: kind, compressedOffset: offset, line: line, lastSequence: 0, message: message))))
    }
}
