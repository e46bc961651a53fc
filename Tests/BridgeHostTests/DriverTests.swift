import BridgeHost
import BridgeJSON
import BridgeProtocol
import Testing

/// The seed-like API of the ``BridgeHost`` driver, on a virtual clock.
struct DriverTests {
    func dynamicHost() -> HostHarness {
        HostHarness { clock, logger in BridgeHost(hostVersion: "1.0.0", clock: clock, logger: logger, eventIDSeed: 5) }
    }

    @Test func awaitCompletionAndCompleteDeliverTheCapture() async throws {
        let h = dynamicHost()
        let host = h.host
        host.documentCapture.handler = { [weak host] _ in
            guard let host else { return .cancelled(reason: "Host deallocated") }
            return await host.documentCapture.awaitCompletion()
        }
        host.documentCapture.permissionState = .granted
        #expect(host.documentCapture.isSupported)
        h.start()
        let ready = await h.sentCount(1)
        #expect(ready.first?.payload.action == .hostReady)
        h.deliver(Web.capture("d1", side: "front"))
        await h.until("active request") { host.documentCapture.activeRequest?.correlationId == "d1" }
        let picture = StubDocumentCamera().capture(side: "front")
        #expect(host.documentCapture.complete(.document(picture)))
        #expect(!host.documentCapture.complete(.cancelled(reason: "again")))
        let out = await h.sentCount(2)
        let r = try #require(out.last)
        #expect(r.correlationId == "d1" && r.status == .success)
        #expect(r.payload.data?["width"] == 540 && r.payload.data?["height"] == 380 && r.payload.data?["mimeType"] == "image/png")
        let b64 = try #require(r.payload.data?["imageData"]?.stringValue)
        #expect(Array(Data(base64Encoded: b64) ?? Data()) == picture.imageData)
        await h.until("slot released") { host.documentCapture.activeRequest == nil }
        await h.finish()
        #expect(h.logged("complete-ignored"))
    }

    @Test func completeBeforeAwaitIsKept() async {
        let h = dynamicHost()
        let host = h.host, clock = h.clock
        let deadline = clock.milliseconds + 50
        host.selfieCapture.handler = { _ in
            try? await clock.sleep(untilMilliseconds: deadline)
            return await host.selfieCapture.awaitCompletion()
        }
        h.start()
        h.deliver(Web.request("s1", .selfieCapture))
        await h.until { host.selfieCapture.activeRequest != nil }
        #expect(host.selfieCapture.complete(.cancelled(reason: "User dismissed")))
        clock.advance(by: 50)
        let out = await h.sentCount(2)
        #expect(out.last?.status == .cancelled && out.last?.payload.data?["reason"] == "User dismissed")
        await h.finish()
    }

    @Test func completeWithoutActiveRequestIsIgnored() async {
        let h = dynamicHost()
        #expect(!h.host.documentCapture.complete(.cancelled(reason: "nothing")))
        #expect(await h.host.documentCapture.awaitCompletion() == .cancelled(reason: "No camera.document request is active"))
        #expect(h.logged("complete-ignored"))
    }

    @Test func failedAndWrongKindResults() async {
        let h = dynamicHost()
        h.host.documentCapture.handler = { request in
            request.correlationId == "d1"
                ? .failed(code: .cameraDenied, message: "Camera permission was denied", recoverable: true)
                : .selfie(StubSelfieCamera().capture())
        }
        h.start()
        h.deliver(Web.capture("d1", side: "front"))
        await h.sentCount(2)
        h.deliver(Web.capture("d2", side: "front"))
        let out = await h.sentCount(3)
        #expect(out[1].payload.error == ErrorPayload(code: .cameraDenied, message: "Camera permission was denied", recoverable: true))
        #expect(out[2].errorCode == .captureFailed)
        await h.finish()
        #expect(h.logged("wrong-result-kind"))
    }

    @Test func selfieResultEncodesEveryField() async throws {
        let h = dynamicHost()
        let selfie = StubSelfieCamera().capture()
        h.host.selfieCapture.handler = { _ in .selfie(selfie) }
        h.start()
        h.deliver(Web.request("s1", .selfieCapture))
        let r = try #require(await h.sentCount(2).last)
        let d = try #require(r.payload.data)
        #expect(d.keys == ["previewImageData", "width", "height", "mimeType", "encryptedBlob", "unencryptedBlob"])
        #expect(d["width"] == 480 && d["height"] == 640 && d["mimeType"] == "image/jpeg")
        #expect(d["encryptedBlob"] != d["previewImageData"] && d["unencryptedBlob"] != d["previewImageData"])
        await h.finish()
    }

    @Test func responderAnswersOnceAndRefusesTheRest() async {
        let h = dynamicHost()
        let results = Shared<[Bool]>([])
        h.host.registerCustomCapability("nfc.read", version: "1.0") { _, responder in
            let a = responder.respond(status: .acknowledged)
            let b = responder.respond(status: .success, data: Web.object(["chipRead": true]))
            let c = responder.respond(status: .error, error: ErrorPayload(code: .nfcError, message: "late", recoverable: true))
            results.update { $0 = [a, b, c, responder.hasResponded] }
        }
        h.start()
        h.deliver(Web.request("n1", .nfcRead))
        await h.until { results.get().count == 4 }
        await h.finish()
        #expect(results.get() == [true, true, false, true])
        #expect(h.sent.get().filter { $0.correlationId == "n1" }.map(\.status) == [.acknowledged, .success])
        #expect(h.logged("response-refused"))
    }

