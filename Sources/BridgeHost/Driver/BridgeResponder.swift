import Synchronization
import BridgeJSON
import BridgeProtocol

/// Answers one request on behalf of a custom capability or configuration handler
/// (seed 002's `BridgeResponder`). Call ``respond(status:data:error:)`` exactly once with a
/// final status (optionally once with `acknowledged` before it). A second final answer is
/// refused and logged, never sent. A responder released without a final answer makes the
/// host answer `error` / `INTERNAL_ERROR`, so the request is never left hanging.
public final class BridgeResponder: Sendable {
    /// The request being answered.
    public let request: Envelope
    let token: RequestToken
    let host: BridgeHost
    private let state = Mutex((final: false, acknowledged: false))

    init(host: BridgeHost, token: RequestToken, request: Envelope) {
        self.host = host
        self.token = token
        self.request = request
    }

    /// Sends the answer. Returns false (and sends nothing) when this responder already sent
    /// a final answer, or an `acknowledged` one twice, or the host refused it.
    @discardableResult
    public func respond(status: Status, data: JSONObject? = nil, error: ErrorPayload? = nil) -> Bool {
        let allowed: Bool = state.withLock { s in
            if s.final || (status == .acknowledged && s.acknowledged) { return false }
            if status == .acknowledged { s.acknowledged = true } else { s.final = true }
            return true
        }
        guard allowed else {
            host.log(HostLogEntry(.warning, "response-refused",
                "the handler for \(request.payload.action) answered \(status) after its final answer; refused, never sent",
                correlationId: request.correlationId))
            return false
        }
        return host.complete(token, with: BridgeResponse(status: status, data: data, error: error))
    }

    /// Sends a prepared ``BridgeResponse``.
    @discardableResult
    public func respond(_ response: BridgeResponse) -> Bool {
        respond(status: response.status, data: response.data, error: response.error)
    }

    /// Whether a final answer was sent.
    public var hasResponded: Bool { state.withLock { $0.final } }

    deinit {
        if !state.withLock({ $0.final }) { host.responderDropped(token) }
    }
}

/// A configuration-based handler for one action (seed 002's `BridgeCapabilityHandler`).
public protocol BridgeCapabilityHandler: Sendable {
    /// The action it serves, e.g. `nfc.read`.
    var action: String { get }
    /// Handles one request; answer through `responder` exactly once.
    func handle(request: Envelope, responder: BridgeResponder) async
}
