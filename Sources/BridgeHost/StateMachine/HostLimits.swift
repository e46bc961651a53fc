import BridgeJSON

/// Limits the host enforces on what the web side can make it hold.
public struct HostLimits: Sendable, Hashable {
    /// JSON limits for each received message (PROTOCOL.md §6: 16 MiB, depth 64). Bigger or
    /// deeper messages are not parsed at all: they are rejected with a `too-large` or
    /// `too-deep` finding and answered nothing.
    public var json: JSONLimits
    /// Most requests in progress at once (routed to a handler or kept by the delegate).
    /// A request beyond it is answered at once with `error` / `BUSY` (recoverable).
    /// Default 1,000 (Android warns at 50; PROTOCOL.md §2).
    public var maxPendingRequests: Int
    /// Most bytes (as received) of requests in progress; a request that would go over is
    /// answered `BUSY` like one over ``maxPendingRequests``. Default 64 MiB.
    public var maxPendingBytes: Int
    /// How many received envelopes ``HostStateMachine/receivedMessages`` keeps. Default 200,
    /// like Android's history.
    public var maxReceivedHistory: Int
    /// Most bytes (as received) the history keeps; the oldest go first. Default 32 MiB.
    public var maxReceivedHistoryBytes: Int
    /// Most scheduled host events (scenario `events`). Default 1,000.
    var maxScheduledEvents: Int

    /// Creates limits; every argument defaults to the documented default.
    public init(json: JSONLimits = .default, maxPendingRequests: Int = 1000, maxPendingBytes: Int = 64 << 20,
                maxReceivedHistory: Int = 200, maxReceivedHistoryBytes: Int = 32 << 20, maxScheduledEvents: Int = 1000) {
        self.json = json
        self.maxPendingRequests = maxPendingRequests
        self.maxPendingBytes = maxPendingBytes
        self.maxReceivedHistory = maxReceivedHistory
        self.maxReceivedHistoryBytes = maxReceivedHistoryBytes
        self.maxScheduledEvents = maxScheduledEvents
    }

    /// The documented defaults.
    public static let `default` = HostLimits()
}
