extension ArchiveLineReader {
    /// One unit of work: the decompressor's next step (taken here, or by the read-ahead
    /// thread), turned into lines and findings.
    func step() {
        if deferredRing != nil, decompressedBytes >= decisionBytes { decideReadAhead() }
        if let ahead {
            guard let (step, bytes) = ahead.next() else {
                finished = true
                return
            }
            take(step, bytes)
        } else if let decompressor, sharedLines {
            // Decompressed in place, after the bytes kept: no copy of each byte into the
            // store (1-2% of `analyze`, more when the buffer was last read on another core).
            reserveStore(ArchiveDecompressor.stepOutputBytes)
            let at = storeEnd
            let step = store.withUnsafeMutableBytes { s in
                decompressor.step(into: UnsafeMutableRawBufferPointer(rebasing: s[at...]))
            }
            take(step, nil)
        } else if let decompressor {
            output.withUnsafeMutableBytes { o in
                let step = decompressor.step(into: o)
                take(step, UnsafeRawBufferPointer(o))
            }
        }
    }

    /// ``ArchiveReadAheadMode/forLongLines``, once ``decisionBytes`` are read: the
    /// decompressor moves to a thread of its own when the lines so far average
    /// ``readAheadLineBytes`` or more (a line not ended yet counts as one). It moves
    /// between two steps, so the steps, and the lines, are those it would have taken here.
    func decideReadAhead() {
        guard let ring = deferredRing else { return }
        deferredRing = nil
        guard decompressedBytes >= Self.readAheadLineBytes * (linesRead + 1), let decompressor,
              let started = ArchiveReadAhead.start(decompressor, batchBytes: ring.batchBytes, slots: ring.slots) else { return }
        ahead = started
        self.decompressor = nil
        output = []
    }

    /// Handles one decompressor step; `bytes` holds its output (from the first byte), or
    /// nil: it is in ``store``, from ``storeEnd`` on.
    private func take(_ step: ArchiveDecompressor.Step, _ bytes: UnsafeRawBufferPointer?) {
        switch step {
        case .output(let count, let frameComplete, let started, let offset):
            frameStart = started
            let mark = queue.count
            if count > 0 {
                if let bytes { split(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) } else { splitStored(count) }
            }
            if deferredRing != nil { decompressedBytes += count }
            compressedOffset = offset
            if frameComplete {
                // The frame is complete and its checksum verified: release what it held.
                queue.insert(contentsOf: held, at: mark)
                clearHeld()
                heldOverflow = false
                frameStart = offset
            } else {
                hold(from: mark)
            }
        case .damage(let damage):
            damaged(damage)
        case .readError(let message, let offset):
            compressedOffset = offset
            readFailed(message, at: offset)
            finished = true
        case .endOfInput(let inFrame, let started, let offset):
            compressedOffset = offset
            endOfInput(inFrame: inFrame, frameStart: started)
        }
    }

    private func readFailed(_ message: String, at offset: Int) {
        queue.append(contentsOf: held)
        clearHeld()
        finding(.truncatedFrame, at: offset, line: linesRead + 1, "reading stopped: \(message)")
        dropPending(at: offset)
    }

    private func endOfInput(inFrame: Bool, frameStart: Int) {
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
        } else if !pending.isEmpty || storeEnd > lineStart {
            finding(.partialLine, at: offset, line: linesRead + 1,
                    "\(pending.count + storeEnd - lineStart) bytes of an incomplete line \(linesRead + 1) dropped")
        }
        pending.removeAll()
        lineStart = storeEnd
    }

    /// The decompressor met damage (and has looked for the next frame): the frame's
    /// held lines are dropped (counted in the finding) or, with ``salvage``, handed out
    /// unverified, and the partial line goes.
    private func damaged(_ damage: ArchiveDecompressor.Damage) {
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
        }
        clearHeld()
        heldOverflow = false
        dropPending(at: damage.offset)
        if let (message, offset) = damage.readError { readFailed(message, at: offset) }
        compressedOffset = damage.offsetAfter
        let tail = damage.resumed.map { "reading resumed at the frame found at byte \($0)" } ?? "no later frame found"
        let dropped = lost.map { r in
            salvage ? "; its lines \(r.lowerBound)-\(r.upperBound) are handed out unverified"
                : "; its lines \(r.lowerBound)-\(r.upperBound) (\(r.count)) were not used, as they cannot be trusted (`bridgescope cat --salvage` prints them, marked)"
        } ?? ""
        finding(damage.kind, at: damage.offset, line: lost?.lowerBound ?? line,
                "\(damage.what) (in the frame that starts at byte \(damage.frameStart))\(dropped); \(tail)")
        if let resumed = damage.resumed {
            frameStart = resumed
        } else {
            finished = true
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
