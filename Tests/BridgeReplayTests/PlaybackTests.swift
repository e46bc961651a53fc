import BridgeArchive
import BridgeTransport
import BridgeJSON
import BridgeProtocol
@testable import BridgeReplay
import BridgeServer
import Foundation
import Testing

/// Playing a recording back as the host: matching, latency and event pacing, rewriting,
/// and the server over a real WebSocket.
struct PlaybackTests {
    static let ms: Int64 = 1_000_000

    /// Recorded: host.ready at 0; q answered after 5 ms; two front captures and a back
    /// one, each answered after 100 ms with a marker `n`; an event after the 2nd answer.
    static var script: PlaybackScript {
        let t0: Int64 = 0, ms = Self.ms
        var m: [RecordedMessage] = []
        func add(_ t: Int64, _ d: ArchiveDirection, _ s: String) { m.append(RecordedMessage(time: t0 + t * ms, direction: d, bytes: Array(s.utf8))) }
        add(0, .hostToWeb, Env.event("ios-event-1", "host.ready"))
        add(1, .webToHost, Env.request("q", "capability.query"))
        add(6, .hostToWeb, Env.response("q", "capability.query", data: "{\"environment\":\"ios\"}"))
        add(10, .webToHost, Env.request("f1", "camera.document.capture", data: "{\"side\":\"front\"}"))
        add(110, .hostToWeb, Env.response("f1", "camera.document.capture", data: "{\"n\":1}"))
        add(115, .hostToWeb, Env.event("ios-event-2", "host.background"))
        add(120, .webToHost, Env.request("b1", "camera.document.capture", data: "{\"side\":\"back\"}"))
        add(220, .hostToWeb, Env.response("b1", "camera.document.capture", data: "{\"n\":2}"))
        add(230, .webToHost, Env.request("f2", "camera.document.capture", data: "{\"side\":\"front\"}"))
        add(330, .hostToWeb, Env.response("f2", "camera.document.capture", data: "{\"n\":3}"))
        add(340, .webToHost, Env.event("w", "journey.complete"))
        return PlaybackScript(connection: RecordedConnection(id: "rec", startTime: t0, messages: m))
    }

    func field(_ bytes: [UInt8], _ path: String...) -> JSONValue? {
        var v = try? JSONParser().value(bytes)
        for p in path { v = v?[p] }
        return v
    }

    func live(_ cid: String, _ action: String, data: String? = nil) -> [UInt8] { Array(Env.request(cid, action, data: data).utf8) }

    @Test func theScriptHoldsEachRequestWithItsAnswersAndTheEvents() {
        let s = Self.script
        #expect(s.requests.map(\.action) == ["capability.query", "camera.document.capture", "camera.document.capture", "camera.document.capture"])
        #expect(s.requests.map(\.data) == ["", #"{"side":"front"}"#, #"{"side":"back"}"#, #"{"side":"front"}"#])
        #expect(s.requests[1].responses.map(\.delay) == [100 * Self.ms])
        #expect(s.events.map(\.afterResponses) == [0, 2])
    }

