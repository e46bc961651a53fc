import BridgeJSON

/// Encodes envelopes as compact JSON, refusing any envelope that would not decode with
/// zero findings (so a host built on it cannot emit a protocol violation by accident).
public struct EnvelopeEncoder: Sendable {
    /// Why an envelope was refused: the findings it would produce.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// The findings the envelope would produce when decoded.
        public var findings: [Finding]
        /// The findings, one per line.
        public var description: String { findings.map(\.description).joined(separator: "\n") }
    }

    /// Creates an encoder.
    public init() {}

    /// The compact UTF-8 JSON of `envelope`, or a ``Refusal`` listing what is wrong.
    /// `direction`, when given, is checked too (a request must go web to host).
    public func encode(_ envelope: Envelope, direction: Direction? = nil) throws(Refusal) -> [UInt8] {
        let value = envelope.jsonValue
        var checker = EnvelopeChecker(direction: direction)
        _ = checker.check(value)
        if !checker.findings.isEmpty { throw Refusal(findings: checker.findings) }
        return JSONWriter().bytes(value)
    }

    /// The compact JSON text of `envelope`.
    func encodeString(_ envelope: Envelope, direction: Direction? = nil) throws(Refusal) -> String {
        String(decoding: try encode(envelope, direction: direction), as: UTF8.self)
    }
}
