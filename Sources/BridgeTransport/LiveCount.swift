import Synchronization

/// How many objects of a kind are alive: counted up in their `init`, down in their
/// `deinit`. The recording proxy counts its page connections with it, and the server
/// tests their connections, so a connection closed and freed is told from one kept
/// (issue 42's soak).
package final class LiveCount: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// Counts `delta` objects (1 in `init`, -1 in `deinit`).
    package func add(_ delta: Int) { count.add(delta, ordering: .relaxed) }

    /// Alive now.
    package var value: Int { count.load(ordering: .relaxed) }
}
