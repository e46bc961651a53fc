import BridgeJSON
import BridgeProtocol

/// What a handler answers to a request: the response's `status`, `data` and `error`
/// (the correlationId, action and timestamp are the host's business).
public struct BridgeResponse: Sendable, Hashable {
    /// `payload.status`.
    public var status: Status
    /// `payload.data`, if any.
    public var data: JSONObject?
    /// `payload.error`: required for `error` and `unsupported`, forbidden with `success`.
    public var error: ErrorPayload?

    /// Creates a response.
    public init(status: Status, data: JSONObject? = nil, error: ErrorPayload? = nil) {
        self.status = status
        self.data = data
        self.error = error
    }

    /// `success` with `data`.
    public static func success(_ data: JSONObject? = nil) -> BridgeResponse {
        BridgeResponse(status: .success, data: data)
    }

    /// `error` with an error payload.
    public static func failure(_ code: ErrorCode, _ message: String, recoverable: Bool) -> BridgeResponse {
        BridgeResponse(status: .error, error: ErrorPayload(code: code, message: message, recoverable: recoverable))
    }

    /// `unsupported` with an error payload.
    public static func unsupported(_ code: ErrorCode, _ message: String, recoverable: Bool = false) -> BridgeResponse {
        BridgeResponse(status: .unsupported, error: ErrorPayload(code: code, message: message, recoverable: recoverable))
    }

    /// `cancelled`, with `{"reason": reason}` as data.
    public static func cancelled(reason: String) -> BridgeResponse {
        BridgeResponse(status: .cancelled, data: .make(["reason": .string(reason)]))
    }
}
