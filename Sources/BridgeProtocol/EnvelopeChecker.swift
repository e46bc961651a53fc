import BridgeJSON

/// The field-by-field checks behind ``EnvelopeDecoder``: collects findings and the
/// partial envelope as it goes.
struct EnvelopeChecker {
    let direction: Direction?
    var findings: [Finding] = []
    var partial = PartialEnvelope()

    /// Member-name sets as plain arrays: a few string comparisons beat hashing here.
    static let envelopeKeys: [String] = ["version", "correlationId", "type", "timestamp", "payload"]
    static let payloadKeys: [String] = ["action", "data", "status", "error"]
    static let errorKeys: [String] = ["code", "message", "recoverable"]
    /// Below this a millisecond timestamp is before March 1973: it is probably seconds.
    static let secondsThreshold: Int64 = 100_000_000_000

    init(direction: Direction?) {
        self.direction = direction
    }

    mutating func add(_ rule: RuleID, _ message: String, _ offset: Int?) {
        findings.append(Finding(rule, message, offset: offset.flatMap { $0 >= 0 ? $0 : nil }))
    }

    mutating func check(_ value: JSONValue) -> Envelope? {
        guard case .object(let root) = value else {
            add(.notAnObject, "message is a JSON \(value.kindName), not an object", 0)
            return nil
        }
        for m in root.members where !Self.envelopeKeys.contains(m.key) {
            add(.unknownField, "unknown envelope member \"\(m.key)\"", m.keyOffset)
        }
        let version = string(root, "version", required: true)
        let correlationId = string(root, "correlationId", required: true)
        let typeName = string(root, "type", required: true)
        let timestamp = checkTimestamp(root)
        partial.correlationId = correlationId
        partial.timestamp = timestamp
        if let version { checkVersion(version, root.member("version")!.valueOffset) }
        if let correlationId, correlationId.isEmpty {
            add(.emptyCorrelationId, "correlationId is empty", root.member("correlationId")!.valueOffset)
        }
        var type: MessageType?
        if let typeName {
            let t = MessageType(rawValue: typeName)
            partial.type = t
            type = t
            if !t.isKnown {
                add(.unknownType, "type \"\(typeName)\" is not request, response or event", root.member("type")!.valueOffset)
            } else if let direction {
                checkDirection(t, direction, root.member("type")!.valueOffset)
            }
        }
        let payload = checkPayload(root, type: type)
        guard let version, let correlationId, let type, let timestamp, let payload else { return nil }
        return Envelope(version: version, correlationId: correlationId, type: type, timestamp: timestamp, payload: payload)
    }

    /// The string value of `key`, reporting a missing or non-string member.
    mutating func string(_ object: JSONObject, _ key: String, required: Bool, path: String = "") -> String? {
        guard let m = object.member(key) else {
            if required { add(.missingField, "required field \"\(path)\(key)\" is missing", nil) }
            return nil
        }
        guard case .string(let s) = m.value else {
            add(.wrongFieldType, "\"\(path)\(key)\" must be a string, not a \(m.value.kindName)", m.valueOffset)
            return nil
        }
        return s
    }

    mutating func checkVersion(_ version: String, _ offset: Int) {
        if version == Envelope.protocolVersion { return }
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 2, parts[0] == "1", let minor = Int(parts[1]), minor >= 0 {
            return
        }
        add(.unsupportedVersion, "version \"\(version)\" is not a 1.x protocol version (expected \"1.0\")", offset)
    }

    mutating func checkDirection(_ type: MessageType, _ direction: Direction, _ offset: Int) {
        if type == .request && direction == .hostToWeb {
            add(.wrongDirection, "a request travelled host to web; requests go web to host", offset)
        } else if type == .response && direction == .webToHost {
            add(.wrongDirection, "a response travelled web to host; responses go host to web", offset)
        }
    }

    mutating func checkTimestamp(_ root: JSONObject) -> Int64? {
        guard let m = root.member("timestamp") else {
            add(.missingField, "required field \"timestamp\" is missing", nil)
            return nil
        }
        guard case .number(let n) = m.value else {
            add(.wrongFieldType, "\"timestamp\" must be a number (epoch milliseconds), not a \(m.value.kindName)", m.valueOffset)
            return nil
        }
        guard n.isIntegerLexeme, let v = n.int64, !n.lexeme.hasPrefix("-") || v == 0 else {
            add(.timestampInvalid, "timestamp \(n.lexeme) is not a non-negative integer of epoch milliseconds", m.valueOffset)
            return nil
        }
        if v < Self.secondsThreshold {
            add(.timestampInSeconds, "timestamp \(v) looks like seconds, not milliseconds (\(v) ms is before 1973)", m.valueOffset)
        }
        return v
    }
}
