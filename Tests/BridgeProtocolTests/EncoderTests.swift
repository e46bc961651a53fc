import BridgeJSON
import BridgeProtocol
import Testing

/// The encoder only produces envelopes that decode with zero findings.
struct EncoderTests {
    static let ts: Int64 = 1_700_000_000_000

    static let good: [(Envelope, Direction)] = {
        let req = Envelope.request(correlationId: "r1", action: .documentCapture, data: ["side": "front"], timestamp: ts)
        return [
            (req, .webToHost),
            (.request(correlationId: "q", action: .capabilityQuery, timestamp: ts), .webToHost),
            (.response(to: req, status: .success, data: ["width": 640, "height": 400, "mimeType": "image/png"], timestamp: ts + 5), .hostToWeb),
            (.response(to: req, status: .error, error: ErrorPayload(code: .busy, message: "A camera.document capture request is already in progress", recoverable: true), timestamp: ts), .hostToWeb),
            (.response(to: req, status: .unsupported, error: ErrorPayload(code: .unsupportedAction, message: "no handler", recoverable: false), timestamp: ts), .hostToWeb),
            (.response(to: req, status: .cancelled, timestamp: ts), .hostToWeb),
            (.response(to: req, status: .acknowledged, timestamp: ts), .hostToWeb),
            (.event(correlationId: "ios-event-1", action: .hostReady, data: ["s": "\u{0}\"\\\n\u{1F600}"], timestamp: ts), .hostToWeb),
            (.event(correlationId: "e", action: .journeyComplete, data: ["status": "passed"], timestamp: ts), .webToHost),
        ]
    }()

    @Test func roundTripIsExactAndClean() throws {
        for (envelope, direction) in Self.good {
            let bytes = try EnvelopeEncoder().encode(envelope, direction: direction)
            let decoded = EnvelopeDecoder().decode(bytes, direction: direction)
            #expect(decoded.findings.isEmpty, "\(String(decoding: bytes, as: UTF8.self)): \(decoded.findings)")
            #expect(decoded.envelope == envelope)
            // Encoding what was decoded gives the same bytes.
            #expect(try EnvelopeEncoder().encode(decoded.envelope!) == bytes)
        }
    }

    @Test func refusesEnvelopesThatWouldHaveFindings() {
        let bad: [Envelope] = [
            .request(correlationId: "", action: .nfcRead, timestamp: Self.ts),
            .request(correlationId: "a", action: "no spaces allowed", timestamp: Self.ts),
            .request(correlationId: "a", action: .nfcRead, timestamp: 1_700_000_000),
            .response(correlationId: "a", action: .nfcRead, status: .error, timestamp: Self.ts),
            .response(correlationId: "a", action: .nfcRead, status: .success,
                      error: ErrorPayload(code: .busy, message: "m", recoverable: true), timestamp: Self.ts),
            Envelope(correlationId: "a", type: .request, timestamp: Self.ts,
                     payload: .init(action: .nfcRead, status: .success)),
            Envelope(version: "2.0", correlationId: "a", type: .event, timestamp: Self.ts, payload: .init(action: "a.b")),
        ]
        for e in bad {
            #expect(throws: EnvelopeEncoder.Refusal.self) { try EnvelopeEncoder().encode(e) }
        }
        let wrongWay = Envelope.request(correlationId: "a", action: .nfcRead, timestamp: Self.ts)
        #expect(throws: EnvelopeEncoder.Refusal.self) { try EnvelopeEncoder().encode(wrongWay, direction: .hostToWeb) }
    }
}
