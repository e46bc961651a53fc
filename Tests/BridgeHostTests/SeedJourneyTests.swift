import BridgeHost
import BridgeJSON
import BridgeProtocol
import Foundation
import Testing

/// The seeds' flows replayed as scripted message sequences.
struct SeedJourneyTests {
    // MARK: Seed 000: stub camera views wired with awaitCompletion / complete

    /// The "UI": presents a stub camera whenever a slot has an active request and completes
    /// it (captured, or dismissed), like seed 000's fullScreenCover wiring.
    static func runStubUI(_ host: BridgeHost, dismissSelfie: Bool, until stop: Shared<Bool>) async {
        var served = Set<String>()
        for _ in 0..<100_000 where !stop.get() {
            for slot in [host.documentCapture, host.selfieCapture] {
                guard let request = slot.activeRequest, !served.contains(request.correlationId) else { continue }
                served.insert(request.correlationId)
                if slot.kind == .document {
                    let side = request.payload.data?["side"]?.stringValue ?? "front"
                    slot.complete(.document(StubDocumentCamera().capture(side: side)))
                } else if dismissSelfie {
                    slot.complete(.cancelled(reason: "User dismissed"))
                } else {
                    slot.complete(.selfie(StubSelfieCamera().capture()))
                }
            }
            await Task.yield()
        }
    }

    @Test(arguments: [false, true])
    func seed000StubJourney(dismissSelfie: Bool) async throws {
        let h = HostHarness { clock, logger in BridgeHost(hostVersion: "1.0.0", clock: clock, logger: logger) }
        let host = h.host
        host.documentCapture.permissionState = .granted
        host.selfieCapture.permissionState = .granted
        host.documentCapture.handler = { [weak host] _ in
            guard let host else { return .cancelled(reason: "Host deallocated") }
            return await host.documentCapture.awaitCompletion()
        }
        host.selfieCapture.handler = { [weak host] _ in
            guard let host else { return .cancelled(reason: "Host deallocated") }
            return await host.selfieCapture.awaitCompletion()
        }
        let stop = Shared(false)
        let ui = Task { await Self.runStubUI(host, dismissSelfie: dismissSelfie, until: stop) }
        h.start()
        h.deliver(Web.request("q", .capabilityQuery))
        h.deliver(Web.capture("doc-front", side: "front"))
        var out = await h.sentCount(3)
        h.deliver(Web.request("selfie", .selfieCapture))
        out = await h.sentCount(4)
        h.deliver(Web.event("done", .journeyComplete, data: Web.object(["status": "success"])))
        await h.finish()
        stop.update { $0 = true }
        await ui.value

        #expect(out.map(\.correlationId).dropFirst() == ["q", "doc-front", "selfie"])
        #expect(out[1].capability("camera.document")?["supported"] == true)
        #expect(out[1].capability("camera.selfie")?["permissionState"] == "granted")
        #expect(out[2].status == .success && out[2].payload.data?["mimeType"] == "image/png")
        if dismissSelfie {
            #expect(out[3].status == .cancelled && out[3].payload.data?["reason"] == "User dismissed")
        } else {
            #expect(out[3].status == .success && out[3].payload.data?["mimeType"] == "image/jpeg")
        }
        #expect(host.receivedMessages.last?.payload.action == .journeyComplete)
    }

    // MARK: Seed 001: one picture (front and back together) or two pictures, with a retake

    @Test func seed001DualPictureJourneyWithRetake() throws {
        var sim = startedSimulator()
        var images: [String: (Int64, Int64)] = [:]
        for (id, side) in [("front-1", "front"), ("front-2", "front"), ("back-1", "back"), ("single-1", "single")] {
            sim.receive(Web.capture(id, side: side))
            sim.advance(by: 100)
            let r = try #require(WireCheck.drain(&sim).first)
            #expect(r.correlationId == id && r.status == .success)
            let d = try #require(r.payload.data)
            images[id] = (d["width"]?.numberValue?.int64 ?? 0, d["height"]?.numberValue?.int64 ?? 0)
            let png = [UInt8](Data(base64Encoded: d["imageData"]?.stringValue ?? "") ?? Data())
            #expect(ImageProbe.png(png)?.height == Int(images[id]!.1))
        }
        #expect(images["front-1"]! == (540, 380) && images["back-1"]! == (540, 380) && images["single-1"]! == (540, 760))
    }

    // MARK: Seed 003: advanced integration (pre-launch checks, NFC, lifecycle, delegate)

    /// Seed 003's JourneyCoordinator: watches journey events, answers unknown requests.
    final class Coordinator: BridgeHostDelegate {
        let state = Shared("loading")
        let seen = Shared<[String]>([])

