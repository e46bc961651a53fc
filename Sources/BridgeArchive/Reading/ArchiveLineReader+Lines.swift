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

    /// ``split(_:)`` with ``sharedLines``: the line's bytes and its newline are appended
    /// to ``store`` (the chunk's kept bytes in one copy), and the line joins the run of
    /// lines queued last (``LineRun``) or starts one. The line being read is
    /// `store[lineStart...]`. Only runs queued by this call are extended: what was queued
    /// before belongs to an earlier step.
    private func splitShared(_ o: UnsafeRawBufferPointer) {
        let floor = queue.count
        let count = o.count
        // The buffer and the queue are moved out of `self` for the loop: one access each,
        // not several per line.
        var store: [UInt8] = [], queue: [Entry] = []
        swap(&store, &self.store)
        swap(&queue, &self.queue)
        var linesRead = self.linesRead, lineStart = self.lineStart, discarding = self.discarding
        let frameStart = self.frameStart, maxLineBytes = self.maxLineBytes
        defer {
            swap(&store, &self.store)
            swap(&queue, &self.queue)
            self.linesRead = linesRead
            self.lineStart = lineStart
            self.discarding = discarding
        }
        do {
            let base = o.baseAddress!
            var start = 0
            // `o[copied..<start]` is owed to `store`: the lines kept go in with one copy
            // (at the end, or before an over-long line is cut off), not two appends
            // each; offsets in `store` are counted as if they were in already.
            var copied = 0
            while start < count {
                let found = memchr(base + start, 0x0A, count - start)
                let end = found.map { base.distance(to: UnsafeRawPointer($0)) } ?? count
                let length = end - start
                let storeCount = store.count + (start - copied)
                if discarding {
                    // skipping an over-long line
                    copied = found != nil ? end + 1 : count
                } else if storeCount - lineStart + length > maxLineBytes {
                    store.append(contentsOf: UnsafeRawBufferPointer(rebasing: o[copied..<start]))
                    discarding = true
                    store.removeSubrange(lineStart...)
                    copied = found != nil ? end + 1 : count
                } else if found != nil {
                    // The line and its newline, as they are in `o`.
                    linesRead += 1
                    let lineEnd = storeCount + length + 1
                    Self.append(.run(LineRun(first: linesRead, count: 1, start: lineStart, end: lineEnd, frameOffset: frameStart)),
                                to: &queue, floor: floor)
                    lineStart = lineEnd
                }
                if found != nil {
                    if discarding {
                        linesRead += 1
                        queue.append(.item(.finding(ArchiveFinding(kind: .lineTooLong, compressedOffset: frameStart, line: linesRead, lastSequence: 0,
                                                                   message: "line \(linesRead) is longer than \(maxLineBytes) bytes; skipped"))))
                        discarding = false
                    }
                    start = end + 1
                } else {
                    start = count
                }
            }
            store.append(contentsOf: UnsafeRawBufferPointer(rebasing: o[copied..<count]))
        }
    }

    private func emit(_ bytes: [UInt8]) {
        linesRead += 1
        queue.append(.item(.line(ArchiveLine(number: linesRead, slice: bytes[...], frameOffset: frameStart))))
    }
}
