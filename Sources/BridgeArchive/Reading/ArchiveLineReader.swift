import CZstd

/// One decompressed archive line (without its newline).
public struct ArchiveLine: Sendable, Hashable {
    /// 1-based line number in the decompressed stream (the header is line 1).
    public var number: Int
    /// The line's bytes, exactly as in the archive.
    public var bytes: [UInt8]
    /// Offset in the compressed file of the zstd frame the line ended in.
    public var frameOffset: Int
}

/// Streams the lines of a zstd-compressed JSON Lines file with bounded memory, and
/// turns every kind of damage into a finding instead of an error.
///
/// - Decompresses with `ZSTD_decompressStream` in chunks of `ZSTD_DStreamInSize()`
///   (about 128 KiB) into chunks of `ZSTD_DStreamOutSize()`.
/// - A line is buffered only while its length stays within ``maxLineBytes``; a longer
///   line is skipped to its newline and reported (`line-too-long`).
/// - Frames may need a window of at most 2^``maxWindowLog`` bytes (16 MiB by default);
///   a frame asking for more is reported as corrupt.
/// - At the end of the input inside a frame: `truncated-frame`; bytes after the last
///   newline: `partial-line` (dropped). On corrupt data: `corrupt-data`, then the
///   reader looks for the next frame's magic number after the point of detection and
///   goes on from there. On a checksum mismatch: `checksum-mismatch`, then the next
///   frame.
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
    /// Log2 of the largest window a frame may ask for. Default 24 (16 MiB).
    public let maxWindowLog: Int32
    /// Lines completed so far (skipped over-long lines included).
    public internal(set) var linesRead = 0
    /// Compressed bytes consumed so far.
    public var compressedOffset: Int { inStart + inPos }

    var source: any ArchiveByteSource
    let dctx: OpaquePointer
    var input: [UInt8]
    var inStart = 0, inPos = 0, inEnd = 0
    var output: [UInt8]
    var frameStart = 0
    var inFrame = false
    var finished = false
    var pending: [UInt8] = []
    var discarding = false
    var queue: [Item] = []
    var queueIndex = 0

    /// Reads from `source`.
    public init(source: any ArchiveByteSource, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes,
                maxWindowLog: Int32 = 24) throws(ArchiveError) {
        guard let d = ZSTD_createDCtx() else {
            throw ArchiveError(.compression, path: source.name, "ZSTD_createDCtx failed (out of memory)")
        }
        self.dctx = d
        self.source = source
        self.maxLineBytes = max(1, maxLineBytes)
        self.maxWindowLog = maxWindowLog
        input = [UInt8](repeating: 0, count: ZSTD_DStreamInSize())
        output = [UInt8](repeating: 0, count: ZSTD_DStreamOutSize())
        let r = ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, maxWindowLog)
        if ZSTD_isError(r) != 0 {
            ZSTD_freeDCtx(d)
            throw ArchiveError(.compression, path: source.name, "zstd: cannot limit the window: \(String(cString: ZSTD_getErrorName(r)))")
        }
    }

    /// Opens the file at `path`.
    public convenience init(path: String, maxLineBytes: Int = BridgeArchiveFormat.maxLineBytes) throws(ArchiveError) {
        try self.init(source: FileByteSource(path: path), maxLineBytes: maxLineBytes)
    }

    deinit {
        ZSTD_freeDCtx(dctx)
    }

    /// The next line or finding, or nil at the end. I/O errors from the source end the
    /// stream with a `truncated-frame`-style finding naming the error.
    public func next() -> Item? {
        while queueIndex == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueIndex = 0
            if finished { return nil }
            step()
        }
        let item = queue[queueIndex]
        queueIndex += 1
        return item
    }

    func finding(_ kind: ArchiveFinding.Kind, at offset: Int, line: Int?, _ message: String) {
        queue.append(.finding(ArchiveFinding(kind: kind, compressedOffset: offset, line: line, lastSequence: 0, message: message)))
    }
}
