import CZstd

extension ArchiveLineReader {
    /// `ZSTD_error_checksum_wrong` (22 in zstd_errors.h; error results are `-code`).
    static let checksumWrong = -22

    /// One unit of work: refill, decompress one call's worth, or end.
    func step() {
        if inPos == inEnd {
            refill()
            if finished { return }
            if inPos == inEnd {
                endOfInput()
                return
            }
        }
        let before = inPos
        let (result, produced): (Int, Int) = input.withUnsafeBytes { i in
            output.withUnsafeMutableBytes { o in
                var inBuf = ZSTD_inBuffer(src: i.baseAddress! + inPos, size: inEnd - inPos, pos: 0)
                var outBuf = ZSTD_outBuffer(dst: o.baseAddress, size: o.count, pos: 0)
                let r = ZSTD_decompressStream(dctx, &outBuf, &inBuf)
                inPos += inBuf.pos
                return (r, outBuf.pos)
            }
        }
        if ZSTD_isError(result) != 0 {
            damaged(result)
            return
        }
        let mark = queue.count
        if produced > 0 { split(produced) }
        if result == 0 {
            // The frame is complete and its checksum verified: release what it held.
            queue.insert(contentsOf: held, at: mark)
            clearHeld()
            heldOverflow = false
            inFrame = false
            frameStart = compressedOffset
        } else {
            inFrame = true
            hold(from: mark)
        }
        if inPos == before && produced == 0 && result != 0 {
            // libzstd made no progress with input and output space: treat as damage
            // rather than loop (it should not happen).
            damage(.corruptData, "the decompressor made no progress")
        }
    }

    private func refill() {
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
        case .failure(let error):
            queue.append(contentsOf: held)
            clearHeld()
            finding(.truncatedFrame, at: compressedOffset, line: linesRead + 1,
                    "reading stopped: \(error.message)")
            dropPending(at: compressedOffset)
            finished = true
        }
    }

    private func endOfInput() {
        // A truncated frame has no checksum to check: its complete lines are what the
        // writer flushed (a killed recorder leaves exactly that), handed out before the
        // finding that says the rest is lost.
        queue.append(contentsOf: held)
        clearHeld()
        if inFrame {
            finding(.truncatedFrame, at: compressedOffset, line: linesRead + 1,
                    "the file ends inside the zstd frame that starts at byte \(frameStart); what follows the last complete line is lost")
        }
        dropPending(at: compressedOffset)
        if compressedOffset == 0 {
            finding(.truncatedFrame, at: 0, line: nil, "the file is empty")
        }
        finished = true
    }

    private func dropPending(at offset: Int) {
        if discarding {
            finding(.lineTooLong, at: offset, line: linesRead + 1,
                    "line \(linesRead + 1) is longer than \(maxLineBytes) bytes and has no end; skipped")
            discarding = false
        } else if !pending.isEmpty || store.count > lineStart {
            finding(.partialLine, at: offset, line: linesRead + 1,
                    "\(pending.count + store.count - lineStart) bytes of an incomplete line \(linesRead + 1) dropped")
        }
        pending.removeAll()
        lineStart = store.count
    }

    /// libzstd reported an error. It then leaves both buffers' positions where the
    /// failing call started, so whatever that call decoded is lost and reading must
    /// resume at a later frame.
    private func damaged(_ code: Int) {
        if code == Self.checksumWrong {
            damage(.checksumMismatch, "the content checksum of the frame does not match: its last part was dropped and the lines read from it before may be damaged")
        } else {
            damage(.corruptData, "zstd: \(String(cString: ZSTD_getErrorName(code)))")
        }
    }

    /// Reports damage at the current position, drops the partial line, and resumes at
    /// the next frame magic number found after it (if any). The search starts where the
    /// failing call's input started (libzstd does not say how far it got), which is
    /// inside the damaged frame, so no later frame is skipped; a magic number that is
    /// really compressed data fails again and the search goes on, one byte further each
    /// time at least, so this always ends.
    private func damage(_ kind: ArchiveFinding.Kind, _ what: String) {
        let at = compressedOffset
        let startedAt = frameStart
        let line = linesRead + 1
        let lost = heldLineRange()
        if salvage {
            for entry in held {
                switch entry {
                case .item(.line(var l)):
                    l.verified = false
                    queue.append(.item(.line(l)))
                case .run(var run):
                    run.verified = false
                    queue.append(.run(run))
                case .item(.finding): break
                }
            }
            clearHeld()
        } else {
            clearHeld()
        }
        heldOverflow = false
        dropPending(at: at)
        ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only)
        inFrame = false
        // Never resume at the frame that just failed: search from one byte past its start.
        if compressedOffset <= startedAt && inPos < inEnd { inPos += 1 }
        let resumed = seekNextFrame()
        let tail = resumed.map { "reading resumed at the frame found at byte \($0)" } ?? "no later frame found"
        let dropped = lost.map { r in
            salvage ? "; its lines \(r.lowerBound)-\(r.upperBound) are handed out unverified"
                : "; its lines \(r.lowerBound)-\(r.upperBound) (\(r.count)) were not used, as they cannot be trusted (`bridgescope cat --salvage` prints them, marked)"
        } ?? ""
        finding(kind, at: at, line: lost?.lowerBound ?? line,
                "\(what) (in the frame that starts at byte \(startedAt))\(dropped); \(tail)")
        if let resumed {
            frameStart = resumed
        } else {
            finished = true
        }
    }

    /// Moves the input to the next zstd frame magic (`28 B5 2F FD`) at or after the
    /// current position; returns its offset, or nil at the end of the input.
    private func seekNextFrame() -> Int? {
        let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        var matched = 0
        while true {
            if inPos == inEnd {
                // `matched` carries a partial match across the refill; the bytes are
                // known, so ``rewindMagic()`` can put them back.
                refill()
                if finished || inPos == inEnd { finished = true; return nil }
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

    /// Moves the items queued from `mark` on into the current frame's hold; hands the
    /// hold out unverified, with a finding, once it passes ``maxHeldBytes``.
    func hold(from mark: Int) {
        guard mark < queue.count else { return }
        for entry in queue[mark...] {
            switch entry {
            case .item(.line(let l)):
                heldBytes += l.byteCount
                held.append(entry)
            case .run(let run):
                heldBytes += run.textBytes
                Self.append(entry, to: &held)
            case .item(.finding):
                held.append(entry)
            }
        }
        queue.removeSubrange(mark...)
        if heldBytes > maxHeldBytes {
            if !heldOverflow {
                finding(.unverifiedLines, at: frameStart, line: heldLineRange()?.lowerBound,
                        "the frame that starts at byte \(frameStart) holds more than \(maxHeldBytes) bytes of lines: they are handed out before its checksum can be checked")
                heldOverflow = true
            }
            queue.append(contentsOf: held)
            clearHeld()
        }
    }

    /// Empties the hold (its items were released or dropped by the caller).
    func clearHeld() {
        held.removeAll(keepingCapacity: true)
        heldBytes = 0
    }

    /// The first and last line numbers in the hold.
    func heldLineRange() -> ClosedRange<Int>? {
        var first: Int?, last: Int?
        for entry in held {
            switch entry {
            case .item(.line(let l)):
                if first == nil { first = l.number }
                last = l.number
            case .run(let run):
                if first == nil { first = run.first }
                last = run.first + run.count - 1
            case .item(.finding): break
            }
        }
        guard let first, let last else { return nil }
        return first...last
    }
}
