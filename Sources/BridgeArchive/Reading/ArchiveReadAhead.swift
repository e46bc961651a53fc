/// Runs an ``ArchiveDecompressor`` on a thread of its own, a few batches ahead of the
/// line reader, so that decompression and the work on lines share two cores instead of
/// taking turns on one (`ArchiveLineReader`'s `readAhead`).
///
/// The decompressor's steps are exactly those it would take on the reader's thread, in
/// the same order: only where they run changes, so every finding and line is the same.
///
/// - Memory: ``slotCount`` batches of ``batchBytes`` decompressed bytes each (by
///   default; at least two of at least one step's output), allocated once: batches go
///   to the reader through one ``ThreadPipe`` and come back through another.
/// - A batch is handed over when full, at the end, and before the decompressor reads
///   from its source (which may block: a pipe), so a live stream is not held back.
/// - ``stop()`` (the reader's `deinit`) tells the thread to end at its next wait; the
///   thread owns the decompressor (and so the source's file descriptor) and releases it.
final class ArchiveReadAhead {
    /// Decompressed bytes per batch, by default.
    static let batchBytes = 1 << 20
    /// Batches in the ring, by default.
    static let slotCount = 4

    /// Decompressed bytes and the steps that produced them.
    final class Batch {
        let bytes: UnsafeMutableRawBufferPointer
        var steps: [(step: ArchiveDecompressor.Step, range: Range<Int>)] = []

        init(bytes count: Int) {
            bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        }

        deinit {
            bytes.deallocate()
        }
    }

    /// Filled batches, to the reader.
    private let filled: ThreadPipe<Batch>
    /// Read batches, back to the thread (one slot more, for ``stop()``'s end mark).
    private let empty: ThreadPipe<Batch>
    /// The reader's side: the batch being read and the next step in it.
    private var batch: Batch?
    private var stepIndex = 0
    private var ended = false

    /// Starts the thread that runs `decompressor` (handed to it: the caller no longer
    /// touches it); nil when no thread could be made (the caller then steps the
    /// decompressor itself).
    static func start(_ decompressor: ArchiveDecompressor, batchBytes: Int = batchBytes,
                      slots: Int = slotCount) -> ArchiveReadAhead? {
        let count = max(2, slots)
        let ahead = ArchiveReadAhead(slots: count)
        for _ in 0..<count { ahead.empty.put(Batch(bytes: max(batchBytes, ArchiveDecompressor.stepOutputBytes))) }
        let started = DetachedThread.start(handing: decompressor) { [filled = ahead.filled, empty = ahead.empty] decompressor in
            Self.produce(decompressor, filled: filled, empty: empty)
        }
        return started ? ahead : nil
    }

    private init(slots: Int) {
        filled = ThreadPipe(capacity: slots)
        empty = ThreadPipe(capacity: slots + 1)
    }

    /// The thread: fills empty batches until the decompressor has finished or the
    /// reader has stopped.
    private static func produce(_ decompressor: ArchiveDecompressor, filled: ThreadPipe<Batch>, empty: ThreadPipe<Batch>) {
        while let batch = empty.take() {
            batch.steps.removeAll(keepingCapacity: true)
            let buf = batch.bytes
            var used = 0
            while !decompressor.finished, used + ArchiveDecompressor.stepOutputBytes <= buf.count {
                if decompressor.needsRead && !batch.steps.isEmpty { break }
                let step = decompressor.step(into: UnsafeMutableRawBufferPointer(rebasing: buf[used...]))
                let start = used
                if case .output(let count, _, _, _) = step { used += count }
                batch.steps.append((step, start..<used))
            }
            guard filled.put(batch) else { return }
            if decompressor.finished {
                filled.finish()
                return
            }
        }
    }

    /// The next step and its bytes (valid until the next call), or nil after the last.
    func next() -> (step: ArchiveDecompressor.Step, bytes: UnsafeRawBufferPointer)? {
        while !ended {
            if let batch, stepIndex < batch.steps.count {
                let (step, range) = batch.steps[stepIndex]
                stepIndex += 1
                return (step, UnsafeRawBufferPointer(rebasing: batch.bytes[range]))
            }
            if let batch { empty.put(batch) }
            batch = filled.take()
            stepIndex = 0
            if batch == nil { ended = true }
        }
        return nil
    }

    /// Tells the thread to end at its next wait (the reader is done with it).
    func stop() {
        filled.cancel()
        empty.finish()
    }
}
