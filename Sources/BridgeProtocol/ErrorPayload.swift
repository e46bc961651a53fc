/// An error code in `payload.error.code`. An open set: hosts and SDKs add codes, and a
/// code read from the wire is kept whatever it is.
public struct ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The wire spelling.
    public let rawValue: String
    /// Wraps a wire spelling.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The wire spelling.
    public var description: String { rawValue }

    // Host-side codes (PROTOCOL.md §4).
    /// A typed slot already serves a request (recoverable).
    public static let busy = ErrorCode(rawValue: "BUSY")
    /// Nobody handles the action (not recoverable).
    public static let unsupportedAction = ErrorCode(rawValue: "UNSUPPORTED_ACTION")
    /// The capability exists but cannot be used now.
    public static let capabilityUnavailable = ErrorCode(rawValue: "CAPABILITY_UNAVAILABLE")
    /// The user or system denied the camera.
    public static let cameraDenied = ErrorCode(rawValue: "CAMERA_DENIED")
    /// The device has no NFC, or it is off.
    public static let nfcNotAvailable = ErrorCode(rawValue: "NFC_NOT_AVAILABLE")
    /// Reading the chip failed.
    public static let nfcError = ErrorCode(rawValue: "NFC_ERROR")
    /// The capture failed.
    public static let captureFailed = ErrorCode(rawValue: "CAPTURE_FAILED")
    // Web SDK codes.
    /// Not supported (web SDK).
    public static let unsupported = ErrorCode(rawValue: "UNSUPPORTED")
    /// Permission denied (web SDK).
    public static let permissionDenied = ErrorCode(rawValue: "PERMISSION_DENIED")
    /// Cancelled (web SDK).
    public static let cancelled = ErrorCode(rawValue: "CANCELLED")
    /// Timed out (web SDK).
    public static let timeout = ErrorCode(rawValue: "TIMEOUT")
    /// The request could not be decoded as a valid envelope (not recoverable).
    public static let invalidRequest = ErrorCode(rawValue: "INVALID_REQUEST")
    /// Internal error (web SDK).
    public static let internalError = ErrorCode(rawValue: "INTERNAL_ERROR")
    /// The protocol versions differ (web SDK).
    static let versionMismatch = ErrorCode(rawValue: "VERSION_MISMATCH")

    /// Every code PROTOCOL.md §4 names.
    public static let known: [ErrorCode] = [
        .busy, .unsupportedAction, .capabilityUnavailable, .cameraDenied, .nfcNotAvailable, .nfcError,
        .captureFailed, .unsupported, .permissionDenied, .cancelled, .timeout, .invalidRequest,
        .internalError, .versionMismatch,
    ]
    /// Whether this is one of ``known``.
    public var isKnown: Bool { Self.known.contains(self) }
}

/// `payload.error`: `{ "code": string, "message": string, "recoverable": bool }`.
public struct ErrorPayload: Sendable, Hashable {
    /// The error code.
    public var code: ErrorCode
    /// A human-readable message.
    public var message: String
    /// Whether retrying can succeed.
    public var recoverable: Bool

    /// Creates an error payload.
    public init(code: ErrorCode, message: String, recoverable: Bool) {
        self.code = code
        self.message = message
        self.recoverable = recoverable
    }
}
