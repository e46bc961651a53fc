import BridgeHost
import BridgeJSON
import BridgeProtocol
import Testing

/// The one place every test sends host output through: each envelope the host emits must
/// decode with `EnvelopeDecoder` as host-to-web with zero findings (what
/// `bridgescope validate` checks), and the bytes must match the envelope the host says it
/// sent.
enum WireCheck {
    static let decoder = EnvelopeDecoder()

    /// Decodes host output, recording a test issue for any finding.
    @discardableResult
    static func hostToWeb(_ bytes: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Envelope? {
        let r = decoder.decode(bytes, direction: .hostToWeb)
        #expect(r.findings.isEmpty, "host emitted \(String(decoding: bytes.prefix(300), as: UTF8.self)): \(r.findings)",
                sourceLocation: sourceLocation)
        #expect(r.envelope != nil, sourceLocation: sourceLocation)
        #expect(!bytes.contains(0x0A), "a host message contains a raw newline", sourceLocation: sourceLocation)
        return r.envelope
    }

    /// Checks messages from the simulator (bytes and envelope agree).
    static func check(_ messages: [OutboundMessage], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [Envelope] {
        messages.map { m in
            let e = hostToWeb(m.bytes, sourceLocation: sourceLocation)
            #expect(e == m.envelope, sourceLocation: sourceLocation)
            return m.envelope
        }
    }

    /// Takes and checks what the simulator sent since the last call.
    static func drain(_ sim: inout HostSimulator, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [Envelope] {
        check(sim.takeSent(), sourceLocation: sourceLocation)
    }
}

/// Builds web-side messages.
enum Web {

    static func request(_ id: String, _ action: Action, data: JSONObject? = nil) -> [UInt8] {
        let e = Envelope.request(correlationId: id, action: action, data: data, timestamp: 1_700_000_000_000)
        return try! EnvelopeEncoder().encode(e, direction: .webToHost)
    }

    static func event(_ id: String, _ action: Action, data: JSONObject? = nil) -> [UInt8] {
        let e = Envelope.event(correlationId: id, action: action, data: data, timestamp: 1_700_000_000_000)
        return try! EnvelopeEncoder().encode(e, direction: .webToHost)
    }

    static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONObject {
        JSONObject(pairs.map { JSONObject.Member(key: $0.key, value: $0.value) })
    }

    static func capture(_ id: String, side: String) -> [UInt8] {
        request(id, .documentCapture, data: object(["documentType": "passport", "side": .string(side)]))
    }
}

extension Envelope {
    /// `payload.data.capabilities.<id>`.
    func capability(_ id: String) -> JSONObject? {
        payload.data?["capabilities"]?.objectValue?[id]?.objectValue
    }

    var status: Status? { payload.status }
    var errorCode: ErrorCode? { payload.error?.code }
}

/// A simulator for a scenario, started, with its `host.ready` checked and dropped.
func startedSimulator(_ scenario: Scenario = .default, seed: UInt64 = 7) -> HostSimulator {
    var sim = HostSimulator(machine: scenario.makeMachine(eventIDSeed: seed))
    sim.start()
    let ready = WireCheck.drain(&sim)
    if scenario.hostReady {
        #expect(ready.count == 1 && ready.first?.payload.action == .hostReady)
    }
    return sim
}
