import BridgeTap
import Crypto

/// Replaces image and biometric fields of captured envelopes (PROTOCOL.md §6) with
/// `{"redacted":true,"sha256":"<hex>","bytes":N}`, for `bridgescope record --redact`.
///
/// The rule is the field taps' (docs/TAP.md §2), run by the same code (``TapRedactor``
/// in BridgeTap) with swift-crypto's SHA-256, so an archive recorded with `--redact` and
/// one imported from a tap hold the same bytes:
/// - fields are matched by name inside every `payload.data` (objects and arrays, at any
///   depth); `null` values and values that are already markers are left alone;
/// - only the replaced values change: every other byte of the message is kept;
/// - the digest covers a string's unescaped UTF-8, or a non-string value's bytes without
///   whitespace; `bytes` is that byte count;
/// - a message that is not strict JSON but mentions a sensitive field name is replaced
///   as a whole by a marker: when in doubt, nothing sensitive is kept.
public struct Redactor: Sendable {
    /// The field names of PROTOCOL.md §6 (``TapRedactor/sensitiveFields``).
    public static let sensitiveFields: Set<String> = Set(TapRedactor.sensitiveFields)

    private let redactor: TapRedactor

    /// The field names redacted.
    public var fields: Set<String> { redactor.fields }

    /// Creates a redactor for `fields` (default: ``sensitiveFields``).
    public init(fields: Set<String> = Redactor.sensitiveFields) {
        redactor = TapRedactor(fields: fields, digest: { Array(SHA256.hash(data: $0)) })
    }

    /// What redaction did to one message.
    public typealias Result = TapRedactor.Result

    /// The SHA-256 of `content` as 64 lowercase hex digits (swift-crypto).
    public static func sha256Hex(_ content: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in SHA256.hash(data: content) {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Redacts one message.
    public func redact(_ message: [UInt8]) -> Result {
        redactor.redact(message)
    }
}
