import NIOCore

/// The token bucket behind the inbound rate limit (docs/SECURITY.md, "Inbound rate"): a
/// connection may deliver `bytesPerSecond` on average, with a burst of one maximum
/// message (or one second's worth, whichever is larger). Shared by the page side
/// (``spend(_:now:)`` overdrawn: reading pauses for ``delay``) and the recording proxy's
/// upstream side (overdrawn: the upstream is closed), so both sides count alike.
public struct InboundRate: Sendable {
    /// The average allowed, in bytes a second (0: no limit).
    public let bytesPerSecond: Int
    /// The most that may arrive at once.
    public let burst: Int
    /// Bytes that may still arrive now; negative when overdrawn.
    public private(set) var tokens: Double
    private var updated: NIODeadline

    /// A full bucket.
    public init(bytesPerSecond: Int, maxMessageBytes: Int, now: NIODeadline = .now()) {
        self.bytesPerSecond = bytesPerSecond
        self.burst = max(maxMessageBytes, bytesPerSecond)
        self.tokens = Double(burst)
        self.updated = now
    }

    /// Takes `bytes` from the allowance (refilled for the time since the last call);
    /// true when it is overdrawn.
    public mutating func spend(_ bytes: Int, now: NIODeadline = .now()) -> Bool {
        guard bytesPerSecond > 0 else { return false }
        tokens = min(Double(burst), tokens + Double((now - updated).nanoseconds) / 1e9 * Double(bytesPerSecond))
        updated = now
        tokens -= Double(bytes)
        return tokens < 0
    }

    /// How long until the allowance is positive again (zero when it is).
    public var delay: TimeAmount {
        guard tokens < 0, bytesPerSecond > 0 else { return .zero }
        return .nanoseconds(Int64(-tokens / Double(bytesPerSecond) * 1e9))
    }
}
