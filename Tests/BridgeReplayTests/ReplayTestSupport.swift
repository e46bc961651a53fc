import BridgeTestSupport
import BridgeArchive
import BridgeHost
@testable import BridgeReplay
import Foundation
import Logging
import BridgeClock

/// Envelope text builders.
enum Env {
    static func request(_ cid: String, _ action: String, data: String? = nil, ts: Int64 = 1_700_000_000_000) -> String {
        let d = data.map { ",\"data\":\($0)" } ?? ""
        return "{\"version\":\"1.0\",\"correlationId\":\"\(cid)\",\"type\":\"request\",\"timestamp\":\(ts),\"payload\":{\"action\":\"\(action)\"\(d)}}"
    }

    static func response(_ cid: String, _ action: String, status: String = "success", data: String? = nil,
                         error: String? = nil, ts: Int64 = 1_700_000_000_000) -> String {
        let d = data.map { ",\"data\":\($0)" } ?? ""
        let e = error.map { ",\"error\":{\"code\":\"\($0)\",\"message\":\"m\",\"recoverable\":false}" } ?? ""
        return "{\"version\":\"1.0\",\"correlationId\":\"\(cid)\",\"type\":\"response\",\"timestamp\":\(ts),\"payload\":{\"action\":\"\(action)\"\(d),\"status\":\"\(status)\"\(e)}}"
    }

    static func event(_ cid: String, _ action: String, data: String? = nil, ts: Int64 = 1_700_000_000_000) -> String {
        let d = data.map { ",\"data\":\($0)" } ?? ""
        return "{\"version\":\"1.0\",\"correlationId\":\"\(cid)\",\"type\":\"event\",\"timestamp\":\(ts),\"payload\":{\"action\":\"\(action)\"\(d)}}"
    }
}

/// One step of a journey recorded against the reference host on virtual time.
enum JourneyStep {
    /// The web side sends this.
    case send(String)
    /// Virtual time passes.
    case wait(Int64)
    /// Time passes until the host has nothing left to do (its answers come).
    case settle
}

/// The passport journey of tools/journey/passport.html, as messages.
let passportJourney: [JourneyStep] = [
    .send(Env.event("w-1", "journey.started", data: "{\"journey\":\"passport\"}")),
    .send(Env.request("q-1", "capability.query")), .settle,
    .send(Env.event("w-2", "journey.progress", data: "{\"step\":\"document\",\"percent\":20}")),
    .send(Env.request("d-1", "camera.document.capture", data: "{\"documentType\":\"passport\",\"side\":\"front\"}")), .settle,
    .send(Env.event("w-3", "journey.progress", data: "{\"step\":\"nfc\",\"percent\":50}")),
    .send(Env.request("n-1", "nfc.read", data: "{\"documentType\":\"passport\"}")), .settle,
    .send(Env.event("w-4", "journey.progress", data: "{\"step\":\"selfie\",\"percent\":75}")),
    .send(Env.request("s-1", "camera.selfie.capture", data: "{}")), .settle,
    .wait(20),
    .send(Env.event("w-5", "journey.complete", data: "{\"status\":\"success\",\"referenceId\":\"ref-1\"}")),
]

/// Records `steps` against a host scripted by `scenario`, on virtual time, as an archive
/// connection would hold them.
func recordJourney(_ steps: [JourneyStep], scenario: Scenario = .default, connection: String = "c1",
                   seed: UInt64 = 99, startMs: Int64 = VirtualClock.defaultStart) -> RecordedConnection {
    var sim = HostSimulator(machine: scenario.makeMachine(eventIDSeed: seed), start: startMs)
    var messages: [RecordedMessage] = []
    func collect() {
        for m in sim.takeSent() {
            messages.append(RecordedMessage(time: m.envelope.timestamp * 1_000_000, direction: .hostToWeb, bytes: m.bytes))
        }
    }
    sim.start()
    collect()
    for step in steps {
        switch step {
        case .send(let text):
            messages.append(RecordedMessage(time: sim.now * 1_000_000, direction: .webToHost, bytes: Array(text.utf8)))
            sim.receive(text)
        case .wait(let ms): sim.advance(by: ms)
        case .settle: sim.runUntilIdle(limitMs: 60_000)
        }
        collect()
    }
    for (i, _) in messages.enumerated() { messages[i].seq = i + 1 }
    return RecordedConnection(id: connection, startTime: startMs * 1_000_000, messages: messages)
}

/// A session of one recorded passport journey.
func passportSession(scenario: Scenario = .default) -> ReplaySession {
    ReplaySession(connections: [recordJourney(passportJourney, scenario: scenario)])
}

/// A fresh temporary folder.
func temporaryDirectory() -> String {
    let dir = TestScratch.rootURL.appendingPathComponent("bridgescope-replay-tests-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Writes `session`'s messages (merged by time) into an archive at `path`; each
/// connection gets an `open` event first and, with `close`, a `close` event last.
func writeArchive(_ session: ReplaySession, to path: String, close: Bool = true, finish: Bool = true,
                  options: ArchiveWriterOptions = .init()) throws {
    let writer = try ArchiveWriter(path: path, header: ArchiveHeader(source: "test", startTime: session.startTime, toolVersion: "test"),
                                   options: options)
    var items: [(time: Int64, order: Int, write: (ArchiveWriter) throws -> Void)] = []
    var order = 0
    for c in session.connections {
        items.append((c.startTime, order, { try $0.append(ArchiveEvent(time: c.startTime, kind: .open, connection: c.id)) }))
        order += 1
        for m in c.messages {
            items.append((m.time, order, { try $0.append(time: m.time, direction: m.direction, connection: c.id, payload: m.bytes) }))
            order += 1
        }
        if close {
            let end = (c.messages.last?.time ?? c.startTime) + 1_000_000
            items.append((end, order, { try $0.append(ArchiveEvent(time: end, kind: .close, connection: c.id)) }))
            order += 1
        }
    }
    for item in items.sorted(by: { ($0.time, $0.order) < ($1.time, $1.order) }) { try item.write(writer) }
    if finish { try writer.finish() } else { try writer.flush() }
}

/// Replays `session` with `options` in this process.
func replay(_ session: ReplaySession, _ options: ReplayOptions) async -> ReplayReport {
    await Replayer(options: options, logger: quiet).run(session, archiveName: "test.bsz")
}

/// A logger that drops everything (the hosts under test log at info).
let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

/// The repository's tools/scenarios folder.
let scenarioDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("tools/scenarios").path
