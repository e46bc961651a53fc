/// Replaces image and biometric fields of bridge messages with a marker that keeps their
/// length and digest (docs/TAP.md §2): the one Swift implementation, used by the shipped
/// tap (``BridgeTap``) and by `bridgescope record --redact` (`Redactor` in BridgeCapture).
///
/// Every byte outside the replaced values is kept: a message with nothing to redact is
/// returned unchanged, and whitespace, member order, escapes and number lexemes survive.
/// A message that is not strict JSON but mentions a sensitive field name is replaced as a
/// whole by the marker of its bytes: when in doubt, nothing sensitive is kept.
public struct TapRedactor: Sendable {
    /// The sensitive field names (PROTOCOL.md §6): the one list. The JavaScript tap
    /// (`tools/taps/js/bridge-tap.js`) and the Java tap (`tools/taps/android/`) carry
    /// copies that tests compare with this one.
    public static let sensitiveFields: [String] = ["imageData", "previewImageData", "encryptedBlob", "unencryptedBlob", "photo"]

    /// The field names replaced.
    public let fields: Set<String>
    private let fieldBytes: Set<[UInt8]>
    private let digest: @Sendable ([UInt8]) -> [UInt8]

    /// Creates a redactor for `fields` with the tap's own SHA-256, which needs nothing
    /// beyond the standard library.
    public init(fields: Set<String> = Set(TapRedactor.sensitiveFields)) {
        self.init(fields: fields, digest: { TapSHA256.digest($0) })
    }

    /// Creates a redactor for `fields` whose `digest` computes SHA-256 (32 bytes), e.g.
    /// swift-crypto's.
    public init(fields: Set<String>, digest: @escaping @Sendable ([UInt8]) -> [UInt8]) {
        self.fields = fields
        self.fieldBytes = Set(fields.map { Array($0.utf8) })
        self.digest = digest
    }

    /// What redaction did to one message.
    public struct Result: Sendable, Hashable {
        /// The message to record.
        public var bytes: [UInt8]
        /// Values replaced by markers (0: `bytes` is the input unchanged).
        public var redactedFields: Int
        /// Set when the whole message was replaced (it was not strict JSON).
        public var wholeMessage: Bool
    }

    /// Redacts one message given as bytes (invalid UTF-8 makes it invalid JSON).
    public func redact(_ message: [UInt8]) -> Result {
        let scanned: Result? = message.withUnsafeBufferPointer { p in
            var scanner = TapScanner(p, fields: fieldBytes)
            do { try scanner.scan() } catch { return nil }
            guard !scanner.replacements.isEmpty else { return Result(bytes: message, redactedFields: 0, wholeMessage: false) }
            var out: [UInt8] = []
            out.reserveCapacity(message.count)
            var from = 0
            for r in scanner.replacements {
                out.append(contentsOf: p[from..<r.start])
                out.append(contentsOf: TapMarker.marker(for: r.content, digest: digest))
                from = r.end
            }
            out.append(contentsOf: p[from...])
            return Result(bytes: out, redactedFields: scanner.replacements.count, wholeMessage: false)
        }
        if let scanned { return scanned }
        guard mentionsField(message) else { return Result(bytes: message, redactedFields: 0, wholeMessage: false) }
        return Result(bytes: TapMarker.marker(for: message, digest: digest), redactedFields: 1, wholeMessage: true)
    }

    /// Redacts one message held as a string (what a WebView hands over).
    public func redact(_ text: String) -> String {
        let result = redact(Array(text.utf8))
        return result.redactedFields == 0 ? text : String(decoding: result.bytes, as: UTF8.self)
    }

    /// The marker for `content` (docs/TAP.md §2, step 4).
    public func marker(for content: [UInt8]) -> [UInt8] {
        TapMarker.marker(for: content, digest: digest)
    }

    /// Whether `value` (a JSON value's bytes) is already a marker, whitespace aside.
    static func isMarker(_ value: [UInt8]) -> Bool {
        value.withUnsafeBufferPointer { TapMarker.isMarker(TapScanner.compact($0)) }
    }

    private func mentionsField(_ bytes: [UInt8]) -> Bool {
        fieldBytes.contains { needle in
            guard needle.count <= bytes.count, let first = needle.first else { return false }
            var i = 0
            let last = bytes.count - needle.count
            while i <= last {
                if bytes[i] == first && bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
                i += 1
            }
            return false
        }
    }
}
