import NIOCore

/// The message timeout's state for one connection (docs/SECURITY.md): a frame or a
/// fragmented message must be completed within `timeout` of when it began. A value fed
/// what the reader saw; it returns what to do, and the handler (the server's, or the
/// proxy's upstream one) schedules the timer and closes.
package struct MessageClock: Sendable {
    /// What the handler does next.
    package enum Action: Equatable, Sendable {
        /// Nothing: no timer is needed, or the one scheduled still stands.
        case none
        /// Schedule the timer for this deadline (none is scheduled now).
        case arm(NIODeadline)
        /// The frame or message was not completed in time: close the connection.
        case expired
    }

    /// The longest a frame or fragmented message may take.
    package let timeout: TimeAmount
    /// When the frame or fragmented message in progress began (nil when none is).
    package private(set) var incompleteSince: NIODeadline?
    /// Whether a timer is scheduled.
    private var armed = false

    /// A clock for `timeout` seconds.
    package init(timeout seconds: Double) {
        timeout = .nanoseconds(Int64(seconds * 1e9))
    }

    /// The reader ran out of bytes: `incomplete` when a frame or a fragmented message
    /// is left unfinished.
    package mutating func ranOut(incomplete: Bool, now: NIODeadline = .now()) -> Action {
        guard incomplete else {
            incompleteSince = nil
            return .none
        }
        if incompleteSince == nil { incompleteSince = now }
        guard !armed else { return .none }
        armed = true
        return .arm(incompleteSince! + timeout)
    }

    /// A whole frame arrived; `inMessage` when a fragmented message is still open.
    package mutating func frameCompleted(inMessage: Bool) {
        if !inMessage { incompleteSince = nil }
    }

    /// The scheduled timer fired. `paused`: the handler stopped reading on purpose (its
    /// own rate limit), so the peer cannot be blamed yet: checked again in 100 ms.
    package mutating func fired(paused: Bool = false, now: NIODeadline = .now()) -> Action {
        armed = false
        guard let since = incompleteSince else { return .none }
        let due = since + timeout
        if paused || due > now {
            armed = true
            return .arm(max(due, now + .milliseconds(100)))
        }
        return .expired
    }
}
