import BridgeHost
import BridgeJSON
import BridgeProtocol
import Foundation
import Testing
import BridgeClock

/// Scenario files: the format of docs/SCENARIOS.md, its errors, and the hosts they script.
struct ScenarioTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/scenarios")

    static let sampleFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    func parse(_ text: String) throws(HostError) -> Scenario { try Scenario.parse(Array(text.utf8)) }

    @Test func samplesArePresent() {
        #expect(Self.sampleFiles.count >= 10)
    }

    @Test(arguments: sampleFiles)
    func sampleScenariosLoadAndServeACleanJourney(_ name: String) throws {
        let scenario = try Scenario.load(path: Self.folder.appendingPathComponent(name).path)
        #expect(scenario.name == String(name.dropLast(5)))
        var sim = HostSimulator(machine: scenario.makeMachine(eventIDSeed: 1))
        sim.start()
        for (i, action) in [Action.capabilityQuery, .documentCapture, .selfieCapture, .nfcRead, .documentCapture].enumerated() {
            sim.receive(Web.request("r\(i)", action))
            sim.runUntilIdle()
        }
        let out = WireCheck.drain(&sim)
        #expect(out.filter { $0.type == .response }.map(\.correlationId) == ["r0", "r1", "r2", "r3", "r4"])
        #expect(sim.machine.pendingCount == 0)
    }

    @Test func defaultFileEqualsTheBuiltInDefault() throws {
        var fromFile = try Scenario.load(path: Self.folder.appendingPathComponent("default.json").path)
        fromFile.name = nil
        fromFile.description = nil
        #expect(fromFile == Scenario.default)
    }

    @Test func theDefaultHostMatchesTheCLIContract() throws {
        var sim = startedSimulator()
        sim.receive(Web.request("q", .capabilityQuery))
        let q = try #require(WireCheck.drain(&sim).first)
        #expect(q.payload.data?["hostVersion"] == "1.0.0" && q.payload.data?["environment"] == "ios")
        for id in ["camera.document", "camera.selfie"] {
            #expect(q.capability(id) == Web.object(["supported": true, "version": "1.0", "permissionState": "granted"]))
        }
        #expect(q.capability("nfc.read") == Web.object(["supported": true, "version": "1.0"]))
        sim.receive(Web.request("n", .nfcRead))
        sim.receive(Web.capture("d", side: "front"))
        sim.receive(Web.request("s", .selfieCapture))
        sim.advance(by: 99)
        #expect(WireCheck.drain(&sim).isEmpty)
        sim.advance(by: 1)
        let out = WireCheck.drain(&sim)
        #expect(out.map(\.correlationId) == ["n", "d", "s"] && out.allSatisfy { $0.status == .success })
        #expect(out[0].payload.data == Web.object(["chipRead": true, "dataGroups": ["DG1", "DG2"]]))
        #expect(out.allSatisfy { $0.timestamp == VirtualClock.defaultStart + 100 })
    }

    @Test func outcomesRepeatTheirLastEntry() throws {
        let s = try parse(#"{"capabilities":{"camera.document":{"latencyMs":0,"outcome":["failed","cancelled","success"]}}}"#)
        var sim = startedSimulator(s)
        var statuses: [Status?] = []
        for i in 0..<5 {
            sim.receive(Web.capture("d\(i)", side: "front"))
            sim.advance(by: 0)
            statuses.append(WireCheck.drain(&sim).first?.status)
        }
        #expect(statuses == [.error, .cancelled, .success, .success, .success])
    }

    @Test func failuresUseTheirErrorOrTheDefault() throws {
        let s = try parse(#"""
            {"capabilities":{
              "camera.selfie":{"outcome":"failed","error":{"code":"CAPTURE_FAILED","message":"Face not found","recoverable":false}},
              "nfc.read":{"outcome":"failed"},
              "document.verify":{"outcome":"denied","version":"2.0"}}}
            """#)
        var sim = startedSimulator(s)
        sim.receive(Web.request("s", .selfieCapture))
        sim.receive(Web.request("n", .nfcRead))
        sim.receive(Web.request("v", "document.verify"))
        sim.advance(by: 100)
        let out = WireCheck.drain(&sim)
        #expect(out[0].payload.error == ErrorPayload(code: .captureFailed, message: "Face not found", recoverable: false))
        #expect(out[1].payload.error == ErrorPayload(code: .nfcError, message: "Reading the chip failed", recoverable: true))
        #expect(out[2].errorCode == .permissionDenied)
        #expect(s.custom.map(\.id) == ["nfc.read", "document.verify"])
    }

    @Test func nfcUnavailableAnswersNotAvailable() throws {
        var sim = startedSimulator(try Scenario.load(path: Self.folder.appendingPathComponent("nfc-unavailable.json").path))
        sim.receive(Web.request("n", .nfcRead))
        let r = try #require(WireCheck.drain(&sim).first)
        #expect(r.status == .unsupported && r.errorCode == .nfcNotAvailable && r.payload.error?.recoverable == false)
    }

    @Test func emptyBaseAndEnvironment() throws {
        let s = try parse(#"{"base":"empty","environment":"android","hostVersion":"9.9","hostReady":false}"#)
        var sim = HostSimulator(machine: s.makeMachine(eventIDSeed: 1))
        sim.start()
        #expect(WireCheck.drain(&sim).isEmpty)
        sim.receive(Web.request("q", .capabilityQuery))
        let q = try #require(WireCheck.drain(&sim).first)
        #expect(q.payload.data?["capabilities"] == .object(JSONObject()))
        #expect(q.payload.data?["environment"] == "android" && q.payload.data?["hostVersion"] == "9.9")
    }

    @Test func permissionAndOutcomeDefaultEachOther() throws {
        let a = try parse(#"{"capabilities":{"camera.document":{"permissionState":"denied"}}}"#)
        #expect(a.document.outcomes == [.denied])
        let b = try parse(#"{"capabilities":{"camera.document":{"outcome":"denied"}}}"#)
        #expect(b.document.permissionState == .denied)
        let c = try parse(#"{"capabilities":{"camera.document":{"permissionState":null}}}"#)
        #expect(c.document.permissionState == nil)
    }

    static let badScenarios: [(String, String, String)] = [
        ("not json", "{", "(root)"),
        ("[]", "[]", "(root)"),
        ("unknown top-level key", #"{"hostVersio":"1"}"#, "hostVersio"),
        ("duplicate key", #"{"hostVersion":"1","hostVersion":"2"}"#, "hostVersion"),
        ("bad base", #"{"base":"full"}"#, "base"),
        ("bad environment", #"{"environment":"windows"}"#, "environment"),
        ("empty host version", #"{"hostVersion":""}"#, "hostVersion"),
        ("hostReady type", #"{"hostReady":"yes"}"#, "hostReady"),
        ("selfieBlobs", #"{"selfieBlobs":"same"}"#, "selfieBlobs"),
        ("capabilities type", #"{"capabilities":[]}"#, "capabilities"),
        ("bad capability id", #"{"capabilities":{"nfc read":{}}}"#, "capabilities.nfc read"),
        ("slot key typo", #"{"capabilities":{"camera.document":{"latency":5}}}"#, "capabilities.camera.document.latency"),
        ("custom-only key on a slot", #"{"capabilities":{"camera.selfie":{"available":false}}}"#, "capabilities.camera.selfie.available"),
        ("negative latency", #"{"capabilities":{"nfc.read":{"latencyMs":-1}}}"#, "capabilities.nfc.read.latencyMs"),
        ("fractional latency", #"{"capabilities":{"nfc.read":{"latencyMs":1.5}}}"#, "capabilities.nfc.read.latencyMs"),
        ("huge latency", #"{"capabilities":{"nfc.read":{"latencyMs":99999999}}}"#, "capabilities.nfc.read.latencyMs"),
        ("bad outcome", #"{"capabilities":{"nfc.read":{"outcome":"timeout"}}}"#, "capabilities.nfc.read.outcome"),
        ("empty outcome list", #"{"capabilities":{"nfc.read":{"outcome":[]}}}"#, "capabilities.nfc.read.outcome"),
        ("bad permission", #"{"capabilities":{"camera.document":{"permissionState":"allowed"}}}"#, "capabilities.camera.document.permissionState"),
        ("unknown error code", #"{"capabilities":{"nfc.read":{"error":{"code":"CHIP_MELTED"}}}}"#, "capabilities.nfc.read.error.code"),
        ("error without code", #"{"capabilities":{"nfc.read":{"error":{"message":"x"}}}}"#, "capabilities.nfc.read.error"),
        ("data type", #"{"capabilities":{"nfc.read":{"data":[1]}}}"#, "capabilities.nfc.read.data"),
        ("events type", #"{"events":{}}"#, "events"),
        ("event without action", #"{"events":[{"atMs":1}]}"#, "events[0]"),
        ("event bad action", #"{"events":[{"atMs":1,"action":"host ready"}]}"#, "events[0].action"),
        ("event key typo", #"{"events":[{"at":1,"action":"host.ready"}]}"#, "events[0].at"),
    ]

    @Test(arguments: badScenarios)
    func errorsNameTheField(name: String, text: String, path: String) {
        do {
            _ = try parse(text)
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code == .invalidScenario, "\(name)")
            #expect(error.path == path || (path == "(root)" && error.path == nil), "\(name): \(error)")
            #expect(error.offset != nil, "\(name): \(error)")
        }
    }

    @Test func errorsGiveLineAndColumn() {
        let text = "{\n  \"capabilities\": {\n    \"nfc.read\": { \"latencyMs\": \"fast\" }\n  }\n}"
        #expect(throws: HostError.self) { try parse(text) }
        do { _ = try parse(text) } catch {
            #expect(error.description.contains("line 3, column 32"), "\(error)")
            #expect(error.description.contains("capabilities.nfc.read.latencyMs"))
        }
    }

    @Test func oversizedAndMissingFiles() {
        #expect(throws: HostError.self) { try Scenario.parse([UInt8](repeating: 0x20, count: Scenario.maxFileBytes + 1)) }
        do { _ = try Scenario.load(path: "/nonexistent/scenario.json") } catch {
            #expect(error.code == .unreadableScenario)
        }
    }
}
