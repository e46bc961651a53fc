import BridgeJSON

/// The outcome of decoding one message: the envelope when its structure is usable,
/// what could be read otherwise, and every finding.
public struct DecodeResult: Sendable, Hashable {
    /// The envelope, when every required field is present with the right type (it may
    /// still carry error findings, such as an unknown status).
    public var envelope: Envelope?
    /// What could be read even when `envelope` is nil.
    public var partial: PartialEnvelope
    /// Every deviation found, in the order found. Decoding does not stop at the first.
    public var findings: [Finding]

    /// Whether the message is a valid envelope: decoded, with no error-severity finding.
    /// Hosts route only valid envelopes (PROTOCOL.md §4, project rule).
    public var isValid: Bool {
        envelope != nil && !findings.contains { $0.severity == .error }
    }

    /// The highest severity among the findings, if any.
    public var worstSeverity: Severity? { findings.map(\.severity).max() }
}

/// Decodes bytes into an ``Envelope`` and reports every deviation from PROTOCOL.md
/// §1–§4 as a ``Finding`` with a byte offset. Never throws, never traps.
///
/// Limits: messages over `limits.maxInputBytes` (16 MiB) are `too-large` without being
/// parsed; nesting over `limits.maxDepth` (64) is `too-deep`.
public struct EnvelopeDecoder: Sendable {
    /// The JSON limits applied to each message.
    public var limits: JSONLimits

    /// Creates a decoder with the documented default limits.
    public init(limits: JSONLimits = .default) {
        self.limits = limits
    }

    /// Decodes one message. `direction`, when known, enables `wrong-direction`.
    public func decode(_ bytes: UnsafeRawBufferPointer, direction: Direction? = nil) -> DecodeResult {
        guard bytes.count <= limits.maxInputBytes else {
            return DecodeResult(envelope: nil, partial: PartialEnvelope(), findings: [
                Finding(.tooLarge, "message is \(bytes.count) bytes, over the limit of \(limits.maxInputBytes) bytes", offset: limits.maxInputBytes),
            ])
        }
        let document: JSONDocument
        do {
            document = try JSONParser(limits: limits).parse(bytes)
        } catch {
            let rule: RuleID
            switch error.code {
            case .tooDeep: rule = .tooDeep
            case .inputTooLarge: rule = .tooLarge
            case .invalidUTF8: rule = .invalidUTF8
            default: rule = .malformedJSON
            }
            return DecodeResult(envelope: nil, partial: PartialEnvelope(), findings: [
                Finding(rule, error.reason, offset: error.offset),
            ])
        }
        var findings: [Finding] = document.duplicateKeys.map {
            Finding(.duplicateKey, "key \"\($0.key)\" appears twice in one object (first at byte \($0.firstOffset))", offset: $0.duplicateOffset)
        }
        var result = decode(value: document.value, direction: direction)
        findings.append(contentsOf: result.findings)
        result.findings = findings
        return result
    }

    /// Decodes one message held in an array.
    public func decode(_ bytes: [UInt8], direction: Direction? = nil) -> DecodeResult {
        bytes.withUnsafeBytes { decode($0, direction: direction) }
    }

    /// Decodes one message from a string's UTF-8.
    public func decode(_ text: String, direction: Direction? = nil) -> DecodeResult {
        decode(Array(text.utf8), direction: direction)
    }

    /// Checks an already parsed JSON value (offsets come from its members).
    public func decode(value: JSONValue, direction: Direction? = nil) -> DecodeResult {
        var checker = EnvelopeChecker(direction: direction)
        let envelope = checker.check(value)
        return DecodeResult(envelope: envelope, partial: checker.partial, findings: checker.findings)
    }
}
