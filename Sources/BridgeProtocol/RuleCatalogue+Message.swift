extension RuleID {
    /// The bytes are not one RFC 8259 JSON text.
    static let malformedJSON = RuleID(rawValue: "BRG001")
    /// An object has the same member name twice.
    public static let duplicateKey = RuleID(rawValue: "BRG002")
    /// The JSON text is not an object.
    static let notAnObject = RuleID(rawValue: "BRG003")
    /// A required field is absent.
    static let missingField = RuleID(rawValue: "BRG004")
    /// A field has the wrong JSON type.
    static let wrongFieldType = RuleID(rawValue: "BRG005")
    /// `version` is not a supported protocol version.
    public static let unsupportedVersion = RuleID(rawValue: "BRG006")
    /// `type` is not request, response or event.
    static let unknownType = RuleID(rawValue: "BRG007")
    /// `payload.status` is not a known status.
    static let invalidStatus = RuleID(rawValue: "BRG008")
    /// A request carries `payload.status`.
    public static let statusOnRequest = RuleID(rawValue: "BRG009")
    /// An event carries `payload.status`.
    static let statusOnEvent = RuleID(rawValue: "BRG010")
    /// A response has no `payload.status`.
    static let missingStatus = RuleID(rawValue: "BRG011")
    /// Status `error`/`unsupported` without `payload.error`.
    static let errorPayloadMissing = RuleID(rawValue: "BRG012")
    /// `payload.error` where it must not be.
    static let errorPayloadUnexpected = RuleID(rawValue: "BRG013")
    /// `payload.error` lacks code/message/recoverable or has wrong types.
    static let malformedErrorPayload = RuleID(rawValue: "BRG014")
    /// `correlationId` is the empty string.
    static let emptyCorrelationId = RuleID(rawValue: "BRG015")
    /// `timestamp` looks like seconds, not milliseconds.
    static let timestampInSeconds = RuleID(rawValue: "BRG016")
    /// `timestamp` is negative, fractional or out of range.
    static let timestampInvalid = RuleID(rawValue: "BRG017")
    /// A message travelled in a direction its type does not allow.
    static let wrongDirection = RuleID(rawValue: "BRG018")
    /// The message is larger than the size limit.
    public static let tooLarge = RuleID(rawValue: "BRG019")
    /// The message nests deeper than the depth limit.
    public static let tooDeep = RuleID(rawValue: "BRG020")
    /// `payload.action` is empty or not a dotted name.
    static let invalidAction = RuleID(rawValue: "BRG021")
    /// A member the protocol does not define.
    public static let unknownField = RuleID(rawValue: "BRG022")
    /// An error code outside PROTOCOL.md §4.
    static let unknownErrorCode = RuleID(rawValue: "BRG023")
    /// The bytes are not valid UTF-8 text.
    public static let invalidUTF8 = RuleID(rawValue: "BRG024")
}

