import BridgeJSON
import BridgeProtocol

/// The per-message oracles, which judge the parser and the decoder on each message the
/// fuzzer sends whatever the target: ``Oracle/roundTrip`` and ``Oracle/jsonAgreement``.
public struct MessageOracles: Sendable {
    /// Which of the two run.
    public var oracles: Set<Oracle>
    let decoder = EnvelopeDecoder()
    let encoder = EnvelopeEncoder()

    /// Creates the checks.
    public init(oracles: Set<Oracle> = [.roundTrip, .jsonAgreement]) {
        self.oracles = oracles
    }

    /// Checks one message.
    public func check(_ message: [UInt8]) -> [Violation] {
        var out: [Violation] = []
        if oracles.contains(.roundTrip) { out += roundTrip(message) }
        if oracles.contains(.jsonAgreement), let v = JSONAgreement.check(message) { out.append(v) }
        return out
    }

    /// ``Oracle/roundTrip``: parse → write → parse, and decode → encode → decode.
    public func roundTrip(_ message: [UInt8]) -> [Violation] {
        jsonRoundTrip(message) + envelopeRoundTrip(message)
    }

    /// The JSON half of ``Oracle/roundTrip``: parse → write → parse gives the same value
    /// and duplicate keys, and writing it again gives the same bytes.
    func jsonRoundTrip(_ message: [UInt8]) -> [Violation] {
        var out: [Violation] = []
        func fail(_ signature: String, _ text: String) {
            out.append(Violation(.roundTrip, signature: signature, text))
        }
        if let doc = try? JSONParser().parse(message) {
            let written = JSONWriter().bytes(doc.value)
            do {
                let again = try JSONParser().parse(written)
                if again.value != doc.value {
                    fail("json-value-changed", "parse → write → parse changed the value: \(preview(written))")
                } else if again.duplicateKeys.count != doc.duplicateKeys.count {
                    fail("json-duplicates-changed", "parse → write → parse changed the duplicate keys (\(doc.duplicateKeys.count) → \(again.duplicateKeys.count))")
                } else if JSONWriter().bytes(again.value) != written {
                    fail("json-writer-unstable", "writing the re-parsed value gave different bytes")
                }
            } catch {
                fail("json-writer-output-rejected \(error.code)", "the writer's output does not parse: \(error) — \(preview(written))")
            }
        }
        return out
    }

    /// The envelope half of ``Oracle/roundTrip``: decode → encode → decode gives the same
    /// envelope, a clean envelope stays clean, and `EnvelopeEncoder` writes what
    /// `JSONWriter` writes. `first` is the message's web-to-host decoding when the caller
    /// already has it.
    func envelopeRoundTrip(_ message: [UInt8], first known: DecodeResult? = nil) -> [Violation] {
        var out: [Violation] = []
        func fail(_ signature: String, _ text: String) {
            out.append(Violation(.roundTrip, signature: signature, text))
        }
        let first = known ?? decoder.decode(message, direction: .webToHost)
        guard let envelope = first.envelope else { return out }
        let written = JSONWriter().bytes(envelope.jsonValue)
        let second = decoder.decode(written, direction: .webToHost)
        if second.envelope != envelope {
            fail("envelope-changed", "decode → encode → decode changed the envelope: \(preview(written))")
        }
        if first.findings.isEmpty {
            if !second.findings.isEmpty {
                fail("clean-envelope-gained-findings", "a clean envelope re-encoded has findings: \(second.findings.map(\.description).joined(separator: "; "))")
            }
            do {
                let encoded = try encoder.encode(envelope, direction: .webToHost)
                if encoded != written {
                    fail("encoder-differs", "EnvelopeEncoder and JSONWriter disagree on a clean envelope")
                }
            } catch {
                fail("encoder-refused-clean", "EnvelopeEncoder refused an envelope that decoded clean: \(error)")
            }
        }
        return out
    }

    func preview(_ bytes: [UInt8]) -> String {
        let s = String(decoding: bytes.prefix(160), as: UTF8.self)
        return bytes.count > 160 ? s + "… (\(bytes.count) bytes)" : s
    }
}
