import BridgeProtocol

/// What the host does with a request nobody handles, once the delegate has seen it.
public enum UnhandledRequestDisposition: Sendable, Hashable {
    /// Answer `unsupported` / `UNSUPPORTED_ACTION` now, unless the delegate already
    /// answered with ``BridgeHost/respond(to:status:data:error:)``. The default.
    case answerUnsupported
    /// Keep the request pending: the delegate answers it later with
    /// ``BridgeHost/respond(to:status:data:error:)``. Pending requests count against
    /// ``HostLimits/maxPendingRequests``.
    case keepPending
}

/// Observes the host (seed 003's `BridgeHostDelegate`). Calls arrive in the order the
/// messages were received, one at a time, on the host's run task; they are asynchronous,
/// so routing does not wait for them (a handler may start before `didReceive` returns).
/// The host holds its delegate weakly.
public protocol BridgeHostDelegate: AnyObject, Sendable {
    /// Every valid envelope received (requests, and events such as `journey.complete`).
    func bridgeHost(_ host: BridgeHost, didReceive message: Envelope) async
    /// Every message that was not a valid envelope (never routed; PROTOCOL.md §4).
    func bridgeHost(_ host: BridgeHost, didReject message: RejectedMessage) async
    /// A request nobody handles. Answer it with ``BridgeHost/respond(to:status:data:error:)``
    /// and/or return a disposition; the default answers `unsupported`.
    func bridgeHost(_ host: BridgeHost, unhandledRequest message: Envelope) async -> UnhandledRequestDisposition
}

extension BridgeHostDelegate {
    /// Does nothing.
    public func bridgeHost(_ host: BridgeHost, didReceive message: Envelope) async {}
    /// Does nothing.
    public func bridgeHost(_ host: BridgeHost, didReject message: RejectedMessage) async {}
    /// Lets the host answer `unsupported`.
    public func bridgeHost(_ host: BridgeHost, unhandledRequest message: Envelope) async -> UnhandledRequestDisposition {
        .answerUnsupported
    }
}
