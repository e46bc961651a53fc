import BridgeTestSupport
import BridgeHost
import BridgeProtocol
import Foundation
import Testing

/// The real `bridgescope host --stdio` binary, end to end (built by `swift build`, as
/// `make test` does before testing).
struct StdioEndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/bridgescope")

    struct Run {
        var status: Int32
        var stdout: [[UInt8]]
        var stderr: String
    }

    func run(_ arguments: [String], input: [[UInt8]]) throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path),
                     "build the CLI first (swift build): \(Self.binary.path) is missing")
        let p = Process()
        p.executableURL = Self.binary
        p.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        let errURL = TestScratch.rootURL.appendingPathComponent("bridgescope-host-\(UUID()).err")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer { try? FileManager.default.removeItem(at: errURL) }
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = errHandle
        try p.run()
        for line in input { stdin.fileHandleForWriting.write(Data(line + [0x0A])) }
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try errHandle.close()
        let lines = [UInt8](out).split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init)
        return Run(status: p.terminationStatus, stdout: lines, stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    @Test func passportJourneyOverStdio() throws {
        let input: [[UInt8]] = [
            Web.request("q", .capabilityQuery),
            Web.capture("doc-front", side: "front"),
            Web.request("nfc", .nfcRead),
            Web.request("selfie", .selfieCapture),
            Array("not json at all".utf8),
            Array(#"{"type":"request","correlationId":"broken","payload":{"action":"nfc.read"}}"#.utf8),
            Web.event("j1", .journeyComplete, data: Web.object(["status": "success"])),
        ]
        let r = try run(["host", "--stdio", "--seed", "1"], input: input)
        #expect(r.status == 0, "\(r.stderr)")
        let out = r.stdout.compactMap { WireCheck.hostToWeb($0) }
        #expect(out.count == 6)
        #expect(out.first?.payload.action == .hostReady && out.first?.correlationId.hasPrefix("ios-event-") == true)
        let byID = Dictionary(uniqueKeysWithValues: out.dropFirst().map { ($0.correlationId, $0) })
        #expect(Set(byID.keys) == ["q", "doc-front", "nfc", "selfie", "broken"])
        #expect(byID["doc-front"]?.payload.data?["mimeType"] == "image/png")
        #expect(byID["selfie"]?.payload.data?["mimeType"] == "image/jpeg")
        #expect(byID["nfc"]?.payload.data == Web.object(["chipRead": true, "dataGroups": ["DG1", "DG2"]]))
        #expect(byID["broken"]?.errorCode == .invalidRequest)
        #expect(r.stderr.contains("invalid-input"))

        // The same output passes `bridgescope validate` with no finding at all.
        let file = TestScratch.rootURL.appendingPathComponent("host-output-\(UUID()).jsonl")
        try Data(r.stdout.flatMap { $0 + [0x0A] }).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let v = try run(["validate", file.path], input: [])
        #expect(v.status == 0, "\(v.stderr)")
        #expect(v.stdout.isEmpty, "findings: \(v.stdout.map { String(decoding: $0, as: UTF8.self) })")
        #expect(v.stderr.contains("6 message(s), 0 finding(s)"), "\(v.stderr)")
    }

    @Test func scenarioFileScriptsTheHost() throws {
        let scenario = Self.root.appendingPathComponent("tools/scenarios/nfc-unavailable.json").path
        let r = try run(["host", "--stdio", "--scenario", scenario], input: [Web.request("nfc", .nfcRead)])
        #expect(r.status == 0)
        let out = r.stdout.compactMap { WireCheck.hostToWeb($0) }
        #expect(out.last?.errorCode == .nfcNotAvailable)
    }

    @Test func usageErrorsExitTwo() throws {
        let bad = TestScratch.rootURL.appendingPathComponent("bad-scenario-\(UUID()).json")
        try Data(#"{"capabilities":{"nfc.read":{"latencyMs":"slow"}}}"#.utf8).write(to: bad)
        defer { try? FileManager.default.removeItem(at: bad) }
        let r = try run(["host", "--stdio", "--scenario", bad.path], input: [])
        #expect(r.status == 2)
        #expect(r.stderr.contains("capabilities.nfc.read.latencyMs"))
        #expect(r.stdout.isEmpty)
        let twoTransports = try run(["host", "--stdio", "--listen", "127.0.0.1:0"], input: [])
        #expect(twoTransports.status == 2 && twoTransports.stderr.contains("--stdio or --listen"))
        let badListen = try run(["host", "--listen", "nowhere"], input: [])
        #expect(badListen.status == 2 && badListen.stderr.contains("HOST:PORT"))
    }

    @Test func emptyInputStillSendsHostReadyAndExits() throws {
        let r = try run(["host", "--stdio"], input: [])
        #expect(r.status == 0)
        #expect(r.stdout.compactMap { WireCheck.hostToWeb($0) }.map(\.payload.action) == [.hostReady])
    }
}
