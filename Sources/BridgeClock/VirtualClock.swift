import Synchronization

/// An ``EpochClock`` that moves only when told to: tests and the fuzzer advance it, and
/// every sleeper whose deadline has come is resumed at once. Nothing really sleeps.
/// Time is kept in whole milliseconds (envelope timestamps are milliseconds).
///
/// Starts at 1,700,000,000,000 ms (November 2023) by default, so envelope timestamps
/// taken from it are plausible epoch milliseconds.
public final class VirtualClock: EpochClock, Sendable {
    private struct Sleeper {
        var deadline: Int64
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Int64
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelledBeforeSleeping: Set<UInt64> = []
        var nextID: UInt64 = 0
    }
    private let state: Mutex<State>

    /// The default start: 2023-11-14T22:13:20Z in epoch milliseconds.
    public static let defaultStart: Int64 = 1_700_000_000_000

    /// Creates a clock reading `start` milliseconds.
    public init(start: Int64 = VirtualClock.defaultStart) {
        state = Mutex(State(now: start))
    }

    /// The current virtual time.
    public var now: EpochInstant { EpochInstant(milliseconds: state.withLock { $0.now }) }

    /// One millisecond: virtual time moves in whole milliseconds.
    public var minimumResolution: Duration { .milliseconds(1) }

    /// Moves time forward by `milliseconds` (negative values are ignored) and resumes
    /// every sleeper whose deadline is now reached.
    public func advance(by milliseconds: Int64) {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { s in
            s.now += max(0, milliseconds)
            return Self.takeDue(&s)
        }
        for c in due { c.resume() }
    }

    /// Moves time forward to `time` epoch milliseconds (never backward) and resumes due
    /// sleepers.
    public func advance(to time: Int64) {
        advance(by: time - milliseconds)
    }

    /// Suspends until the virtual time reaches `deadline` (rounded up to a whole
    /// millisecond; `tolerance` is ignored, nothing really sleeps).
    public func sleep(until deadline: EpochInstant, tolerance: Duration? = nil) async throws {
        let deadline = deadline.milliseconds + (deadline.nanoseconds % 1_000_000 > 0 ? 1 : 0)
        let id: UInt64 = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { s in
                    if s.cancelledBeforeSleeping.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= s.now { return .success(()) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: c)
                    return nil
                }
                if let outcome { c.resume(with: outcome) }
            }
        } onCancel: {
            let c: CheckedContinuation<Void, any Error>? = state.withLock { s in
                if let sleeper = s.sleepers.removeValue(forKey: id) { return sleeper.continuation }
                s.cancelledBeforeSleeping.insert(id)
                return nil
            }
            c?.resume(throwing: CancellationError())
        }
    }

    private static func takeDue(_ s: inout State) -> [CheckedContinuation<Void, any Error>] {
        let due = s.sleepers.filter { $0.value.deadline <= s.now }.sorted {
            ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
        }
        for (id, _) in due { s.sleepers.removeValue(forKey: id) }
        return due.map(\.value.continuation)
    }
}