        func bridgeHost(_ host: BridgeHost, didReceive message: Envelope) async {
            seen.update { $0.append(message.payload.action.rawValue) }
            switch message.payload.action {
            case .journeyStarted: state.update { $0 = "active" }
            case .journeyComplete:
                let status = message.payload.data?["status"]?.stringValue ?? "unknown"
                let ref = message.payload.data?["referenceId"]?.stringValue ?? "-"
                state.update { $0 = "completed \(status) \(ref)" }
            case .journeyError: state.update { $0 = "error \(message.payload.data?["message"]?.stringValue ?? "")" }
            default: break
            }
        }

        func bridgeHost(_ host: BridgeHost, unhandledRequest message: Envelope) async -> UnhandledRequestDisposition {
            host.respond(to: message.correlationId, status: .unsupported, error: ErrorPayload(
                code: .unsupportedAction, message: "Action '\(message.payload.action)' is not supported by this host",
                recoverable: false))
            return .answerUnsupported
        }
    }

    /// Seed 003's launcher: which required capabilities the device lacks.
    static func missingCapabilities(_ required: [String], in host: BridgeHost) -> [String] {
        let caps = host.capabilityAnswer["capabilities"]?.objectValue
        return required.filter { caps?[$0]?["supported"] != true }
    }

    static func advancedHost(nfcAvailable: Bool, nfcGuardFails: Bool = false) -> (HostHarness, Coordinator) {
        let coordinator = Coordinator()
        let h = HostHarness { clock, logger in BridgeHost(hostVersion: "1.0.0", clock: clock, logger: logger) }
        let host = h.host
        host.delegate = coordinator
        host.documentCapture.handler = { _ in .document(StubDocumentCamera().capture(side: "front")) }
        host.documentCapture.permissionState = .granted
        if nfcAvailable {
            host.registerCustomCapability("nfc.read", version: "1.0") { _, responder in
                if nfcGuardFails {
                    responder.respond(status: .unsupported, error: ErrorPayload(
                        code: .nfcNotAvailable, message: "NFC reading is not available on this device.", recoverable: false))
                    return
                }
                responder.respond(status: .success, data: Web.object(["chipRead": true, "dataGroups": ["DG1", "DG2"]]))
            }
        }
        return (h, coordinator)
    }

