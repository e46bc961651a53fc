/// Runs lent out (``ArchiveLineReader/lendsRuns``): the buffers they are cut from go
/// round between the reader and its consumer instead of each run being copied.
///
/// A buffer with a run still out is set aside when the reader would reuse it in place
/// (``ArchiveLineReader/resetStore()``), and the line being read starts a spare buffer.
/// The consumer hands each run back when done with it (``ArchiveLineReader/recycle(_:)``);
/// once all the runs of a buffer are back, it becomes a spare. Freeing the buffers
/// instead cost more than the copy saved: glibc gives a freed block of a MiB back to the
/// kernel, and the next one faults its pages in again (53,000 page faults instead of
/// 7,000 on the bench's small session). Values stay values: a buffer that some other
/// slice still holds is not written over (emptying it makes a new one, as for any shared
/// array).
extension ArchiveLineReader {
    /// Spare buffers kept at most, and buffers waiting for their runs remembered at most
    /// (a consumer that keeps runs without handing them back only costs their reuse).
    static let maxSpareBuffers = 8

    /// The line being read (from ``lineStart``) moves to a spare buffer, or a new one of
    /// the same capacity; the old buffer, with runs still out, waits for them.
    func startAnotherStore() {
        // A spare is this reader's alone once its runs came back: written over in place,
        // at the size it has (asking for the old buffer's would grow every buffer by a
        // page each time round, and none would be reused). A new one is as large as this.
        var next = spareBuffers.popLast() ?? [UInt8](repeating: 0, count: store.count)
        let count = storeEnd - lineStart
        if next.count < count { next.append(contentsOf: repeatElement(0, count: count - next.count)) }
        if count > 0 {
            let from = lineStart
            store.withUnsafeBytes { s in
                next.withUnsafeMutableBytes { n in
                    UnsafeMutableRawBufferPointer(rebasing: n[0..<count]).copyMemory(from: UnsafeRawBufferPointer(rebasing: s[from..<(from + count)]))
                }
            }
        }
        storeEnd = count
        swap(&next, &store)
        if lentBuffers.count == Self.maxSpareBuffers { lentBuffers.removeFirst() }
        lentBuffers.append((next, storeRunsOut))
        storeRunsOut = 0
    }

    /// Takes back a run ``withPlainRun(_:)`` lent; once all the runs of its buffer are
    /// back, the buffer is a spare. A run of no buffer lent (a copy) is just let go of.
    func recycle(_ run: consuming ArraySlice<UInt8>) {
        let address = run.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        _ = consume run
        func holds(_ buffer: [UInt8]) -> Bool {
            buffer.withUnsafeBytes { b in
                let start = UInt(bitPattern: b.baseAddress)
                return start != 0 && address >= start && address < start + UInt(b.count)
            }
        }
        if storeRunsOut > 0, holds(store) {
            storeRunsOut -= 1
            return
        }
        guard let i = lentBuffers.firstIndex(where: { holds($0.buffer) }) else { return }
        lentBuffers[i].runsOut -= 1
        if lentBuffers[i].runsOut == 0 { keepSpare(lentBuffers.remove(at: i).buffer) }
    }

    /// Keeps `buffer` for a later store, up to ``maxSpareBuffers``.
    private func keepSpare(_ buffer: [UInt8]) {
        if spareBuffers.count < Self.maxSpareBuffers { spareBuffers.append(buffer) }
    }

    /// Lending stops: buffers waiting or spare are let go of.
    func endLending() {
        lentBuffers.removeAll()
        spareBuffers.removeAll()
        storeRunsOut = 0
    }
}