extension RuleCatalogue {
    /// Rules checked on every single message by ``EnvelopeDecoder``.
    public static let messageRules: [Rule] = [
        Rule(id: .malformedJSON, slug: "malformed-json", severity: .error,
             summary: "The message is not one valid RFC 8259 JSON text.",
             explanation: "The bytes could not be parsed as JSON (the finding gives the byte offset and reason). Check the sender's serializer: hand-built strings, trailing commas, NaN, or a message cut short by the transport.",
             source: "004_8e460132a1151688.txt (Message Envelope); RFC 8259"),
        Rule(id: .duplicateKey, slug: "duplicate-key", severity: .error,
             summary: "An object holds the same member name twice.",
             explanation: "Parsers disagree on which value wins (Foundation keeps one, others the other), so the two sides may read different messages. Fix the sender so it writes each member once.",
             source: "project rule (RFC 8259 §4: names SHOULD be unique)"),
        Rule(id: .notAnObject, slug: "not-an-object", severity: .error,
             summary: "The message is JSON but not an object.",
             explanation: "Every envelope is one JSON object. A string here often means the envelope was JSON-encoded twice (Android's postMessage(jsonString) path given an already-stringified value).",
             source: "004_8e460132a1151688.txt (Message Envelope)"),
        Rule(id: .missingField, slug: "missing-field", severity: .error,
             summary: "A required envelope field is absent.",
             explanation: "version, correlationId, type, timestamp, payload and payload.action are required in every message. Check the code that builds envelopes on the sending side.",
             source: "004_8e460132a1151688.txt (Message Envelope)"),
        Rule(id: .wrongFieldType, slug: "wrong-field-type", severity: .error,
             summary: "An envelope field has the wrong JSON type.",
             explanation: "version, correlationId, type, action and status are strings; timestamp is a number; payload, data and error are objects; error.recoverable is a boolean. A number sent as a string is the usual cause.",
             source: "004_8e460132a1151688.txt (Message Envelope)"),
        Rule(id: .unsupportedVersion, slug: "unsupported-version", severity: .error,
             summary: "The protocol version is not 1.x.",
             explanation: "Both sides speak protocol 1.0. Another major version is a VERSION_MISMATCH: update the older side (web SDK or native SDK).",
             source: "004_8e460132a1151688.txt; PROTOCOL.md §1, §4 (VERSION_MISMATCH)"),
        Rule(id: .unknownType, slug: "unknown-type", severity: .error,
             summary: "The type is not request, response or event.",
             explanation: "The host routes only requests, and the web side only resolves responses; any other type is ignored by both and the sender waits forever.",
             source: "004_8e460132a1151688.txt (Message Types)"),
        Rule(id: .invalidStatus, slug: "invalid-status", severity: .error,
             summary: "The response status is not one of the five defined statuses.",
             explanation: "Valid statuses are success, error, cancelled, unsupported and acknowledged. The web SDK treats anything else as a failure it cannot explain.",
             source: "004_8e460132a1151688.txt (Response Statuses)"),
        Rule(id: .statusOnRequest, slug: "status-on-request", severity: .error,
             summary: "A request carries a status.",
             explanation: "Only responses have a status. A request with one is usually a response sent with the wrong type.",
             source: "project rule"),
        Rule(id: .statusOnEvent, slug: "status-on-event", severity: .error,
             summary: "An event carries a status.",
             explanation: "Only responses have a status. Put event details in payload.data.",
             source: "project rule"),
        Rule(id: .missingStatus, slug: "missing-status", severity: .error,
             summary: "A response has no status.",
             explanation: "The web side decides success or failure from payload.status; without it the request cannot be resolved.",
             source: "004_8e460132a1151688.txt (Response Statuses)"),
        Rule(id: .errorPayloadMissing, slug: "error-payload-missing", severity: .error,
             summary: "A response with status error or unsupported has no error object.",
             explanation: "The web side reads error.code and error.recoverable to decide whether to retry. Fill in payload.error.",
             source: "004_8e460132a1151688.txt; PROTOCOL.md §1"),
        Rule(id: .errorPayloadUnexpected, slug: "error-payload-unexpected", severity: .error,
             summary: "An error object where none is allowed (a success response, a request or an event).",
             explanation: "A success response must not carry payload.error, and only responses carry one at all. Check the status the host sends.",
             source: "PROTOCOL.md §1"),
        Rule(id: .malformedErrorPayload, slug: "malformed-error-payload", severity: .error,
             summary: "The error object lacks code, message or recoverable, or has wrong types.",
             explanation: "Shape: { code: string, message: string, recoverable: bool }. Without recoverable the web side cannot decide to retry.",
             source: "004_8e460132a1151688.txt (Message Envelope)"),
        Rule(id: .emptyCorrelationId, slug: "empty-correlation-id", severity: .error,
             summary: "The correlationId is empty.",
             explanation: "Responses are matched to requests by correlationId; an empty id cannot be matched. Generate a UUID per request.",
             source: "004_8e460132a1151688.txt (Correlation IDs)"),
        Rule(id: .timestampInSeconds, slug: "timestamp-in-seconds", severity: .warning,
             summary: "The timestamp looks like seconds, not milliseconds.",
             explanation: "Timestamps are Unix epoch milliseconds; a value below 10^11 is a date in 1973 as milliseconds. The iOS sample code puts seconds (Date().timeIntervalSince1970) in event data: multiply by 1000.",
             source: "project rule (PROTOCOL.md §1)"),
        Rule(id: .timestampInvalid, slug: "timestamp-invalid", severity: .error,
             summary: "The timestamp is not a non-negative integer.",
             explanation: "Timestamps are integer Unix epoch milliseconds. A fraction, exponent or negative value means the sender wrote a Double or a time interval.",
             source: "project rule (PROTOCOL.md §1)"),
        Rule(id: .wrongDirection, slug: "wrong-direction", severity: .error,
             summary: "The message type is not allowed in this direction.",
             explanation: "Requests go web to host and responses host to web. A request from the host or a response from the web means a side echoed messages back or the capture's direction is swapped.",
             source: "004_8e460132a1151688.txt (Message Types)"),
        Rule(id: .tooLarge, slug: "too-large", severity: .error,
             summary: "The message is larger than the size limit (16 MiB by default).",
             explanation: "Hosts cap one message to protect memory. Large captures should be downscaled or JPEG-compressed before base64.",
             source: "project rule (PROTOCOL.md §6)"),
        Rule(id: .tooDeep, slug: "too-deep", severity: .error,
             summary: "The message nests deeper than the depth limit (64 by default).",
             explanation: "Envelopes are shallow; deep nesting is a bug or an attack on the parser.",
             source: "project rule (PROTOCOL.md §6)"),
        Rule(id: .invalidAction, slug: "invalid-action", severity: .error,
             summary: "The action is empty or not a dot-separated name.",
             explanation: "Actions look like camera.document.capture: segments of letters, digits, _ or -, separated by dots. Nothing can route another spelling.",
             source: "project rule (PROTOCOL.md §1)"),
        Rule(id: .unknownField, slug: "unknown-field", severity: .info,
             summary: "The envelope or payload has a member the protocol does not define.",
             explanation: "Extra members are ignored by both sides. Put custom values in payload.data instead.",
             source: "project rule"),
        Rule(id: .unknownErrorCode, slug: "unknown-error-code", severity: .info,
             summary: "The error code is not one PROTOCOL.md §4 lists.",
             explanation: "Custom codes are allowed, but the web journey may not know how to handle them; check it has a fallback.",
             source: "PROTOCOL.md §4"),
        Rule(id: .invalidUTF8, slug: "invalid-utf8", severity: .error,
             summary: "The message bytes are not valid UTF-8.",
             explanation: "Envelopes are UTF-8 JSON text. Check the transport's encoding (a Latin-1 conversion on the way is the usual cause).",
             source: "RFC 8259 §8.1; PROTOCOL.md §5"),
    ]
}
