/// The protocol's vocabulary and its near misses, for the protocol-aware and JSON-tree
/// mutators (the libFuzzer dictionary `tools/fuzz/bridge.dict` holds the same tokens).
enum FuzzDictionary {
    /// Actions PROTOCOL.md §3 names.
    public static let actions = [
        "capability.query", "camera.document.capture", "camera.selfie.capture", "nfc.read",
        "host.ready", "host.background", "host.foreground", "host.orientation", "journey.cancel",
        "journey.started", "journey.progress", "journey.complete", "journey.error",
    ]
    /// Near misses of the actions: case, separators, prefixes, extra segments, unicode
    /// look-alikes, empty and malformed names.
    static let nearMissActions = [
        "Capability.Query", "capability.query.", ".capability.query", "capability..query", "capability_query",
        "capability-query", "camera.document", "camera.document.capture.extra", "camera.document.Capture",
        "camera.selfie", "camera.selfie.capture2", "nfc", "nfc.read.", "nfc.Read", "nfc.write", "NFC.READ",
        "camera.document.capture ", " nfc.read", "c", "a.b", "\u{0441}amera.document.capture", "",
        "camera.document\u{0000}.capture", "nfc.read\n", "camera/document/capture", "x.y.z",
    ]
    /// Message types, known and not.
    public static let types = ["request", "response", "event", "Request", "REQUEST", "", "req", "request ", "notification"]
    /// Statuses, known and not.
    public static let statuses = ["success", "error", "cancelled", "unsupported", "acknowledged", "canceled", "ok", "", "SUCCESS"]
    /// Error codes, known and not.
    static let errorCodes = [
        "BUSY", "UNSUPPORTED_ACTION", "CAPABILITY_UNAVAILABLE", "CAMERA_DENIED", "NFC_NOT_AVAILABLE", "NFC_ERROR",
        "CAPTURE_FAILED", "UNSUPPORTED", "PERMISSION_DENIED", "CANCELLED", "TIMEOUT", "INVALID_REQUEST",
        "INTERNAL_ERROR", "VERSION_MISMATCH", "busy", "", "E_UNKNOWN",
    ]
    /// Protocol versions, valid and not.
    public static let versions = ["1.0", "1.1", "1.99", "2.0", "0.9", "1", "1.0.0", "", "1.x", "01.0", "1.-1", "v1.0", "1.0 "]
    /// Envelope member names, with near misses.
    public static let envelopeKeys = [
        "version", "correlationId", "type", "timestamp", "payload", "action", "data", "status", "error", "code",
        "message", "recoverable", "correlationID", "correlation_id", "Version", "payLoad", "id",
    ]
    /// Data member names the journeys use.
    static let dataKeys = [
        "documentType", "side", "imageData", "width", "height", "mimeType", "reason", "journey", "status",
        "referenceId", "chipRead", "dataGroups", "orientation", "constraints", "supported",
    ]
    /// Data values the journeys use.
    static let dataStrings = ["passport", "front", "back", "single", "image/png", "image/jpeg", "landscape", "DG1"]
    /// Boundary numbers, as lexemes: -0, overflowing doubles, 2^53 ± 1, Int64 edges, huge
    /// integers, tiny fractions, seconds-looking timestamps.
    public static let numbers = [
        "0", "-0", "1", "-1", "0.0", "-0.0", "1e309", "-1e309", "1e-400", "9007199254740993", "9007199254740992",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "123456789012345678901234567890", "1.5", "1E2", "1e+2", "1700000000000",
        "1700000000", "99999999999", "100000000000", "0.1e1", "4.9e-324", "1.7976931348623157e308",
    ]
    /// Hostile strings: empty, NUL, control characters, RTL override, combining marks and
    /// non-normalized forms, astral characters, escape-looking text, BOM, very long.
    public static let strings = [
        "", "\u{0000}", "a\u{0000}b", "\u{0007}\u{001F}", "\u{202E}kcatta", "\u{200F}\u{200E}", "e\u{0301}", "\u{00E9}",
        "\u{FB01}", "A\u{030A}", "\u{212B}", "\u{1F600}", "\u{FEFF}", "\\u0000", "\"", "\\", "\u{2028}\u{2029}",
        "\u{FFFF}", "\u{10FFFF}", "ios-event-", "web-1", "q-1", "d-1",
    ]
    /// Raw fragments for splicing into serialized messages (escapes the parser must handle
    /// or refuse: lone surrogates, bad escapes, overlong UTF-8, control bytes, comments).
    static let rawFragments: [[UInt8]] = [
        Array("\\ud800".utf8), Array("\\udc00".utf8), Array("\\ud83d\\ude00".utf8), Array("\\u0000".utf8),
        Array("\\x41".utf8), Array("\\u12".utf8), Array(",".utf8), Array(",}".utf8), Array(",]".utf8),
        Array("/* c */".utf8), Array("NaN".utf8), Array("Infinity".utf8), Array("\u{FEFF}".utf8),
        [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80], [0xE2, 0x82], [0x00], [0x0A], [0x0D],
        Array("\"correlationId\":\"x\"".utf8), Array("\"type\":\"request\"".utf8), Array("true".utf8), Array("null".utf8),
    ]
}
