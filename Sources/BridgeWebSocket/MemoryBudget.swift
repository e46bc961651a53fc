import NIOCore
import Synchronization

/// The memory budget of a whole process (a server, or the recording proxy): bytes held
/// in unfinished frames, fragmented messages, inflated messages and send queues, summed
/// over every connection that holds more than ``smallAllowance``.
///
/// Each connection has a ``MemoryBudget/Account`` and reports what it holds. Growth that
/// would take the process past ``limit`` is refused (the connection asking closes with
/// 1013, try again later), and the largest holder that has held its bytes for at least
/// ``minimumHoldBeforeEviction`` is asked to close (its `evict` closure), so a set of
/// slow senders cannot keep the budget forever. Connections holding at most
/// ``smallAllowance`` (every ordinary envelope) are never refused and never evicted,
/// and cost no lock.
public final class MemoryBudget: Sendable {
    /// Default ``limit``: 256 MiB, 16 messages of the 16 MiB maximum at once.
    public static let defaultLimit = 256 << 20
    /// Bytes a connection may hold without being counted: 64 KiB.
    public static let smallAllowance = 64 << 10
    /// Seconds a holder keeps its bytes before it may be evicted for others: 1.
    public static let minimumHoldBeforeEviction: Double = 1

    /// Largest total of counted bytes, in bytes.
    public let limit: Int
    private let state: Mutex<State>

    private struct Holder {
        var bytes: Int
        var since: NIODeadline
        var evict: @Sendable () -> Void
        var evicted = false
    }

    private struct State {
        var held = 0
        var peak = 0
        var nextID = 0
        var holders: [Int: Holder] = [:]
    }

    /// Creates a budget of `limit` bytes.
    public init(limit: Int = MemoryBudget.defaultLimit) {
        self.limit = limit
        self.state = Mutex(State())
    }

    /// Bytes counted now, across connections.
    public var heldBytes: Int { state.withLock { $0.held } }
    /// The most bytes ever counted at once.
    var peakBytes: Int { state.withLock { $0.peak } }
    /// How many connections hold more than ``smallAllowance`` now.
    public var holderCount: Int { state.withLock { $0.holders.count } }

    /// Opens an account for one connection; `evict` is called (from any thread, at most
    /// once) when the budget needs that connection's bytes back.
    public func account(evict: @escaping @Sendable () -> Void) -> Account {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        return Account(budget: self, id: id, evict: evict)
    }

    /// Sets holder `id`'s counted bytes; returns false (changing nothing) when `force` is
    /// false, the holding grows, and the total would pass the limit.
    fileprivate func set(_ id: Int, from old: Int, to new: Int, force: Bool, evict: @escaping @Sendable () -> Void) -> Bool {
        var victim: (@Sendable () -> Void)?
        let accepted = state.withLock { s -> Bool in
            let total = s.held - old + new
            if new > old && total > limit {
                victim = Self.pickVictim(&s, excluding: id)
                if !force { return false }
            }
            s.held = total
            s.peak = max(s.peak, total)
            if new == 0 {
                s.holders.removeValue(forKey: id)
            } else if s.holders[id] == nil {
                s.holders[id] = Holder(bytes: new, since: .now(), evict: evict)
            } else {
                s.holders[id]!.bytes = new
            }
            return true
        }
        victim?()
        if new < old { MemoryRelease.noteRelease(heldNow: heldBytes, limit: limit) }
        return accepted
    }

    /// The largest holder that has held long enough, marked evicted.
    private static func pickVictim(_ s: inout State, excluding id: Int) -> (@Sendable () -> Void)? {
        let cutoff = NIODeadline.now() - .milliseconds(Int64(minimumHoldBeforeEviction * 1000))
        var best: (Int, Int)?
        for (key, h) in s.holders where key != id && !h.evicted && h.since <= cutoff {
            if best == nil || h.bytes > best!.1 { best = (key, h.bytes) }
        }
        guard let (key, _) = best else { return nil }
        s.holders[key]!.evicted = true
        return s.holders[key]!.evict
    }

    /// One connection's share of a ``MemoryBudget``. Not `Sendable`: use it from the
    /// connection's event loop; call ``close()`` when the connection ends.
    public final class Account {
        private let budget: MemoryBudget
        private let id: Int
        private let evict: @Sendable () -> Void
        /// Bytes this connection holds (counted or not).
        public private(set) var held = 0
        private var counted = 0

        fileprivate init(budget: MemoryBudget, id: Int, evict: @escaping @Sendable () -> Void) {
            self.budget = budget
            self.id = id
            self.evict = evict
        }

        /// Asks to hold `bytes` in total; false when that is refused (nothing changes).
        public func request(_ bytes: Int) -> Bool { update(bytes, force: false) }

        /// Holds `bytes` in total whatever the budget says (bytes already allocated, such as a
        /// send queue); past the limit this still makes the budget evict a stale holder.
        public func force(_ bytes: Int) { _ = update(bytes, force: true) }

        /// Returns everything (the connection closed).
        public func close() { force(0) }

        private func update(_ bytes: Int, force: Bool) -> Bool {
            let newCounted = bytes > MemoryBudget.smallAllowance ? bytes : 0
            if newCounted != counted {
                guard budget.set(id, from: counted, to: newCounted, force: force, evict: evict) else { return false }
                counted = newCounted
            }
            held = bytes
            return true
        }

        deinit { if counted != 0 { _ = budget.set(id, from: counted, to: 0, force: true, evict: evict) } }
    }
}
