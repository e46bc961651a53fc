import BridgeTestSupport
import BridgeTransport
import BridgeHost
import BridgeJSON
import BridgeProtocol
import BridgeServer
import Foundation
import Logging
import Testing

@Suite(.serialized)
struct HostOverWebSocketTests {
    func quietLogger() -> Logger {
        var l = Logger(label: "t")
        l.logLevel = .critical
        return l
    }

    @Test func eachConnectionGetsItsOwnHostAndTheTranscriptRecordsBothSides() async throws {
        let transcript = TestScratch.rootURL.appendingPathComponent("transcript-\(getpid()).jsonl").path
        let runner = try HostServerRunner(
            options: .init(server: WebSocketServerConfiguration(port: 0, idleTimeout: 900), exitOnJourneyEnd: true, transcriptPath: transcript, seed: 7),
            logger: quietLogger())
        let portBox = PortBox()
        async let outcome = runner.run { listening in portBox.set(Int(listening.webSocketURL.split(separator: ":").last!.split(separator: "/").first!)!) }
        let port = await portBox.wait()
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(port)/bridge"))
        let query = #"{"version":"1.0","correlationId":"q1","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#
        for _ in 0..<2 {
            let got = try await WebSocketClient.withConnection(to: url) { session in
                try await session.send(query)
                var seen: [String] = []
                for await m in session.messages {
                    let e = EnvelopeDecoder().decode(m, direction: .hostToWeb)
                    #expect(e.findings.isEmpty)
                    seen.append(e.envelope?.payload.action.rawValue ?? "?")
                    if seen.count == 2 { break }
                }
                return seen
            }
            #expect(got == ["host.ready", "capability.query"])
        }
        try await WebSocketClient.withConnection(to: url) { session in
            try await session.send(#"{"version":"1.0","correlationId":"e1","type":"event","timestamp":1700000000000,"payload":{"action":"journey.error","data":{"message":"boom"}}}"#)
            for await _ in session.messages {}
        }
        let end = try await outcome
        #expect(end?.completed == false)
        #expect(end?.detail == #"{"message":"boom"}"#)
        let lines = try String(contentsOfFile: transcript, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 7)  // 2 x (query, host.ready, answer) + journey.error (+ host.ready if sent before shutdown)
        for line in lines {
            let v = try JSONParser().parse(String(line)).value
            #expect(v["dir"] == "w2h" || v["dir"] == "h2w")
            #expect(v["msg"]?.objectValue != nil)
        }
    }

    /// `--exit-on-journey-end` used to wait for every request in progress: a capture that
    /// takes an hour kept the run alive after the journey had ended.
    @Test func journeyEndStopsTheRunWhileARequestIsPending() async throws {
        var scenario = Scenario.default
        scenario.document.latencyMs = 3_600_000
        let runner = try HostServerRunner(options: .init(server: WebSocketServerConfiguration(port: 0, idleTimeout: 900), scenario: scenario,
                                                         exitOnJourneyEnd: true, seed: 1),
                                          logger: quietLogger())
        let portBox = PortBox()
        async let outcome = runner.run { listening in portBox.set(Int(listening.webSocketURL.split(separator: ":").last!.split(separator: "/").first!)!) }
        let port = await portBox.wait()
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(port)/bridge"))
        try await WebSocketClient.withConnection(to: url) { session in
            try await session.send(#"{"version":"1.0","correlationId":"d1","type":"request","timestamp":1700000000000,"payload":{"action":"camera.document.capture","data":{"side":"front"}}}"#)
            try await session.send(#"{"version":"1.0","correlationId":"e1","type":"event","timestamp":1700000000000,"payload":{"action":"journey.complete"}}"#)
            for await _ in session.messages {}
        }
        let end = try await outcome
        #expect(end?.completed == true)
    }

    /// A scripted capture is answered by a timer on the event loop, after the scenario's
    /// latency, with the stub picture; the query answer is the encoder's, byte for byte.
    @Test func scriptedCaptureIsAnsweredByATimer() async throws {
        var scenario = Scenario.default
        scenario.document.latencyMs = 20
        let runner = try HostServerRunner(options: .init(server: WebSocketServerConfiguration(port: 0, idleTimeout: 900), scenario: scenario, seed: 3),
                                          logger: quietLogger())
        let portBox = PortBox()
        let run = Task { try await runner.run { listening in portBox.set(Int(listening.webSocketURL.split(separator: ":").last!.split(separator: "/").first!)!) } }
        let port = await portBox.wait()
        let url = try #require(WebSocketURL("ws://127.0.0.1:\(port)/bridge"))
        let got = try await WebSocketClient.withConnection(to: url) { session in
            try await session.send(#"{"version":"1.0","correlationId":"d1","type":"request","timestamp":1700000000000,"payload":{"action":"camera.document.capture","data":{"side":"back"}}}"#)
            try await session.send(#"{"version":"1.0","correlationId":"q1","type":"request","timestamp":1700000000000,"payload":{"action":"capability.query"}}"#)
            var seen: [Envelope] = []
            for await m in session.messages {
                let r = EnvelopeDecoder().decode(m, direction: .hostToWeb)
                #expect(r.findings.isEmpty)
                #expect(r.envelope.flatMap { try? EnvelopeEncoder().encode($0, direction: .hostToWeb) } == m)
                if let e = r.envelope { seen.append(e) }
                if seen.count == 3 { break }
            }
            return seen
        }
        #expect(got.map(\.payload.action.rawValue) == ["host.ready", "capability.query", "camera.document.capture"])
        #expect(got.last?.payload.status == .success)
        #expect(got.last?.payload.data?["width"]?.numberValue?.int64 == 540)
        await runner.shutdown()
        _ = try await run.value
    }
}

/// Hands the bound port from the listening callback to the test.
final class PortBox: @unchecked Sendable {
    private let lock = NSLock()
    private var port: Int?
    func set(_ p: Int) { lock.withLock { port = p } }
    func wait() async -> Int {
        while true {
            if let p = lock.withLock({ port }) { return p }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}
