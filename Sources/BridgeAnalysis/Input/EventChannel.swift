/// A bounded hand-over of batches from the task that reads an input to the task that
/// analyses it: for an archive, decompressed lines (decompression runs on one core,
/// line interpretation, envelope decoding and the session rules on another); for a tap
/// log, ``AnalysisEvent``s.
///
/// Bounded by bytes in flight (``limitBytes``, 2 MiB by default): a reader that is
/// faster than the analyzer waits, so memory does not grow with the session. (With
/// 8 MiB, the many large lines freed on the other thread went back to the kernel and
/// were faulted in again: twice the system time.) A batch
/// larger than the limit is still accepted when the channel is empty, so one huge
/// message cannot block the reader forever.
///
/// One sender and one receiver. The receiver drains the channel until ``finish(_:)``;
/// both ends suspend with continuations (no thread is blocked), so any number of
/// channels can share the cooperative pool.
actor EventChannel<Element: Sendable> {
    /// Bytes that may wait in the channel before ``send(_:bytes:)`` suspends.
    let limitBytes: Int
    private var queue: [(items: [Element], bytes: Int)] = []
    private var head = 0
    private var bytesInFlight = 0
    private var finished = false
    private var failure: AnalysisError?
    private var waitingReceiver: CheckedContinuation<Void, Never>?
    private var waitingSender: CheckedContinuation<Void, Never>?

    init(limitBytes: Int = 2 << 20) {
        self.limitBytes = limitBytes
    }

    /// Hands over a batch of about `bytes` bytes; waits while the channel is full.
    func send(_ items: [Element], bytes: Int) async {
        while bytesInFlight > 0 && bytesInFlight + bytes > limitBytes {
            await withCheckedContinuation { waitingSender = $0 }
        }
        queue.append((items, bytes))
        bytesInFlight += bytes
        waitingReceiver?.resume()
        waitingReceiver = nil
    }

    /// Ends the stream, with the error that stopped the reader, if any.
    func finish(_ error: AnalysisError? = nil) {
        finished = true
        failure = error
        waitingReceiver?.resume()
        waitingReceiver = nil
    }

    /// The next batch; nil at the end (then ``failure`` says why, if the reader failed).
    func receive() async -> [Element]? {
        while head == queue.count {
            if finished { return nil }
            await withCheckedContinuation { waitingReceiver = $0 }
        }
        let (items, bytes) = queue[head]
        queue[head] = ([], 0)
        head += 1
        if head == queue.count || head >= 64 {
            queue.removeFirst(head)
            head = 0
        }
        bytesInFlight -= bytes
        waitingSender?.resume()
        waitingSender = nil
        return items
    }

    /// The reader's error, once the stream has ended.
    var error: AnalysisError? { failure }
}

/// Moves a value that is not `Sendable` (a reader holding a file and a zstd context)
/// into the one child task that uses it from then on; the task that created it does not
/// touch it again until that child has ended.
final class Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