    @Test func seed003PassportJourneyWithNFCAndLifecycle() async throws {
        let (h, coordinator) = Self.advancedHost(nfcAvailable: true)
        let host = h.host
        #expect(Self.missingCapabilities(["camera.document", "nfc.read"], in: host).isEmpty)
        h.start()
        h.deliver(Web.event("e1", .journeyStarted))
        h.deliver(Web.request("q", .capabilityQuery))
        h.deliver(Web.capture("doc", side: "front"))
        h.deliver(Web.request("nfc", .nfcRead))
        h.deliver(Web.request("face", "biometric.face.match"))
        _ = await h.sentCount(5)
        try host.send(event: .hostBackground, data: JSONObject())
        try host.send(event: .hostForeground, data: JSONObject())
        h.deliver(Web.event("e2", .journeyComplete, data: Web.object(["status": "success", "referenceId": "REF-42"])))
        await h.until("journey complete") { coordinator.state.get() == "completed success REF-42" }
        try host.send(event: .journeyCancel, data: ["reason": "user_dismissed"])
        let out = await h.sentCount(8)
        await h.finish()

        let responses = Dictionary(uniqueKeysWithValues: out.filter { $0.type == .response }.map { ($0.correlationId, $0) })
        #expect(responses.count == 4)
        #expect(responses["q"]?.capability("nfc.read")?["supported"] == true)
        #expect(responses["doc"]?.status == .success)
        #expect(responses["nfc"]?.payload.data?["dataGroups"] == ["DG1", "DG2"])
        let face = try #require(responses["face"])
        #expect(face.status == .unsupported && face.payload.error?.message == "Action 'biometric.face.match' is not supported by this host")
        let events = out.filter { $0.type == .event }.map(\.payload.action)
        #expect(events == [.hostReady, .hostBackground, .hostForeground, .journeyCancel])
        #expect(out.filter { $0.type == .event }.allSatisfy { $0.correlationId.hasPrefix("ios-event-") })
        #expect(coordinator.seen.get() == ["journey.started", "capability.query", "camera.document.capture", "nfc.read",
                                           "biometric.face.match", "journey.complete"])
    }

    @Test func seed003PreLaunchCheckFlagsMissingNFC() async {
        let (h, _) = Self.advancedHost(nfcAvailable: false)
        #expect(Self.missingCapabilities(["camera.document", "nfc.read"], in: h.host) == ["nfc.read"])
        #expect(Self.missingCapabilities(["camera.document"], in: h.host).isEmpty)
        // "Continue Anyway": the journey asks for NFC and the coordinator answers unsupported.
        h.start()
        h.deliver(Web.request("nfc", .nfcRead))
        let out = await h.sentCount(2)
        #expect(out[1].status == .unsupported && out[1].errorCode == .unsupportedAction)
        await h.finish()
    }

    @Test func seed003NFCGuardAnswersNotAvailable() async {
        let (h, _) = Self.advancedHost(nfcAvailable: true, nfcGuardFails: true)
        h.start()
        h.deliver(Web.request("nfc", .nfcRead))
        let out = await h.sentCount(2)
        #expect(out[1].status == .unsupported && out[1].errorCode == .nfcNotAvailable && out[1].payload.error?.recoverable == false)
        await h.finish()
    }

    @Test func delegateCanKeepARequestPendingAndAnswerLater() async {
        final class Later: BridgeHostDelegate {
            func bridgeHost(_ host: BridgeHost, unhandledRequest message: Envelope) async -> UnhandledRequestDisposition {
                .keepPending
            }
        }
        let delegate = Later()
        let h = HostHarness { clock, logger in BridgeHost(hostVersion: "1.0.0", clock: clock, logger: logger) }
        h.host.delegate = delegate
        h.start()
        h.deliver(Web.request("x1", "custom.thing"))
        await h.until("pending") { h.host.pendingRequests.map(\.correlationId) == ["x1"] }
        #expect(!h.host.respond(to: "nope", status: .success))
        #expect(h.host.respond(to: "x1", status: .success, data: Web.object(["ok": true])))
        #expect(!h.host.respond(to: "x1", status: .success))
        let out = await h.sentCount(2)
        #expect(out[1].correlationId == "x1" && out[1].status == .success)
        await h.finish()
        #expect(h.host.pendingRequests.isEmpty)
    }

    // MARK: Seed 002: graceful degradation

    /// Seed 002's pattern 1, as the web journey would decide: web fallback for the document,
    /// skip NFC, and prompt instead of capturing when permission is denied.
    static func plan(_ query: Envelope) -> [String] {
        func supported(_ id: String) -> Bool { query.capability(id)?["supported"] == true }
        var steps: [String] = []
        if query.capability("camera.document")?["permissionState"] == "denied" {
            steps.append("prompt-settings")
        } else {
            steps.append(supported("camera.document") ? "document-native" : "document-web")
        }
        if supported("nfc.read") { steps.append("nfc") }
        steps.append(supported("camera.selfie") ? "selfie-native" : "selfie-web")
        return steps
    }

    static let degradations: [(String, String, [String])] = [
        ("full", #"{}"#, ["document-native", "nfc", "selfie-native"]),
        ("no NFC", #"{"capabilities":{"nfc.read":{"registered":false}}}"#, ["document-native", "selfie-native"]),
        ("no document camera", #"{"capabilities":{"camera.document":{"handler":false}}}"#, ["document-web", "nfc", "selfie-native"]),
        ("selfie disabled", #"{"capabilities":{"camera.selfie":{"enabled":false}}}"#, ["document-native", "nfc", "selfie-web"]),
        ("camera denied", #"{"capabilities":{"camera.document":{"permissionState":"denied"}}}"#, ["prompt-settings", "nfc", "selfie-native"]),
        ("web iframe", #"{"base":"empty","environment":"web"}"#, ["document-web", "selfie-web"]),
    ]

    @Test(arguments: degradations)
    func seed002GracefulDegradation(name: String, scenario: String, expected: [String]) throws {
        var sim = startedSimulator(try Scenario.parse(Array(scenario.utf8)))
        sim.receive(Web.request("q", .capabilityQuery))
        let query = try #require(WireCheck.drain(&sim).first)
        #expect(Self.plan(query) == expected, "\(name)")
        // Whatever the plan, asking anyway gets a clean answer, never silence.
        for (i, action) in [Action.documentCapture, .nfcRead, .selfieCapture].enumerated() {
            sim.receive(Web.request("r\(i)", action))
        }
        sim.runUntilIdle()
        let answers = WireCheck.drain(&sim)
        #expect(Set(answers.map(\.correlationId)) == ["r0", "r1", "r2"])
    }

    @Test func seed002DeniedCameraAnswersCameraDenied() throws {
        var sim = startedSimulator(try Scenario.parse(Array(#"{"capabilities":{"camera.document":{"permissionState":"denied"}}}"#.utf8)))
        sim.receive(Web.capture("d", side: "front"))
        sim.advance(by: 100)
        let r = try #require(WireCheck.drain(&sim).first)
        #expect(r.payload.error == ErrorPayload(code: .cameraDenied, message: "Camera permission was denied", recoverable: true))
    }

    @Test func seed002DynamicUpdatesShowOnReQuery() {
        var sim = startedSimulator()
        sim.machine.setSlotEnabled(.selfie, false)
        sim.machine.setSlotPermission(.document, .denied)
        sim.receive(Web.request("q", .capabilityQuery))
        let q = WireCheck.drain(&sim)[0]
        #expect(q.capability("camera.selfie")?["supported"] == false)
        #expect(q.capability("camera.document")?["permissionState"] == "denied")
    }
}
