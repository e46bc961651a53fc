// Replay benchmark (docs/PERFORMANCE.md, "Replay").
//
// 1. Throughput: a generated session (100 connections of 140 passport-like journeys, one
//    in ten with document and selfie captures: 103,700 messages) is written to an archive,
//    read back, and replayed `--pace asap` against the in-process reference host on
//    virtual time, with every answer diffed. Messages/s = messages sent + received over
//    the replay's wall time (and over load + replay).
// 2. Pacing: a session of 10,000 web messages (three events to one capability.query,
//    recorded gaps drawn from [gap/2, 3·gap/2]) replayed `--pace recorded` against the
//    in-process host on the real clock; the send-time error of each message is its
//    actual send time minus the time the scheduler meant it to go.
import BridgeArchive
import BridgeHost
import BridgeReplay
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

struct Options {
    var journeysPerConnection = 140
    var connections = 100
    var paced = 10_000
    var gapMicros = 500
    var spins: [Int] = [0, 1000]
    var rounds = 3

    init(_ args: [String]) {
        var i = 0
        func value() -> Int {
            i += 1
            guard i < args.count, let v = Int(args[i]) else { fatalError("\(args[i - 1]) needs a number") }
            return v
        }
        while i < args.count {
            switch args[i] {
            case "--journeys": journeysPerConnection = max(1, value() / connections)
            case "--paced": paced = value()
            case "--gap-us": gapMicros = value()
            case "--spin-us": spins = [value()]
            case "--rounds": rounds = value()
            default: fatalError("unknown option \(args[i]); see replay-bench.sh")
            }
            i += 1
        }
    }
}

let quiet = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }

func seconds(_ body: () async -> Void) async -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func env(_ cid: String, _ type: String, _ action: String, data: String? = nil, ts: Int64) -> String {
    let d = data.map { ",\"data\":\($0)" } ?? ""
    return "{\"version\":\"1.0\",\"correlationId\":\"\(cid)\",\"type\":\"\(type)\",\"timestamp\":\(ts),\"payload\":{\"action\":\"\(action)\"\(d)}}"
}

/// One connection of `journeys` journeys recorded against the reference host on virtual time.
func recordConnection(_ c: Int, journeys: Int) -> RecordedConnection {
    var sim = HostSimulator(machine: Scenario.default.makeMachine(eventIDSeed: UInt64(c + 1)))
    let start = sim.now
    var out: [RecordedMessage] = []
    func collect() {
        for m in sim.takeSent() {
            out.append(RecordedMessage(time: m.envelope.timestamp * 1_000_000, direction: .hostToWeb, bytes: m.bytes))
        }
    }
    func send(_ text: String) {
        out.append(RecordedMessage(time: sim.now * 1_000_000, direction: .webToHost, bytes: Array(text.utf8)))
        sim.receive(text)
        collect()
    }
    sim.start()
    collect()
    for j in 0..<journeys {
        let id = "c\(c)-j\(j)"
        send(env("\(id)-e1", "event", "journey.started", data: "{\"journey\":\"passport\"}", ts: sim.now))
        send(env("\(id)-q", "request", "capability.query", ts: sim.now))
        sim.runUntilIdle(); collect()
        if j % 10 == 0 {
            send(env("\(id)-d", "request", "camera.document.capture", data: "{\"documentType\":\"passport\",\"side\":\"front\"}", ts: sim.now))
            sim.runUntilIdle(); collect()
        }
        send(env("\(id)-e2", "event", "journey.progress", data: "{\"step\":\"nfc\",\"percent\":50}", ts: sim.now))
        send(env("\(id)-n", "request", "nfc.read", data: "{\"documentType\":\"passport\"}", ts: sim.now))
        sim.runUntilIdle(); collect()
        if j % 10 == 0 {
            send(env("\(id)-s", "request", "camera.selfie.capture", data: "{}", ts: sim.now))
            sim.runUntilIdle(); collect()
        }
        sim.advance(by: 15)
        send(env("\(id)-e3", "event", "journey.complete", data: "{\"status\":\"success\"}", ts: sim.now))
        sim.advance(by: 5)
    }
    for i in out.indices { out[i].seq = i + 1 }
    return RecordedConnection(id: "c\(c)", startTime: start * 1_000_000, messages: out)
}

func writeArchive(_ session: ReplaySession, to path: String) throws {
    let writer = try ArchiveWriter(path: path, header: ArchiveHeader(source: "bench", startTime: session.startTime, toolVersion: "bench"))
    var all: [(Int64, Int, String, RecordedMessage)] = []
    var order = 0
    for c in session.connections {
        for m in c.messages {
            all.append((m.time, order, c.id, m))
            order += 1
        }
    }
    all.sort { ($0.0, $0.1) < ($1.0, $1.1) }
    for (t, _, conn, m) in all { try writer.append(time: t, direction: m.direction, connection: conn, payload: m.bytes) }
    try writer.finish()
}

