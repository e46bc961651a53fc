import Dispatch
import Synchronization

/// A bounded queue from one producer thread to one consumer thread, for the stages of
/// reading that run side by side (``ArchiveReadAhead``, ``ArchivePipeline``).
///
/// - At most ``capacity`` elements wait; ``put(_:)`` blocks while the queue is full,
///   ``take()`` while it is empty.
/// - The producer ends with ``finish()``; the consumer then gets nil after the last element.
/// - The consumer may ``cancel()``: ``put(_:)`` then returns false at once, and the
///   producer is expected to stop.
/// - Slots go round a fixed ring; two semaphores count the full and the free ones. A
///   slot belongs to the producer between taking a free permit and signalling it full,
///   and to the consumer between taking the full permit and handing it back: never to
///   both (hence `@unchecked Sendable`).
package final class ThreadPipe<Element>: @unchecked Sendable {
    /// Elements that may wait.
    let capacity: Int
    /// The ring: allocated once, each slot an element (or nil) and whether it marks the
    /// end. The two sides touch different slots, never the storage as a whole (an
    /// `Array` would be mutated as a whole by both: its uniqueness check and write-back).
    private let slots: UnsafeMutablePointer<(element: Element?, ended: Bool)>
    private var writeIndex = 0
    private var readIndex = 0
    // Both start at 0 (libdispatch traps when a semaphore is freed below its starting
    // value, which `free` would be once a slot is never handed back).
    private let full = DispatchSemaphore(value: 0)
    private let free = DispatchSemaphore(value: 0)
    private let cancelled = Atomic<Bool>(false)
    private var consumerDone = false

    /// A pipe holding at most `capacity` (at least 1) elements.
    package init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        slots = .allocate(capacity: self.capacity)
        slots.initialize(repeating: (nil, false), count: self.capacity)
        for _ in 0..<self.capacity { free.signal() }
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Producer: queues `element`, waiting for room; false when the consumer cancelled.
    @discardableResult
    package func put(_ element: Element) -> Bool {
        guard waitForRoom() else { return false }
        slots[writeIndex] = (element, false)
        writeIndex = (writeIndex + 1) % capacity
        full.signal()
        return true
    }

    /// Producer: nothing more will be put.
    package func finish() {
        guard waitForRoom() else { return }
        slots[writeIndex] = (nil, true)
        writeIndex = (writeIndex + 1) % capacity
        full.signal()
    }

    /// Waits for a free slot; false once cancelled (the wake-up is passed on, so every
    /// later wait returns at once too).
    private func waitForRoom() -> Bool {
        if cancelled.load(ordering: .acquiring) { return false }
        free.wait()
        if cancelled.load(ordering: .acquiring) {
            free.signal()
            return false
        }
        return true
    }

    /// Consumer: the next element, waiting for one; nil once the producer finished.
    package func take() -> Element? {
        if consumerDone { return nil }
        full.wait()
        let element = slots[readIndex].element.take()
        if slots[readIndex].ended { consumerDone = true }
        readIndex = (readIndex + 1) % capacity
        free.signal()
        return element
    }

    /// Consumer: stop the producer (its next ``put(_:)`` or ``finish()`` returns at once).
    package func cancel() {
        cancelled.store(true, ordering: .releasing)
        free.signal()
    }
}
