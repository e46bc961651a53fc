import CZstd

/// The zstd half of ``ArchiveLineReader``: reads compressed bytes from a source and
/// turns them into decompressed bytes and the damage it meets, one step at a time, and
/// knows nothing of lines. It owns the source and the libzstd context, so it can run
/// on a thread of its own (``ArchiveReadAhead``) while lines are cut on another.
///
/// Every step consumes input, produces output or ends, so a caller that steps until
/// ``Step/finished`` never hangs.
final class ArchiveDecompressor {
    /// What one step met.
    enum Step {
        /// `count` bytes decompressed into the caller's buffer, from the frame that starts
        /// at `frameStart`; `frameComplete` when that call ended the frame and libzstd
        /// verified its content checksum.
        case output(count: Int, frameComplete: Bool, frameStart: Int, offset: Int)
        /// libzstd reported damage at `offset` in the frame that starts at `frameStart`
        /// (or made no progress); reading resumed at the frame magic found at `resumed`,
        /// or none was found (the end). A read error met while searching is `readError`
        /// (at `readErrorOffset`): it ended the input.
        case damage(Damage)
        /// The source failed at `offset`: the input ends here.
        case readError(message: String, offset: Int)
        /// The input ended at `offset`, inside the frame that starts at `frameStart`
        /// when `inFrame`.
        case endOfInput(inFrame: Bool, frameStart: Int, offset: Int)
    }

    /// Damage and what the search for the next frame found.
    struct Damage {
        /// `checksum-mismatch` or `corrupt-data`.
        var kind: ArchiveFinding.Kind
        /// What libzstd said.
        var what: String
        /// The compressed offset where it was met.
        var offset: Int
        /// Where the damaged frame starts.
        var frameStart: Int
        /// Where reading resumed, nil when no later frame was found.
        var resumed: Int?
        /// A read error met while searching, and where.
        var readError: (message: String, offset: Int)?
        /// The compressed offset once the search ended.
        var offsetAfter = 0
    }

    /// `ZSTD_error_checksum_wrong` (22 in zstd_errors.h; error results are `-code`).
    static let checksumWrong = -22

    /// The largest output one step produces (`ZSTD_DStreamOutSize()`).
    static let stepOutputBytes = ZSTD_DStreamOutSize()

    var source: any ArchiveByteSource
    let dctx: OpaquePointer
    var input: [UInt8]
    var inStart = 0, inPos = 0, inEnd = 0
    var frameStart = 0
    var inFrame = false
    /// True once ``Step/endOfInput(inFrame:frameStart:offset:)``, a read error or damage
    /// with no later frame was returned: no further step.
    private(set) var finished = false
    private var stalled: Damage?

    /// Compressed bytes consumed so far.
    var compressedOffset: Int { inStart + inPos }