    @Test func equalRequestsGetTheRecordedAnswersInOrderThenByActionThenUnsupported() {
        var p = PlaybackConnection(script: Self.script, pacing: .asap, connection: "c1")
        let now: Int64 = 1_795_000_000_000 * Self.ms
        _ = p.start(now: now)
        let a = p.receive(live("L1", "camera.document.capture", data: #"{"side":"front"}"#), now: now)
        let b = p.receive(live("L2", "camera.document.capture", data: #"{"side":"front"}"#), now: now)
        let c = p.receive(live("L3", "camera.document.capture", data: #"{"side":"back"}"#), now: now)
        #expect(field(a.first!.bytes, "payload", "data", "n") == 1)
        #expect(field(b.first!.bytes, "payload", "data", "n") == 3, "the second equal request gets the second equal answer")
        #expect(field(c.first!.bytes, "payload", "data", "n") == 2)
        #expect(p.matchedByActionOnly == 0)
        // The query's data differs from nothing: exact. A fourth capture has no recorded answer left.
        let d = p.receive(live("L4", "camera.document.capture", data: #"{"side":"front"}"#), now: now)
        #expect(field(d[0].bytes, "payload", "status") == "unsupported")
        #expect(field(d[0].bytes, "payload", "error", "code") == "UNSUPPORTED_ACTION")
        #expect(field(d[0].bytes, "correlationId") == "L4")
        #expect(EnvelopeDecoder().decode(d[0].bytes, direction: .hostToWeb).findings.isEmpty)
        #expect(p.unmatched.map(\.correlationId) == ["L4"])
        #expect(p.answered == 3 && p.unused == 1)
        // Different data, same action: matched by action.
        let q = p.receive(live("L5", "capability.query", data: #"{"extra":true}"#), now: now)
        #expect(field(q[0].bytes, "payload", "status") == "success")
        #expect(p.matchedByActionOnly == 1)
        // Web events need no answer.
        #expect(p.receive(Array(Env.event("e", "journey.progress").utf8), now: now).isEmpty)
        #expect(p.receive(Array("garbage".utf8), now: now).isEmpty)
    }

    @Test func answersCarryTheLiveIdAndAFreshTimestamp() {
        var p = PlaybackConnection(script: Self.script, pacing: .asap, connection: "c1")
        let now: Int64 = 1_795_000_000_123 * Self.ms
        let out = p.receive(live("live-q", "capability.query"), now: now)
        #expect(field(out[0].bytes, "correlationId") == "live-q")
        #expect(field(out[0].bytes, "timestamp") == .integer(1_795_000_000_123))
        #expect(field(out[0].bytes, "payload", "data", "environment") == "ios")
        #expect(EnvelopeDecoder().decode(out[0].bytes, direction: .hostToWeb).findings.isEmpty)
    }

    @Test func pacingSetsWhenAnswersAndEventsGo() {
        let now: Int64 = 5_000 * Self.ms, ms = Self.ms
        for (pace, delay) in [(ReplayPacing.asap, Int64(0)), (.recorded, 100 * ms), (.speed(2), 50 * ms)] {
            var p = PlaybackConnection(script: Self.script, pacing: pace, connection: "c1")
            let events = p.start(now: now)
            let out = p.receive(live("L1", "camera.document.capture", data: #"{"side":"front"}"#), now: now)
            #expect(out.first?.at == now + delay, "\(pace)")
            if pace.isASAP {
                // host.ready at once; host.background right after the answer it followed.
                #expect(events.map(\.at) == [now])
                #expect(out.count == 1, "the background event waits for the second answer")
                let next = p.receive(live("L2", "camera.document.capture", data: #"{"side":"back"}"#), now: now + ms)
                #expect(next.count == 2 && field(next[1].bytes, "payload", "action") == "host.background")
            } else {
                #expect(events.map(\.at) == [now, now + pace.scale(115 * ms)])
            }
        }
    }

    @Test func theServerPlaysTheRecordingToALiveClient() async throws {
        let transcript = temporaryDirectory() + "/t.jsonl"
        let server = try PlaybackServer(
            session: passportSession(),
            options: .init(server: WebSocketServerConfiguration(port: 0), pacing: .asap, exitOnJourneyEnd: true, transcriptPath: transcript),
            logger: quiet)
        let box = URLBox()
        async let served = server.run { box.set($0.webSocketURL) }
        let url = try #require(WebSocketURL(await box.wait()))
        let seen = try await WebSocketClient.withConnection(to: url) { session in
            var got: [[UInt8]] = []
            var it = session.messages.makeAsyncIterator()
            got.append(await it.next()!)  // host.ready, sent at open
            try await session.send(Env.request("live-1", "capability.query"))
            got.append(await it.next()!)
            try await session.send(Env.request("live-2", "payment.charge"))
            got.append(await it.next()!)
            try await session.send(Env.event("w", "journey.complete", data: "{\"status\":\"success\"}"))
            return got
        }
        let report = try await served
        #expect(field(seen[0], "payload", "action") == "host.ready")
        #expect(field(seen[1], "correlationId") == "live-1" && field(seen[1], "payload", "status") == "success")
        #expect(field(seen[1], "payload", "data", "capabilities", "nfc.read", "supported") == true)
        #expect(field(seen[2], "correlationId") == "live-2" && field(seen[2], "payload", "status") == "unsupported")
        #expect(report.connections == 1 && report.answered == 1)
        #expect(report.unmatched.map(\.action) == ["payment.charge"])
        #expect(report.unused == 3)
        #expect(report.outcome?.completed == true)
        #expect(report.exitStatus == 1, "an unmatched request fails the playback")
        #expect(report.renderText().contains("unmatched requests (answered unsupported / UNSUPPORTED_ACTION):\n  conn c1: payment.charge (live-2)"))
        let lines = try String(contentsOfFile: transcript, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.first?.contains("\"dir\":\"h2w\"") == true, "host.ready is the first message of the transcript")
    }

    @Test func aConnectionThatIsNotInTheArchiveIsAUsageError() {
        do {
            _ = try PlaybackServer(session: passportSession(), options: .init(server: .init(port: 0), connection: "zz"), logger: quiet)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .usage && error.message.contains("has no connection \"zz\" (it has: c1)"))
        }
    }
}