    @Test func aDroppedResponderIsAnsweredInternalError() async {
        let h = dynamicHost()
        h.host.registerCustomCapability("nfc.read", version: "1.0") { _, _ in }
        h.start()
        h.deliver(Web.request("n1", .nfcRead))
        let out = await h.sentCount(2)
        #expect(out.last?.errorCode == .internalError && out.last?.correlationId == "n1")
        await h.finish()
        #expect(h.logged("responder-dropped"))
    }

    @Test func configurationHostUsesItsStaticCapabilitiesAndHandlers() async {
        struct NFCReadHandler: BridgeCapabilityHandler {
            let action = "nfc.read"
            func handle(request: Envelope, responder: BridgeResponder) async {
                responder.respond(status: .success, data: Web.object(["mrz": "P<UTO", "photo": "AAAA"]))
            }
        }
        let config = BridgeConfiguration(hostVersion: "2.1.0", capabilities: [
            "camera.document": BridgeCapabilityInfo(supported: true, version: "1.0",
                                                    constraints: Web.object(["formats": ["jpeg", "png"]]), permissionState: .granted),
            "nfc.read": BridgeCapabilityInfo(supported: true, version: "1.0"),
        ])
        let h = HostHarness { clock, logger in BridgeHost(configuration: config, clock: clock, logger: logger) }
        h.host.register(handler: NFCReadHandler())
        h.start()
        h.deliver(Web.request("q", .capabilityQuery))
        h.deliver(Web.request("n1", .nfcRead))
        var out = await h.sentCount(3)
        #expect(out[1].payload.data?["hostVersion"] == "2.1.0")
        #expect(out[1].capability("camera.document")?["constraints"]?["formats"] == ["jpeg", "png"])
        #expect(out[2].payload.data?["mrz"] == "P<UTO")
        h.host.unregister(action: "nfc.read")
        h.deliver(Web.request("n2", .nfcRead))
        out = await h.sentCount(4)
        #expect(out[3].status == .unsupported && out[3].errorCode == .unsupportedAction)
        await h.finish()
    }

    @Test func eventsCarryEnvironmentIDs() async throws {
        let h = HostHarness { clock, logger in
            BridgeHost(hostVersion: "1.0.0", environment: .android, clock: clock, logger: logger)
        }
        let e = try h.host.send(event: .journeyCancel, data: ["reason": "user_dismissed"])
        #expect(e.correlationId.hasPrefix("android-event-"))
        #expect(throws: HostError.self) { try h.host.send(event: "bad action!", data: nil) }
        h.start()
        let out = await h.sentCount(2)
        #expect(out.map(\.payload.action) == [.journeyCancel, .hostReady])
        await h.finish()
    }

    @Test func runEndsOnlyWhenPendingWorkIsDone() async {
        let h = HostHarness { clock, logger in Scenario.default.makeHost(clock: clock, logger: logger, eventIDSeed: 1) }
        h.start()
        h.deliver(Web.request("n1", .nfcRead))
        h.transport.close()
        await h.until { h.host.pendingRequests.count == 1 }
        for _ in 0..<50 { await Task.yield() }
        #expect(!h.done.get())
        h.clock.advance(by: 100)
        await h.finish()
        #expect(h.done.get())
        #expect(h.sent.get().map(\.correlationId).last == "n1")
    }

    @Test func runningTwiceIsRefused() async {
        let h = dynamicHost()
        h.start()
        await h.sentCount(1)
        await h.host.run(transport: MemoryTransport())
        await h.finish()
        #expect(h.logs.get().contains { $0.1 == "misuse" })
    }

    @Test func slotPropertiesFeedTheCapabilityQuery() {
        let host = BridgeHost(hostVersion: "3.0.0", clock: VirtualClock())
        host.selfieCapture.handler = { _ in .cancelled(reason: "x") }
        host.selfieCapture.permissionState = .restricted
        host.selfieCapture.version = "1.1"
        host.registerCustomCapability("nfc.read", version: "1.0") { _, r in r.respond(status: .success) }
        var caps = host.capabilityAnswer["capabilities"]!.objectValue!
        #expect(caps.keys == ["camera.selfie", "nfc.read"])
        #expect(caps["camera.selfie"]?.objectValue == Web.object(["supported": true, "version": "1.1", "permissionState": "restricted"]))
        host.selfieCapture.isEnabled = false
        #expect(!host.selfieCapture.isSupported && host.selfieCapture.hasHandler)
        host.selfieCapture.handler = nil
        host.unregisterCustomCapability("nfc.read")
        caps = host.capabilityAnswer["capabilities"]!.objectValue!
        #expect(caps.isEmpty)
        #expect(host.customCapabilityIDs.isEmpty)
    }
}

import Foundation
import BridgeClock
