import Synchronization

/// How many objects of a kind are alive: counted up in their `init`, down in their
/// `deinit`. The recording proxy counts its page connections with it, so a test (and the
/// soak, issue 42) can tell a connection that is closed and freed from one that is kept.
final class LiveCount: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts `delta` objects (1 in `init`, -1 in `deinit`).
    func add(_ delta: Int) { count.add(delta, ordering: .relaxed) }

    /// Alive now.
    var value: Int { count.load(ordering: .relaxed) }
}