/// A single connection of `count` web messages with recorded gaps around `gapMicros`.
func pacedSession(count: Int, gapMicros: Int) -> ReplaySession {
    var sim = HostSimulator(machine: Scenario.default.makeMachine(eventIDSeed: 5))
    sim.start()
    let answer = { () -> [UInt8] in
        sim.receive(env("x", "request", "capability.query", ts: sim.now))
        return sim.takeSent().last!.bytes
    }()
    var rng = SystemRandomNumberGenerator()
    var t: Int64 = 1_700_000_000_000_000_000
    var out: [RecordedMessage] = []
    for i in 0..<count {
        let text = i % 4 == 3 ? env("q\(i)", "request", "capability.query", ts: t / 1_000_000)
            : env("e\(i)", "event", "journey.progress", data: "{\"i\":\(i)}", ts: t / 1_000_000)
        out.append(RecordedMessage(seq: out.count + 1, time: t, direction: .webToHost, bytes: Array(text.utf8)))
        if i % 4 == 3 {
            let s = String(decoding: answer, as: UTF8.self).replacingOccurrences(of: "\"x\"", with: "\"q\(i)\"")
            out.append(RecordedMessage(seq: out.count + 1, time: t + 60_000, direction: .hostToWeb, bytes: Array(s.utf8)))
        }
        let g = Int64(gapMicros) * 1000
        t += g / 2 + Int64.random(in: 0...g, using: &rng)
    }
    return ReplaySession(connections: [RecordedConnection(id: "p", startTime: out[0].time, messages: out)])
}

func percentile(_ sorted: [Int64], _ p: Double) -> Int64 {
    sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
}

func ms(_ ns: Int64) -> String { String(format: "%.3f ms", Double(ns) / 1e6) }

let options = Options(Array(CommandLine.arguments.dropFirst()))
print("replay-bench: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \(String(format: "%.2f", (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)).flatMap { Double($0.split(separator: " ")[0]) } ?? -1))")

// MARK: 1. asap throughput

let session = ReplaySession(connections: (0..<options.connections).map { recordConnection($0, journeys: options.journeysPerConnection) })
let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replay-bench-\(getpid())").path
try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
let archive = dir + "/generated.bsz"
try writeArchive(session, to: archive)
let archiveBytes = (try? FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int) ?? 0
let messageBytes = session.connections.reduce(0) { $0 + $1.messages.reduce(0) { $0 + $1.bytes.count } }
print("session: \(session.connections.count) connections, \(session.messageCount) messages, \(messageBytes / 1_000_000) MB of messages, archive \(archiveBytes / 1_000) KB")

var replayRates: [Double] = [], totalRates: [Double] = []
for round in 1...options.rounds {
    var loaded: ReplaySession?
    let load = await seconds { loaded = try? ReplaySession.load(path: archive, logger: quiet) }
    guard let loaded, loaded.messageCount == session.messageCount else { fatalError("the archive did not read back whole") }
    var report: ReplayReport?
    let run = await seconds {
        report = await Replayer(options: ReplayOptions(target: .inproc(scenario: nil)), logger: quiet).run(loaded, archiveName: archive)
    }
    guard let report, report.divergenceCount == 0, !report.hasConnectionErrors else {
        fatalError("replay diverged: \(report?.renderText().suffix(2000) ?? "")")
    }
    let messages = Double(report.sent + report.received)
    replayRates.append(messages / run)
    totalRates.append(messages / (run + load))
    print(String(format: "round %d: load %.2f s, replay+diff %.2f s: %d sent + %d received, %.0f messages/s (%.0f with load)",
                 round, load, run, report.sent, report.received, messages / run, messages / (run + load)))
}
let median = { (a: [Double]) in a.sorted()[a.count / 2] }
print(String(format: "asap in-process: median %.0f messages/s replay+diff, %.0f messages/s with archive load (target >= 50,000)",
             median(replayRates), median(totalRates)))
try? FileManager.default.removeItem(atPath: dir)

// MARK: 2. recorded pacing error

let paced = pacedSession(count: options.paced, gapMicros: options.gapMicros)
let plans = ReplayPlanner.plan(paced)
for spin in options.spins {
    var o = ReplayOptions(target: .inproc(scenario: nil), pacing: .recorded, tolerance: nil, realClock: true,
                          spin: .microseconds(spin))
    o.timing = .init(responseTimeout: 5_000_000_000, linger: 0)
    let replayer = Replayer(options: o, logger: quiet)
    var runs: [ConnectionRun] = []
    let cpu0 = cpuSeconds()
    let wall = await seconds { runs = await replayer.runOnce(plans) }
    let cpu = cpuSeconds() - cpu0
    let lateness = runs[0].lateness.sorted()
    print(String(format: "recorded pacing, spin %d us: %d messages in %.2f s (CPU %.2f s): send-time error p50 %@, p99 %@, max %@ (target p99 < 2 ms)",
                 spin, lateness.count, wall, cpu, ms(percentile(lateness, 0.5)), ms(percentile(lateness, 0.99)), ms(lateness.last ?? 0)))
}
