import BridgeHost
import BridgeJSON
import BridgeProtocol
import Testing
import BridgeClock

/// Routing, slots and the capability query, on the bare state machine and simulator.
struct StateMachineTests {
    func bare(_ configure: (inout HostStateMachine) -> Void = { _ in }) -> HostSimulator {
        var m = HostStateMachine(eventIDSeed: 1)
        configure(&m)
        var sim = HostSimulator(machine: m)
        sim.start()
        _ = WireCheck.drain(&sim)
        return sim
    }

    @Test func hostReadyComesFirstWithAnIOSEventID() {
        var sim = HostSimulator(machine: Scenario.default.makeMachine(eventIDSeed: 3))
        sim.start()
        sim.start()  // idempotent
        let out = WireCheck.drain(&sim)
        #expect(out.count == 1)
        let ready = out[0]
        #expect(ready.type == .event && ready.payload.action == .hostReady)
        #expect(ready.correlationId.hasPrefix("ios-event-"))
        #expect(ready.correlationId.count == "ios-event-".count + 36)
        #expect(ready.payload.data?["hostVersion"] == "1.0.0")
    }

    @Test func androidHostsNameEventsAndroid() {
        var s = Scenario.default
        s.environment = .android
        var sim = HostSimulator(machine: s.makeMachine(eventIDSeed: 3))
        sim.start()
        #expect(WireCheck.drain(&sim).first?.correlationId.hasPrefix("android-event-") == true)
        sim.apply(sim.machine.sendEvent(.hostBackground, data: JSONObject(), now: sim.now).actions)
        #expect(WireCheck.drain(&sim).first?.correlationId.hasPrefix("android-event-") == true)
    }

