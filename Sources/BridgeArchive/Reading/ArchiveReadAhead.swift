import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs an ``ArchiveDecompressor`` on a thread of its own, a few batches ahead of the
/// line reader, so that decompression and the work on lines share two cores instead of
/// taking turns on one (`ArchiveLineReader`'s `readAhead`).
///
/// The decompressor's steps are exactly those it would take on the reader's thread, in
/// the same order: only where they run changes, so every finding and line is the same.
///
/// - Memory: ``slotCount`` batches of ``batchBytes`` decompressed bytes each (by
///   default; at least two of at least one step's output).
/// - A batch is handed over when full, at the end, and before the decompressor reads
///   from its source (which may block: a pipe), so a live stream is not held back.
/// - Batches go round a fixed ring; two semaphores count the full and the free ones.
///   A slot belongs to the producer between taking a free permit and signalling it
///   full, and to the consumer between taking the full permit and handing it back:
///   never to both (hence `@unchecked Sendable`).
/// - ``stop()`` (the reader's `deinit`) tells the thread to end at its next wait; the
///   thread owns the decompressor (and so the source's file descriptor) and releases it.
final class ArchiveReadAhead: @unchecked Sendable {
    /// Decompressed bytes per batch, by default.
    static let batchBytes = 1 << 20
    /// Batches in the ring, by default.
    static let slotCount = 4

    /// Decompressed bytes and the steps that produced them.
    final class Batch {
        let bytes: UnsafeMutableRawBufferPointer
        var used = 0
        var steps: [(step: ArchiveDecompressor.Step, range: Range<Int>)] = []

        init(bytes count: Int) {
            bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        }

        deinit {
            bytes.deallocate()
        }
    }

    private let decompressor: ArchiveDecompressor
    private let slots: [Batch]
    // Both start at 0 (libdispatch traps when a semaphore is freed below its starting
    // value, which `free` would be once the last batch is never handed back).
    private let full = DispatchSemaphore(value: 0)
    private let free = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// The consumer's position: the slot it reads and the step in it.
    private var readSlot = 0
    private var readStep = 0
    private var holding = false
    private var ended = false

    /// The processors online.
    static func usableCores() -> Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// Starts the thread that runs `decompressor`; nil when no thread could be made
    /// (the caller then steps the decompressor itself).
    static func start(_ decompressor: ArchiveDecompressor, batchBytes: Int = batchBytes,
                      slots: Int = slotCount) -> ArchiveReadAhead? {
        let ahead = ArchiveReadAhead(decompressor, batchBytes: max(batchBytes, ArchiveDecompressor.stepOutputBytes),
                                     slots: max(2, slots))
        var thread = pthread_t()
        let context = Unmanaged.passRetained(ahead).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            let ahead = Unmanaged<ArchiveReadAhead>.fromOpaque(context!).takeRetainedValue()
            ahead.produce()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<ArchiveReadAhead>.fromOpaque(context).release()
            return nil
        }
        pthread_detach(thread)
        return ahead
    }

    private init(_ decompressor: ArchiveDecompressor, batchBytes: Int, slots count: Int) {
        self.decompressor = decompressor
        slots = (0..<count).map { _ in Batch(bytes: batchBytes) }
        for _ in 0..<count { free.signal() }
    }

    /// The producer: fills free slots until the decompressor has finished or the
    /// consumer has stopped.
    private func produce() {
        var writeSlot = 0
        while true {
            free.wait()
            if stopped.load(ordering: .acquiring) { return }
            let batch = slots[writeSlot]
            batch.used = 0
            batch.steps.removeAll(keepingCapacity: true)
            let buf = batch.bytes
            while !decompressor.finished, batch.used + ArchiveDecompressor.stepOutputBytes <= buf.count {
                if decompressor.needsRead && !batch.steps.isEmpty { break }
                let start = batch.used
                let step = decompressor.step(into: UnsafeMutableRawBufferPointer(rebasing: buf[start...]))
                if case .output(let count, _, _, _) = step { batch.used += count }
                batch.steps.append((step, start..<batch.used))
            }
            writeSlot = (writeSlot + 1) % slots.count
            full.signal()
            if decompressor.finished { return }
        }
    }

    /// The next step and its bytes (valid until the next call), or nil after the last.
    func next() -> (step: ArchiveDecompressor.Step, bytes: UnsafeRawBufferPointer)? {
        while true {
            if ended { return nil }
            if !holding {
                full.wait()
                holding = true
                readStep = 0
            }
            let batch = slots[readSlot]
            if readStep < batch.steps.count {
                let (step, range) = batch.steps[readStep]
                readStep += 1
                switch step {
                case .output: break
                case .damage(let d): if d.resumed == nil { ended = true }
                case .readError, .endOfInput: ended = true
                }
                return (step, UnsafeRawBufferPointer(rebasing: batch.bytes[range]))
            }
            holding = false
            readSlot = (readSlot + 1) % slots.count
            free.signal()
        }
    }

    /// Tells the thread to end at its next wait (the reader is done with it).
    func stop() {
        stopped.store(true, ordering: .releasing)
        free.signal()
    }
}
