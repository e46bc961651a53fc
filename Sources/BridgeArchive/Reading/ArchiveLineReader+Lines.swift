#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveLineReader {
    /// Cuts decompressed bytes into lines, checking the line length limit before
    /// buffering anything.
    func split(_ o: UnsafeRawBufferPointer) {
        if sharedLines { return splitShared(o) }
        let count = o.count
        do {
            let base = o.baseAddress!
            var start = 0
            while start < count {
                let found = memchr(base + start, 0x0A, count - start)
                let end = found.map { base.distance(to: UnsafeRawPointer($0)) } ?? count
                let segment = UnsafeRawBufferPointer(start: base + start, count: end - start)
                if discarding {
                    // skipping an over-long line
                } else if pending.count + segment.count > maxLineBytes {
                    discarding = true
                    pending.removeAll()
                } else if found != nil && pending.isEmpty {
                    emit(Array(segment))
                } else {
                    pending.append(contentsOf: segment)
                    if found != nil {
                        emit(pending)
                        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
                    }
                }
                if found != nil {
                    if discarding {
                        linesRead += 1
                        finding(.lineTooLong, at: frameStart, line: linesRead,
                                "line \(linesRead) is longer than \(maxLineBytes) bytes; skipped")
                        discarding = false
                    }
                    start = end + 1
                } else {
                    start = count
                }
            }
        }
    }

    /// ``split(_:)`` with ``sharedLines``, for bytes decompressed elsewhere (the
    /// read-ahead thread's batches): copied after the bytes kept, then cut in place.
    private func splitShared(_ o: UnsafeRawBufferPointer) {
        guard o.count > 0 else { return }
        reserveStore(o.count)
        let at = storeEnd
        store.withUnsafeMutableBytes { s in
            UnsafeMutableRawBufferPointer(rebasing: s[at..<(at + o.count)]).copyMemory(from: o)
        }
        splitStored(o.count)
    }

    /// Cuts the `count` bytes just written after ``storeEnd`` (decompressed there in
    /// place, or copied) into lines, checking the line length limit: each complete line
    /// and its newline stay where they are, and join the run of lines this call is
    /// building (``LineRun``; queued when a finding comes between, and at the end); each
    /// newline's offset goes to ``lineEnds``, so that no reader of the run searches for it
    /// again. The line being read is `store[lineStart..<storeEnd]`. An over-long line's
    /// bytes are dropped, and what follows it moves back over them. Runs queued before
    /// belong to an earlier step and are not extended.
    func splitStored(_ count: Int) {
        // The buffer, the queue and the newlines are moved out of `self` for the loop: one
        // access each, not several per line.
        var store: [UInt8] = [], queue: [Entry] = [], lineEnds: [Int] = []
        swap(&store, &self.store)
        swap(&queue, &self.queue)
        swap(&lineEnds, &self.lineEnds)
        var linesRead = self.linesRead, lineStart = self.lineStart, discarding = self.discarding
        let frameStart = self.frameStart, maxLineBytes = self.maxLineBytes
        // Bytes kept end at `kept`; the bytes not cut yet start at `start`. They are the
        // same place until an over-long line is dropped.
        var kept = storeEnd, start = storeEnd
        let limit = storeEnd + count
        // The run being built: held here, not rewritten in the queue per line.
        var run: LineRun?
        defer {
            if let run { queue.append(.run(run)) }
            swap(&store, &self.store)
            swap(&queue, &self.queue)
            swap(&lineEnds, &self.lineEnds)
            self.linesRead = linesRead
            self.lineStart = lineStart
            self.discarding = discarding
            self.storeEnd = kept
        }
        store.withUnsafeMutableBytes { s in
            let base = s.baseAddress!
            while start < limit {
                let found = memchr(base + start, 0x0A, limit - start)
                let end = found.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) } ?? limit
                let length = end - start
                if discarding {
                    // skipping an over-long line
                } else if kept - lineStart + length > maxLineBytes {
                    discarding = true
                    kept = lineStart
                } else {
                    // The segment (and its newline) stays, moved back if bytes were dropped.
                    let taken = found != nil ? length + 1 : length
                    if kept != start { memmove(base + kept, base + start, taken) }
                    kept += taken
                    if found != nil {
                        linesRead += 1
                        lineEnds.append(kept - 1)
                        if run == nil {
                            run = LineRun(first: linesRead, count: 1, start: lineStart, end: kept, frameOffset: frameStart,
                                          ends: lineEnds.count - 1)
                        } else {
                            run!.count += 1
                            run!.end = kept
                        }
                        lineStart = kept
                    }
                }
                if found != nil {
                    if discarding {
                        linesRead += 1
                        if let built = run { queue.append(.run(built)) }
                        run = nil
                        queue.append(.item(.finding(ArchiveFinding(kind: .lineTooLong, compressedOffset: frameStart, line: linesRead, lastSequence: 0,
                                                                   message: "line \(linesRead) is longer than \(maxLineBytes) bytes; skipped"))))
                        discarding = false
                    }
                    start = end + 1
                } else {
                    start = limit
                }
            }
        }
    }

    /// Makes room for `count` more bytes after ``storeEnd``: ``store``'s count is what is
    /// writable (zero-filled once, when it grows, by half again at least).
    func reserveStore(_ count: Int) {
        let needed = storeEnd + count
        guard needed > store.count else { return }
        let grown = Swift.max(needed, store.count + store.count / 2)
        store.append(contentsOf: repeatElement(0, count: grown - store.count))
    }

    private func emit(_ bytes: [UInt8]) {
        linesRead += 1
        queue.append(.item(.line(ArchiveLine(number: linesRead, slice: bytes[...], frameOffset: frameStart))))
    }
}