    /// Reads from `source`; frames may ask for a window of at most 2^`maxWindowLog` bytes.
    init(source: any ArchiveByteSource, maxWindowLog: Int32) throws(ArchiveError) {
        guard let d = ZSTD_createDCtx() else {
            throw ArchiveError(.compression, path: source.name, "ZSTD_createDCtx failed (out of memory)")
        }
        let r = ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, maxWindowLog)
        if ZSTD_isError(r) != 0 {
            ZSTD_freeDCtx(d)
            throw ArchiveError(.compression, path: source.name, "zstd: cannot limit the window: \(String(cString: ZSTD_getErrorName(r)))")
        }
        self.dctx = d
        self.source = source
        input = [UInt8](repeating: 0, count: ZSTD_DStreamInSize())
    }

    deinit {
        ZSTD_freeDCtx(dctx)
    }

    /// Whether the next step reads from the source first (and so may block on it).
    var needsRead: Bool { inPos == inEnd && stalled == nil }

    /// One unit of work: decompress one call's worth into `output` (at most
    /// ``stepOutputBytes`` are used), or report damage or the end.
    func step(into output: UnsafeMutableRawBufferPointer) -> Step {
        precondition(!finished, "step after the end")
        if let damage = stalled {
            stalled = nil
            return recover(damage)
        }
        if inPos == inEnd {
            if let failure = refill() {
                finished = true
                return .readError(message: failure, offset: compressedOffset)
            }
            if inPos == inEnd {
                finished = true
                return .endOfInput(inFrame: inFrame, frameStart: frameStart, offset: compressedOffset)
            }
        }
        let before = inPos
        let started = frameStart
        let (result, produced): (Int, Int) = input.withUnsafeBytes { i in
            var inBuf = ZSTD_inBuffer(src: i.baseAddress! + inPos, size: inEnd - inPos, pos: 0)
            var outBuf = ZSTD_outBuffer(dst: output.baseAddress, size: Swift.min(output.count, Self.stepOutputBytes), pos: 0)
            let r = ZSTD_decompressStream(dctx, &outBuf, &inBuf)
            inPos += inBuf.pos
            return (r, outBuf.pos)
        }
        if ZSTD_isError(result) != 0 {
            let what = result == Self.checksumWrong
                ? "the content checksum of the frame does not match: its last part was dropped and the lines read from it before may be damaged"
                : "zstd: \(String(cString: ZSTD_getErrorName(result)))"
            return recover(Damage(kind: result == Self.checksumWrong ? .checksumMismatch : .corruptData, what: what,
                                  offset: compressedOffset, frameStart: frameStart))
        }
        if result == 0 {
            inFrame = false
            frameStart = compressedOffset
        } else {
            inFrame = true
        }
        if inPos == before && produced == 0 && result != 0 {
            // libzstd made no progress with input and output space: treat as damage
            // rather than loop (it should not happen).
            stalled = Damage(kind: .corruptData, what: "the decompressor made no progress", offset: compressedOffset, frameStart: frameStart)
        }
        return .output(count: produced, frameComplete: result == 0, frameStart: started, offset: compressedOffset)
    }

    /// Reads the next input; the error's message when the source failed.
    private func refill() -> String? {
        inStart += inEnd
        inPos = 0
        inEnd = 0
        var src = source
        let result: Result<Int, ArchiveError> = input.withUnsafeMutableBytes { buf in
            do throws(ArchiveError) { return .success(try src.read(into: buf)) } catch { return .failure(error) }
        }
        source = src
        switch result {
        case .success(let n):
            inEnd = n
            return nil
        case .failure(let error):
            return error.message
        }
    }

    /// Resets libzstd after damage and resumes at the next frame magic found after it
    /// (if any). libzstd leaves both buffers' positions where the failing call started,
    /// so the search starts inside the damaged frame and no later frame is skipped; a
    /// magic number that is really compressed data fails again and the search goes on,
    /// one byte further each time at least, so this always ends.
    private func recover(_ damage: Damage) -> Step {
        var damage = damage
        ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only)
        inFrame = false
        // Never resume at the frame that just failed: search from one byte past its start.
        if compressedOffset <= damage.frameStart && inPos < inEnd { inPos += 1 }
        damage.resumed = seekNextFrame(&damage)
        damage.offsetAfter = compressedOffset
        if let resumed = damage.resumed {
            frameStart = resumed
        } else {
            finished = true
        }
        return .damage(damage)
    }

    /// Moves the input to the next zstd frame magic (`28 B5 2F FD`) at or after the
    /// current position; returns its offset, or nil at the end of the input (or when
    /// reading failed: `damage.readError`).
    private func seekNextFrame(_ damage: inout Damage) -> Int? {
        let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        var matched = 0
        while true {
            if inPos == inEnd {
                // `matched` carries a partial match across the refill; the bytes are
                // known, so ``rewindMagic()`` can put them back.
                if let failure = refill() {
                    damage.readError = (failure, compressedOffset)
                    return nil
                }
                if inPos == inEnd { return nil }
            }
            while inPos < inEnd {
                let c = input[inPos]
                inPos += 1
                if c == magic[matched] {
                    matched += 1
                    if matched == 4 {
                        let offset = compressedOffset - 4
                        rewindMagic()
                        return offset
                    }
                } else {
                    matched = c == magic[0] ? 1 : 0
                }
            }
        }
    }

    /// The magic was just consumed; feed it back to libzstd before what follows.
    private func rewindMagic() {
        if inPos >= 4 {
            inPos -= 4
        } else {
            // The magic straddled a refill: rebuild the buffer with it in front.
            let rest = Array(input[inPos..<inEnd])
            let head: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
            let combined = head + rest
            if combined.count > input.count { input = [UInt8](repeating: 0, count: combined.count) }
            input.replaceSubrange(0..<combined.count, with: combined)
            inStart = inStart + inPos - 4
            inPos = 0
            inEnd = combined.count
        }
    }
}
