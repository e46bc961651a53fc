import BridgeJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a record's message bytes are stored in its line: the member that holds them.
///
/// The writer always picks ``preferred(for:)``, so the choice is a pure function of the
/// bytes; a reader reports the member it found.
public struct ArchivePayloadEncoding: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The member name: `msg`, `text` or `b64`.
    public let rawValue: String
    /// Wraps a member name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The member name.
    public var description: String { rawValue }

    /// `"msg":<bytes verbatim>`: the bytes are one valid JSON text (within
    /// ``BridgeArchiveFormat/messageLimits``) with no CR or LF byte and no leading or
    /// trailing whitespace.
    public static let message = ArchivePayloadEncoding(rawValue: "msg")
    /// `"text":"<JSON string>"`: the bytes are valid UTF-8 but not a verbatim-safe JSON text.
    public static let text = ArchivePayloadEncoding(rawValue: "text")
    /// `"b64":"<base64>"`: anything else (RFC 4648 §4 alphabet, with padding).
    public static let base64 = ArchivePayloadEncoding(rawValue: "b64")

    /// The three encodings, in order of preference.
    public static let all: [ArchivePayloadEncoding] = [.message, .text, .base64]

    /// The encoding the writer uses for `bytes`.
    public static func preferred(for bytes: UnsafeRawBufferPointer) -> ArchivePayloadEncoding {
        preferred(for: bytes, inLine: false)
    }

    /// ``preferred(for:)`` of bytes that are part of one line already (no LF among them).
    static func preferred(for bytes: UnsafeRawBufferPointer, inLine: Bool) -> ArchivePayloadEncoding {
        if isVerbatimJSON(bytes, inLine: inLine) { return .message }
        if isValidUTF8(bytes) { return .text }
        return .base64
    }

    /// The encoding the writer uses for `bytes`.
    public static func preferred(for bytes: [UInt8]) -> ArchivePayloadEncoding {
        bytes.withUnsafeBytes { preferred(for: $0) }
    }

    /// Whether `bytes` can be embedded verbatim as the value of `msg`.
    /// `inLine`: the bytes are part of one line already (split at LF), so only CR is looked for.
    static func isVerbatimJSON(_ b: UnsafeRawBufferPointer, inLine: Bool = false) -> Bool {
        guard let first = b.first, let last = b.last else { return false }
        if isJSONWhitespace(first) || isJSONWhitespace(last) { return false }
        // A raw CR or LF can only be insignificant whitespace in valid JSON; either
        // would break the line, so such bytes go to `text`.
        if !inLine && memchr(b.baseAddress!, 0x0A, b.count) != nil { return false }
        if memchr(b.baseAddress!, 0x0D, b.count) != nil { return false }
        // Only validity matters (the bytes are stored as they are): the validating
        // scan accepts exactly what `JSONParser` accepts, without building the value.
        return validator.isValid(b)
    }

    private static let validator = JSONValidator(limits: BridgeArchiveFormat.messageLimits)

    static func isJSONWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    static func isValidUTF8(_ b: UnsafeRawBufferPointer) -> Bool {
        var it = b.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&it) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
