import BridgeHost
import BridgeJSON
import BridgeProtocol
import Testing

/// Bad input is a first-class case: the host never crashes, never routes an invalid
/// message, answers INVALID_REQUEST exactly when PROTOCOL.md §4 says, and stays bounded.
struct HostileInputTests {
    /// (input, expected answer: nil for none, else the action of the INVALID_REQUEST answer)
    static let invalidCases: [(String, String?, String?)] = [
        ("", nil, nil),
        ("garbage", nil, nil),
        ("{", nil, nil),
        ("[]", nil, nil),
        ("\"request\"", nil, nil),
        ("null", nil, nil),
        ("{}", nil, nil),
        (#"{"type":"request"}"#, nil, nil),
        (#"{"type":"request","correlationId":""}"#, nil, nil),
        (#"{"type":"request","correlationId":42}"#, nil, nil),
        (#"{"type":"event","correlationId":"e1"}"#, nil, nil),
        (#"{"type":"response","correlationId":"r1","payload":{"action":"x.y","status":"success"}}"#, nil, nil),
        (#"{"type":"request","correlationId":"a1"}"#, "a1", "invalid"),
        (#"{"type":"request","correlationId":"a2","payload":{"action":"nfc.read"}}"#, "a2", "nfc.read"),
        (#"{"type":"request","correlationId":"a3","payload":{"action":""}}"#, "a3", "invalid"),
        (#"{"type":"request","correlationId":"a4","payload":{"action":"not valid!"}}"#, "a4", "invalid"),
        (#"{"type":"request","correlationId":"a5","payload":{"action":7}}"#, "a5", "invalid"),
        (#"{"version":"2.0","correlationId":"a6","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#, "a6", "capability.query"),
        (#"{"version":"1.0","correlationId":"a7","type":"request","timestamp":"1700000000000","payload":{"action":"capability.query"}}"#, "a7", "capability.query"),
        (#"{"version":"1.0","correlationId":"a8","type":"request","timestamp":-5,"payload":{"action":"camera.document.capture"}}"#, "a8", "camera.document.capture"),
        (#"{"version":"1.0","correlationId":"a9","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read","status":"success"}}"#, "a9", "nfc.read"),
        (#"{"version":"1.0","correlationId":"b1","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read","data":[1]}}"#, "b1", "nfc.read"),
        (#"{"version":"1.0","correlationId":"b2","correlationId":"b2","type":"request","timestamp":1700000000000,"payload":{"action":"nfc.read"}}"#, "b2", "nfc.read"),
        (#"{"version":"1.0","correlationId":"b3","type":"query","timestamp":1700000000000,"payload":{"action":"nfc.read"}}"#, nil, nil),
    ]

    @Test(arguments: invalidCases)
    func invalidMessagesAreNeverRouted(input: String, answeredID: String?, answeredAction: String?) {
        var sim = startedSimulator()
        sim.receive(input)
        let out = WireCheck.drain(&sim)
        #expect(sim.machine.pendingCount == 0 && sim.timerCount == 0)
        #expect(sim.delegateSaw.isEmpty)
        #expect(sim.rejected.count == 1)
        #expect(sim.log.contains { $0.event == "invalid-input" && !$0.findings.isEmpty })
        if let answeredID {
            #expect(out.count == 1)
            #expect(out.first?.correlationId == answeredID)
            #expect(out.first?.payload.action.rawValue == answeredAction)
            #expect(out.first?.status == .error)
            #expect(out.first?.payload.error?.code == .invalidRequest && out.first?.payload.error?.recoverable == false)
        } else {
            #expect(out.isEmpty)
        }
        sim.runUntilIdle()
        #expect(WireCheck.drain(&sim).isEmpty)
    }

    @Test func invalidUTF8AndControlBytes() {
        var sim = startedSimulator()
        sim.receive([0xFF, 0xFE, 0x7B, 0x7D])
        sim.receive([0x7B, 0x22, 0x61, 0x00, 0x22, 0x3A, 0x31, 0x7D])
        sim.receive([UInt8](repeating: 0, count: 100))
        #expect(WireCheck.drain(&sim).isEmpty)
        #expect(sim.rejected.count == 3)
    }

    @Test func messagesOverTheSizeLimitAreNotParsed() {
        var limits = HostLimits()
        limits.json.maxInputBytes = 4096
        var sim = HostSimulator(machine: Scenario.default.makeMachine(eventIDSeed: 1, limits: limits))
        let big = #"{"type":"request","correlationId":"big","pad":""# + String(repeating: "x", count: 5000) + #""}"#
        sim.receive(big)
        #expect(WireCheck.drain(&sim).isEmpty)
        #expect(sim.rejected.first?.findings.first?.rule == .tooLarge)
    }

    @Test func aHugeValidRequestIsServed() {
        // 8 MiB of request data: under the 16 MiB limit, so it is routed and answered.
        var sim = startedSimulator()
        let pad = String(repeating: "A", count: 8 << 20)
        sim.receive(Web.request("huge", .nfcRead, data: Web.object(["pad": .string(pad)])))
        sim.advance(by: 100)
        #expect(WireCheck.drain(&sim).map(\.correlationId) == ["huge"])
    }

    @Test func deeplyNestedMessagesAreRejected() {
        var sim = startedSimulator()
        let depth = 10_000
        let deep = #"{"type":"request","correlationId":"deep","payload":{"action":"nfc.read","data":{"x":"#
            + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}}}"
        sim.receive(deep)
        #expect(WireCheck.drain(&sim).isEmpty)
        #expect(sim.rejected.first?.findings.first?.rule == .tooDeep)
        // Just under the limit (64 levels in all) is fine.
        var ok: JSONValue = 1
        for _ in 0..<59 { ok = .array([ok]) }
        sim.receive(Web.request("ok", .nfcRead, data: Web.object(["x": ok])))
        sim.advance(by: 100)
        #expect(WireCheck.drain(&sim).map(\.correlationId) == ["ok"])
    }

    @Test func aFloodOfPendingRequestsIsBounded() {
        var sim = startedSimulator()
        let n = 5000
        for i in 0..<n { sim.receive(Web.request("n\(i)", .nfcRead)) }
        let busy = WireCheck.drain(&sim)
        #expect(sim.machine.pendingCount == HostLimits.default.maxPendingRequests)
        #expect(busy.count == n - HostLimits.default.maxPendingRequests)
        #expect(busy.allSatisfy { $0.errorCode == .busy && $0.payload.error?.recoverable == true })
        #expect(busy.first?.payload.error?.message == "The host already has 1000 requests in progress (limit 1000)")
        // capability.query is answered even when full.
        sim.receive(Web.request("q", .capabilityQuery))
        #expect(WireCheck.drain(&sim).first?.status == .success)
        sim.advance(by: 100)
        let done = WireCheck.drain(&sim)
        #expect(done.count == HostLimits.default.maxPendingRequests && done.allSatisfy { $0.status == .success })
        #expect(sim.machine.pendingCount == 0 && sim.timerCount == 0)
        // Every request got exactly one final response.
        let ids = (busy + done).map(\.correlationId)
        #expect(Set(ids).count == n && ids.count == n)
    }

    @Test func pendingAndHistoryAreBoundedInBytes() {
        var limits = HostLimits()
        limits.maxPendingBytes = 10_000
        limits.maxReceivedHistoryBytes = 7_000
        var sim = HostSimulator(machine: Scenario.default.makeMachine(eventIDSeed: 1, limits: limits))
        let pad = String(repeating: "p", count: 3000)
        for i in 0..<4 { sim.receive(Web.request("big\(i)", .nfcRead, data: Web.object(["pad": .string(pad)]))) }
        let busy = WireCheck.drain(&sim)
        #expect(busy.map(\.correlationId) == ["big3"])
        #expect(busy.first?.payload.error?.message.hasPrefix("The host already holds") == true)
        #expect(sim.machine.pendingCount == 3 && sim.machine.pendingByteCount < 10_000)
        #expect(sim.machine.receivedMessages.map(\.correlationId) == ["big2", "big3"])
        sim.advance(by: 100)
        #expect(WireCheck.drain(&sim).count == 3)
        #expect(sim.machine.pendingByteCount == 0)
    }

    @Test func aFloodOfCaptureRequestsIsBusy() {
        var sim = startedSimulator()
        for i in 0..<1000 { sim.receive(Web.capture("d\(i)", side: "front")) }
        let busy = WireCheck.drain(&sim)
        #expect(busy.count == 999 && busy.allSatisfy { $0.errorCode == .busy })
        sim.advance(by: 100)
        #expect(WireCheck.drain(&sim).map(\.correlationId) == ["d0"])
    }

    /// A deterministic random walk over valid, mutated and garbage messages with time moving:
    /// each request gets at most one final response, nothing else is ever answered, every
    /// output is clean, and the state drains.
    @Test func randomSequencesKeepTheInvariants() {
        var rng = EventIDGenerator(seed: 2024)
        let actions: [Action] = [.capabilityQuery, .documentCapture, .selfieCapture, .nfcRead, "biometric.x", .journeyStarted]
        var sim = startedSimulator()
        var requested = Set<String>()
        var finals: [String: Int] = [:]
        for step in 0..<2000 {
            let r = rng.nextUInt64()
            let id = "r\(r % 600)"
            let action = actions[Int((r >> 10) % UInt64(actions.count))]
            var bytes = (r >> 20) % 4 == 0 ? Web.event(id, action) : Web.request(id, action)
            switch (r >> 24) % 8 {
            case 0: bytes[Int((r >> 32) % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: r >> 40)
            case 1: bytes = Array(bytes.prefix(Int((r >> 32) % UInt64(bytes.count))))
            case 2: bytes = (0..<Int((r >> 32) % 40)).map { UInt8(truncatingIfNeeded: r >> UInt64($0 % 56)) }
            default: break
            }
            let decoded = EnvelopeDecoder().decode(bytes, direction: .webToHost)
            if let e = decoded.envelope, decoded.isValid, e.type == .request { requested.insert(e.correlationId) }
            sim.receive(bytes)
            if step % 7 == 0 { sim.advance(by: Int64((r >> 48) % 150)) }
            for e in WireCheck.drain(&sim) where e.type == .response && e.status != .acknowledged {
                if e.errorCode != .invalidRequest { finals[e.correlationId, default: 0] += 1 }
            }
        }
        sim.runUntilIdle()
        for e in WireCheck.drain(&sim) where e.type == .response { finals[e.correlationId, default: 0] += 1 }
        #expect(sim.machine.pendingCount == 0 && sim.timerCount == 0)
        #expect(Set(finals.keys).isSubset(of: requested))
        #expect(!finals.isEmpty)
    }
}