    @Test func eventIDsAreUniqueAndSeeded() {
        var a = EventIDGenerator(seed: 9), b = EventIDGenerator(seed: 9)
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = a.next()
            #expect(id == b.next())
            #expect(seen.insert(id).inserted)
            let chars = Array(id)
            #expect(chars[14] == "4" && "89AB".contains(chars[19]))
        }
    }

    @Test func dynamicCapabilityQueryFollowsSlotsAndCustomCapabilities() {
        var sim = bare { m in
            m.setSlotHandler(.document, .external)
            m.setSlotPermission(.document, .granted)
            m.setSlotHandler(.selfie, .external)
            m.setSlotPermission(.selfie, .notDetermined)
            m.registerCustomCapability("nfc.read", version: "1.0", handler: .external)
        }
        sim.receive(Web.request("q", .capabilityQuery))
        let answer = WireCheck.drain(&sim)
        #expect(answer.count == 1)
        let r = answer[0]
        #expect(r.status == .success && r.payload.action == .capabilityQuery && r.correlationId == "q")
        #expect(r.payload.data?["environment"] == "ios" && r.payload.data?["hostVersion"] == "1.0.0")
        #expect(r.capability("camera.document") == Web.object(["supported": true, "version": "1.0", "permissionState": "granted"]))
        #expect(r.capability("camera.selfie")?["permissionState"] == "notDetermined")
        #expect(r.capability("nfc.read") == Web.object(["supported": true, "version": "1.0"]))
        #expect(r.payload.data?["capabilities"]?.objectValue?.keys == ["camera.document", "camera.selfie", "nfc.read"])
    }

    @Test func handlerAsDeclaration() {
        var sim = bare()
        #expect(!sim.machine.isSupported(.document))
        sim.receive(Web.request("q1", .capabilityQuery))
        #expect(WireCheck.drain(&sim)[0].capability("camera.document") == nil)
        sim.machine.setSlotHandler(.document, .external)
        #expect(sim.machine.isSupported(.document))
        sim.machine.setSlotEnabled(.document, false)
        #expect(!sim.machine.isSupported(.document))
        sim.receive(Web.request("q2", .capabilityQuery))
        #expect(WireCheck.drain(&sim)[0].capability("camera.document")?["supported"] == false)
    }

    @Test func precedenceSlotOverCustomOverConfiguration() {
        let config: [String: BridgeCapabilityInfo] = [
            "camera.document": BridgeCapabilityInfo(supported: true, version: "0.9",
                                                    constraints: Web.object(["maxResolution": 4096])),
            "nfc.read": BridgeCapabilityInfo(supported: false, version: "0.1"),
            "biometric.fingerprint": BridgeCapabilityInfo(supported: true, version: "2.0", permissionState: .granted),
        ]
        var m = HostStateMachine(settings: .init(staticCapabilities: config), eventIDSeed: 1)
        m.registerCustomCapability("nfc.read", version: "1.0", handler: .external)
        var caps = m.capabilityAnswer()["capabilities"]!.objectValue!
        // No slot handler: the configuration speaks for camera.document; custom beats configuration.
        #expect(caps["camera.document"]?["version"] == "0.9")
        #expect(caps["camera.document"]?["constraints"]?["maxResolution"] == 4096)
        #expect(caps["nfc.read"]?["version"] == "1.0" && caps["nfc.read"]?["supported"] == true)
        #expect(caps["biometric.fingerprint"]?["permissionState"] == "granted")
        // A supported slot beats everything.
        m.setSlotHandler(.document, .external)
        caps = m.capabilityAnswer()["capabilities"]!.objectValue!
        #expect(caps["camera.document"]?["version"] == "1.0" && caps["camera.document"]?["constraints"] == nil)
        // A disabled slot gives way to the configuration again.
        m.setSlotEnabled(.document, false)
        caps = m.capabilityAnswer()["capabilities"]!.objectValue!
        #expect(caps["camera.document"]?["version"] == "0.9")
        // A custom capability with a slot's id: the supported slot wins.
        m.setSlotEnabled(.document, true)
        m.registerCustomCapability("camera.document", version: "7.0", handler: .external)
        caps = m.capabilityAnswer()["capabilities"]!.objectValue!
        #expect(caps["camera.document"]?["version"] == "1.0")
    }

    @Test func routingFollowsTheSamePrecedence() {
        var sim = bare { m in
            m.registerConfigurationHandler(action: "camera.document.capture", .external)
            m.registerConfigurationHandler(action: "nfc.read", .external)
            m.registerCustomCapability("nfc.read", version: "1.0", handler: .external)
        }
        sim.receive(Web.capture("d1", side: "front"))
        sim.receive(Web.request("n1", .nfcRead))
        #expect(sim.externalStarts.map(\.route) == [.configuration("camera.document.capture"), .custom("nfc.read")])
        sim.machine.setSlotHandler(.document, .external)
        sim.receive(Web.capture("d2", side: "front"))
        #expect(sim.externalStarts.last?.route == .slot(.document))
        #expect(WireCheck.drain(&sim).isEmpty)
    }

    @Test func busyRejectionIsExact() throws {
        var sim = startedSimulator()
        sim.receive(Web.capture("d1", side: "front"))
        #expect(sim.machine.activeRequest(.document)?.correlationId == "d1")
        sim.receive(Web.capture("d2", side: "back"))
        let busy = WireCheck.drain(&sim)
        #expect(busy.count == 1)
        let b = try #require(busy.first)
        #expect(b.correlationId == "d2" && b.payload.action == .documentCapture && b.status == .error)
        #expect(b.payload.error == ErrorPayload(code: .busy, message: "A camera.document capture request is already in progress",
                                                recoverable: true))
        // The other slot is independent.
        sim.receive(Web.request("s1", .selfieCapture))
        #expect(WireCheck.drain(&sim).isEmpty)
        sim.advance(by: 100)
        let done = WireCheck.drain(&sim)
        #expect(Set(done.map(\.correlationId)) == ["d1", "s1"] && done.allSatisfy { $0.status == .success })
        #expect(sim.machine.activeRequest(.document) == nil)
        sim.receive(Web.capture("d3", side: "front"))
        #expect(sim.machine.activeRequest(.document)?.correlationId == "d3")
    }

    @Test func selfieBusyMessageNamesItsSlot() {
        var sim = startedSimulator()
        sim.receive(Web.request("s1", .selfieCapture))
        sim.receive(Web.request("s2", .selfieCapture))
        #expect(WireCheck.drain(&sim).first?.payload.error?.message == "A camera.selfie capture request is already in progress")
    }

    @Test func unhandledRequestIsAnsweredUnsupported() {
        var sim = bare()
        sim.receive(Web.request("u1", "biometric.fingerprint"))
        let out = WireCheck.drain(&sim)
        #expect(out.count == 1)
        #expect(out[0].status == .unsupported && out[0].payload.action == "biometric.fingerprint")
        #expect(out[0].payload.error == ErrorPayload(code: .unsupportedAction,
            message: "Action 'biometric.fingerprint' is not supported by this host", recoverable: false))
        #expect(sim.machine.pendingCount == 0)
    }

    @Test func slotWithoutHandlerOrDisabledAnswersItself() {
        var sim = bare()
        sim.receive(Web.capture("d1", side: "front"))
        var out = WireCheck.drain(&sim)
        #expect(out[0].status == .unsupported && out[0].errorCode == .unsupportedAction)
        sim.machine.setSlotHandler(.document, .external)
        sim.machine.setSlotEnabled(.document, false)
        sim.receive(Web.capture("d2", side: "front"))
        out = WireCheck.drain(&sim)
        #expect(out[0].status == .unsupported && out[0].errorCode == .capabilityUnavailable && out[0].payload.error?.recoverable == false)
        #expect(sim.externalStarts.isEmpty)
    }

    @Test func respondOnceRefusesSecondAnswers() throws {
        var sim = bare { $0.registerCustomCapability("nfc.read", version: "1.0", handler: .external) }
        sim.receive(Web.request("n1", .nfcRead))
        let token = try #require(sim.externalStarts.first?.token)
        sim.apply(sim.machine.complete(token, with: .success(Web.object(["chipRead": true])), now: sim.now))
        sim.apply(sim.machine.complete(token, with: .failure(.nfcError, "late", recoverable: true), now: sim.now))
        let out = WireCheck.drain(&sim)
        #expect(out.count == 1 && out[0].status == .success)
        #expect(sim.log.contains { $0.event == "response-refused" && $0.correlationId == "n1" })
        // A new request reusing the id is not answered by the old token.
        sim.receive(Web.request("n1", .nfcRead))
        sim.apply(sim.machine.complete(token, with: .success(), now: sim.now))
        #expect(WireCheck.drain(&sim).isEmpty)
        #expect(sim.machine.pendingCount == 1)
    }

    @Test func acknowledgedOnceThenFinal() throws {
        var sim = bare { $0.registerCustomCapability("nfc.read", version: "1.0", handler: .external) }
        sim.receive(Web.request("n1", .nfcRead))
        let token = try #require(sim.externalStarts.first?.token)
        sim.apply(sim.machine.complete(token, with: BridgeResponse(status: .acknowledged), now: sim.now))
        sim.apply(sim.machine.complete(token, with: BridgeResponse(status: .acknowledged), now: sim.now))
        #expect(sim.machine.pendingCount == 1)
        sim.apply(sim.machine.complete(token, with: .success(), now: sim.now))
        #expect(WireCheck.drain(&sim).map(\.status) == [.acknowledged, .success])
    }

    @Test func duplicateCorrelationIdOfAPendingRequestIsNotRouted() {
        var sim = startedSimulator()
        sim.receive(Web.request("n1", .nfcRead))
        sim.receive(Web.request("n1", .nfcRead))
        #expect(WireCheck.drain(&sim).isEmpty)
        #expect(sim.log.contains { $0.event == "duplicate-correlation-id" })
        sim.advance(by: 100)
        #expect(WireCheck.drain(&sim).count == 1)
    }

    @Test func invalidHandlerAnswersBecomeInternalError() throws {
        var sim = bare { $0.registerCustomCapability("x.y", version: "1.0", handler: .external) }
        sim.receive(Web.request("a", "x.y"))
        sim.receive(Web.request("b", "x.y"))
        sim.receive(Web.request("c", "x.y"))
        let tokens = sim.externalStarts.map(\.token)
        // A custom error code, duplicate keys, and an error payload on success.
        sim.apply(sim.machine.complete(tokens[0], with: .failure("MY_CODE", "custom", recoverable: true), now: sim.now))
        let dup = JSONObject([.init(key: "k", value: 1), .init(key: "k", value: 2)])
        sim.apply(sim.machine.complete(tokens[1], with: .success(dup), now: sim.now))
        sim.apply(sim.machine.complete(tokens[2], with: BridgeResponse(status: .success,
            error: ErrorPayload(code: .busy, message: "no", recoverable: true)), now: sim.now))
        let out = WireCheck.drain(&sim)
        #expect(out.count == 3)
        #expect(out.allSatisfy { $0.status == .error && $0.errorCode == .internalError })
        #expect(sim.log.filter { $0.event == "encoder-refused" }.count == 3)
    }

    @Test func tooDeepHandlerDataIsRefusedNotSent() throws {
        var sim = bare { $0.registerCustomCapability("x.y", version: "1.0", handler: .external) }
        sim.receive(Web.request("a", "x.y"))
        var deep: JSONValue = 1
        for _ in 0..<70 { deep = .array([deep]) }
        let token = try #require(sim.externalStarts.first?.token)
        sim.apply(sim.machine.complete(token, with: .success(Web.object(["deep": deep])), now: sim.now))
        #expect(WireCheck.drain(&sim).first?.errorCode == .internalError)
    }

    @Test func badEventNamesAreRefused() {
        var m = HostStateMachine(eventIDSeed: 1)
        let r = m.sendEvent("not an action", data: nil, now: VirtualClock.defaultStart)
        #expect(r.envelope == nil)
        #expect(!r.actions.contains { if case .send = $0 { return true } else { return false } })
    }

    /// The query answer is cached between configuration changes: it must follow every
    /// change, and be byte for byte what the encoder makes (ids that need escaping too).
    @Test func cachedCapabilityAnswerFollowsChangesAndMatchesTheEncoder() {
        var sim = bare { $0.setSlotHandler(.document, .external) }
        func ask(_ id: String) -> OutboundMessage? {
            sim.receive(Web.request(id, .capabilityQuery))
            let sent = sim.takeSent()
            #expect(sent.count == 1)
            guard let m = sent.first else { return nil }
            #expect(m.bytes == (try? EnvelopeEncoder().encode(m.envelope, direction: .hostToWeb)))
            #expect(m.envelope.correlationId == id)
            return m
        }
        let first = ask("q1")
        #expect(first?.envelope.payload.data?["capabilities"]?["camera.document"]?["supported"] == .bool(true))
        sim.machine.setSlotEnabled(.document, false)
        let second = ask("q\"2\\\u{1}é")
        #expect(second?.envelope.payload.data?["capabilities"]?["camera.document"]?["supported"] == .bool(false))
        sim.machine.registerCustomCapability("nfc.read", version: "2.0", handler: .external)
        let third = ask("q3")
        #expect(third?.envelope.payload.data?["capabilities"]?["nfc.read"]?["version"] == "2.0")
        #expect(third?.envelope.payload.data == sim.machine.capabilityAnswer())
    }

    /// Below 10^11 ms a timestamp reads as seconds: such answers take the encoder's path,
    /// which refuses them (and its INTERNAL_ERROR fallback) and logs it, as before the cache.
    @Test func capabilityAnswerAtAnImplausibleTimeTakesTheEncodersPath() {
        var sim = HostSimulator(machine: HostStateMachine(eventIDSeed: 1), start: 5)
        sim.receive(Web.request("q1", .capabilityQuery))
        #expect(sim.takeSent().isEmpty)
        #expect(sim.log.contains { $0.event == "encoder-refused" })
    }

    /// Turning debug entries off changes the log only, never what is sent.
    @Test func debugLogCanBeTurnedOffWithoutChangingTheWire() {
        func run(debug: Bool) -> (sent: [[UInt8]], log: [HostLogEntry]) {
            var m = Scenario.default.makeMachine(eventIDSeed: 9)
            m.emitsDebugLog = debug
            var sim = HostSimulator(machine: m)
            sim.keepsDebugLog = true
            sim.start()
            sim.receive(Web.request("q1", .capabilityQuery))
            sim.receive(Web.request("d1", .documentCapture))
            sim.receive("{not json")
            sim.runUntilIdle()
            return (sim.takeSent().map(\.bytes), sim.log)
        }
        let on = run(debug: true), off = run(debug: false)
        #expect(on.sent == off.sent)
        #expect(on.sent.count == 3)
        #expect(on.log.contains { $0.level == .debug })
        #expect(!off.log.contains { $0.level == .debug })
        #expect(on.log.filter { $0.level > .debug } == off.log.filter { $0.level > .debug })
    }

    @Test func receivedHistoryIsBounded() {
        var sim = startedSimulator()
        for i in 0..<500 { sim.receive(Web.event("e\(i)", .journeyProgress)) }
        let history = sim.machine.receivedMessages
        #expect(history.count == 200)
        #expect(history.first?.correlationId == "e300" && history.last?.correlationId == "e499")
        #expect(WireCheck.drain(&sim).isEmpty)
    }

    @Test func webEventsAreObservedNotAnswered() {
        var sim = startedSimulator()
        sim.receive(Web.event("j1", .journeyComplete, data: Web.object(["status": "success", "referenceId": "R-1"])))
        #expect(WireCheck.drain(&sim).isEmpty)
        #expect(sim.delegateSaw.last?.payload.action == .journeyComplete)
    }

    @Test func scheduledEventsFireAtTheirTime() {
        var s = Scenario.default
        s.events = [.init(atMs: 500, action: .hostBackground), .init(atMs: 900, action: .hostForeground)]
        var sim = startedSimulator(s)
        sim.advance(by: 499)
        #expect(WireCheck.drain(&sim).isEmpty)
        sim.advance(by: 1)
        #expect(WireCheck.drain(&sim).map(\.payload.action) == [.hostBackground])
        sim.runUntilIdle()
        let fg = WireCheck.drain(&sim)
        #expect(fg.map(\.payload.action) == [.hostForeground] && fg[0].timestamp == VirtualClock.defaultStart + 900)
    }
}
