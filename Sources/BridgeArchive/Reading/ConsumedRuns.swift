import Synchronization

/// Runs the consumer is done with, on their way back to the reading thread (which takes
/// them when it next hands a run over: it never waits for them).
final class ConsumedRuns: Sendable {
    private let runs = Mutex<[ArraySlice<UInt8>]>([])

    /// Hands `run` back.
    func add(_ run: ArraySlice<UInt8>) {
        runs.withLock { $0.append(run) }
    }

    /// The runs handed back since the last call.
    func takeAll() -> [ArraySlice<UInt8>] {
        runs.withLock { list in
            var out: [ArraySlice<UInt8>] = []
            swap(&out, &list)
            return out
        }
    }
}
