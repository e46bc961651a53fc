import BridgeJSON
import Crypto

/// Replaces image and biometric fields of captured envelopes (PROTOCOL.md §6) with
/// `{"redacted":true,"sha256":"<hex>","bytes":N}`, keeping the envelope valid JSON with
/// every other member as it was. A pure function on message bytes.
///
/// - Fields are matched by name anywhere inside `payload.data` (objects and arrays, at
///   any depth); `null` values are left alone, and a value that is already a marker is
///   not redacted twice.
/// - The digest covers the field's string content as UTF-8 (the base64 text as sent),
///   or the compact JSON text of a non-string value; `bytes` is that byte count.
/// - A message with nothing to redact is returned byte for byte. One with redactions is
///   written compactly (``JSONWriter``): member order, duplicates and number lexemes
///   are kept, insignificant whitespace is not.
/// - A message that is not valid JSON but mentions a sensitive field name is replaced
///   as a whole by a marker: when in doubt, nothing sensitive is kept.
public struct Redactor: Sendable {
    /// The field names of PROTOCOL.md §6.
    public static let sensitiveFields: Set<String> = ["imageData", "previewImageData", "encryptedBlob", "unencryptedBlob", "photo"]

    /// The field names redacted.
    public var fields: Set<String>
    private let parser = JSONParser()

    /// Creates a redactor for `fields` (default: ``sensitiveFields``).
    public init(fields: Set<String> = Redactor.sensitiveFields) {
        self.fields = fields
    }

    /// What redaction did to one message.
    public struct Result: Sendable, Hashable {
        /// The message to record.
        public var bytes: [UInt8]
        /// Fields replaced by markers (0: `bytes` is the input unchanged).
        public var redactedFields: Int
        /// Set when the whole message was replaced (it was not valid JSON).
        public var wholeMessage: Bool
    }

    /// The marker for `content`.
    public static func marker(for content: [UInt8]) -> JSONValue {
        ["redacted": true, "sha256": .string(sha256Hex(content)), "bytes": .integer(Int64(content.count))]
    }

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
        let document: JSONDocument
        do {
            document = try parser.parse(message)
        } catch {
            guard mentionsSensitiveField(message) else { return Result(bytes: message, redactedFields: 0, wholeMessage: false) }
            return Result(bytes: JSONWriter().bytes(Self.marker(for: message)), redactedFields: 1, wholeMessage: true)
        }
        guard case .object(var envelope) = document.value,
              let p = envelope.members.firstIndex(where: { $0.key == "payload" }),
              case .object(var payload) = envelope.members[p].value,
              let d = payload.members.firstIndex(where: { $0.key == "data" }) else {
            return Result(bytes: message, redactedFields: 0, wholeMessage: false)
        }
        var count = 0
        payload.members[d].value = redacted(payload.members[d].value, count: &count)
        guard count > 0 else { return Result(bytes: message, redactedFields: 0, wholeMessage: false) }
        envelope.members[p].value = .object(payload)
        return Result(bytes: JSONWriter().bytes(.object(envelope)), redactedFields: count, wholeMessage: false)
    }

    private func redacted(_ value: JSONValue, count: inout Int) -> JSONValue {
        switch value {
        case .object(var o):
            for i in o.members.indices {
                let m = o.members[i]
                if fields.contains(m.key) && !m.value.isNull && !Self.isMarker(m.value) {
                    let content: [UInt8]
                    if case .string(let s) = m.value { content = Array(s.utf8) } else { content = JSONWriter().bytes(m.value) }
                    o.members[i].value = Self.marker(for: content)
                    count += 1
                } else {
                    o.members[i].value = redacted(m.value, count: &count)
                }
            }
            return .object(o)
        case .array(let a):
            return .array(a.map { redacted($0, count: &count) })
        default:
            return value
        }
    }

    static func isMarker(_ v: JSONValue) -> Bool {
        guard case .object(let o) = v else { return false }
        return o["redacted"] == .bool(true) && o["sha256"]?.stringValue != nil && o.count == 3
    }

    private func mentionsSensitiveField(_ bytes: [UInt8]) -> Bool {
        fields.contains { field in
            let needle = Array(field.utf8)
            guard needle.count <= bytes.count else { return false }
            return (0...(bytes.count - needle.count)).contains { i in bytes[i..<(i + needle.count)].elementsEqual(needle) }
        }
    }
}
