import BridgeWebSocket

/// How a page's upstream connection ended, which decides what the page is told
/// (docs/SECURITY.md, "The proxy's upstream side"):
///
/// | End | Page gets |
/// |---|---|
/// | ``closed(_:)``: the upstream sent a close frame | 1000, or 1001 when the upstream said 1001 |
/// | ``broke(_:_:)``: the proxy closed the upstream for breaking the protocol or a limit | 1014, the reason naming the limit and the code the upstream got |
/// | ``lost(_:)``: FIN, reset or error without a close frame (also in the middle of a message) | 1014 |
/// | ``local``: the proxy closed it for the page | nothing more (the page is already closing) |
enum ProxyUpstreamEnd: Equatable {
    /// The upstream closed with a close frame (its code, when it gave one).
    case closed(CloseCode?)
    /// The proxy closed the upstream with `code` because of `reason` (a broken limit or protocol rule).
    case broke(CloseCode, String)
    /// The connection ended without a close frame: why.
    case lost(String)
    /// The proxy closed the upstream because the page went.
    case local

    /// A sentence for the archive's `close` reason or `error` event.
    var description: String {
        switch self {
        case .closed(let code): "upstream closed" + (code.map { " (\($0.rawValue))" } ?? "")
        case .broke(let code, let reason): "\(reason); the proxy closed the upstream with \(code.rawValue)"
        case .lost(let why): why
        case .local: "closed for the page"
        }
    }
}
