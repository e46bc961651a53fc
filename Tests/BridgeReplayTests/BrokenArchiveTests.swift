import BridgeArchive
import BridgeHost
@testable import BridgeReplay
import Foundation
import Testing

/// Archives with gaps, drops, damage and truncated tails replay what is complete, say
/// what was skipped, and never report a divergence for what the recording lost.
struct BrokenArchiveTests {
    /// Every line in a frame of its own, so any cut keeps a clean prefix of lines.
    static let perLine = ArchiveWriterOptions(flushPolicy: FlushPolicy(flushBytes: 1, frameBytes: 1))

    func write(_ session: ReplaySession, close: Bool = true) throws -> (path: String, bytes: [UInt8]) {
        let path = temporaryDirectory() + "/s.bsz"
        try writeArchive(session, to: path, close: close, options: Self.perLine)
        return (path, [UInt8](FileManager.default.contents(atPath: path)!))
    }

    @Test func aTailCutAnywhereReplaysThePrefixWithoutFalseDivergences() async throws {
        let (path, bytes) = try write(passportSession())
        let full = try ReplaySession.load(path: path, logger: quiet)
        #expect(full.archiveFindings.isEmpty && full.skipped.isEmpty)
        var cutsWithFindings = 0
        for fraction in stride(from: 0.15, to: 1.0, by: 0.07) {
            let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
            let cutPath = temporaryDirectory() + "/cut.bsz"
            #expect(FileManager.default.createFile(atPath: cutPath, contents: Data(cut)))
            guard let session = try? ReplaySession.load(path: cutPath, logger: quiet) else { continue } // header lost
            #expect(!session.archiveFindings.isEmpty, "cut at \(cut.count) of \(bytes.count) bytes")
            cutsWithFindings += 1
            if let c = session.connections.first {
                #expect(c.isCut, "a connection still open at the cut is marked cut")
                #expect(full.connections[0].messages.starts(with: c.messages))
            }
            let report = await replay(session, ReplayOptions(target: .inproc(scenario: nil)))
            #expect(report.divergenceCount == 0, "cut at \(cut.count): \(report.renderText())")
        }
        #expect(cutsWithFindings >= 8)
    }

    @Test func requestsWhoseAnswersWereCutOffAreReplayedButNotCompared() async throws {
        var session = passportSession()
        // Cut right after the selfie request: its answer was never recorded.
        let messages = session.connections[0].messages
        let selfie = messages.firstIndex { $0.action == "camera.selfie.capture" && $0.kind == .request }!
        session.connections[0].messages = Array(messages[...selfie])
        let (path, _) = try write(session, close: false)
        // Drop the trailer's frame: the archive ends unfinished.
        let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let trailerFrame = lastFrameStart(bytes)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes[..<trailerFrame])))
        let loaded = try ReplaySession.load(path: path, logger: quiet)
        #expect(loaded.archiveFindings.contains { $0.contains("missing-trailer") })
        let report = await replay(loaded, ReplayOptions(target: .inproc(scenario: nil)))
        #expect(report.divergenceCount == 0, "\(report.renderText())")
        #expect(report.connections[0].uncompared == 1)
        #expect(report.connections[0].sent == 8)
        #expect(report.renderText().contains("1 request(s) not compared (recording cut)"))
    }

    @Test func aCorruptFrameCutsTheOpenConnectionsAtTheDamage() async throws {
        let (path, bytes) = try write(passportSession())
        var damaged = bytes
        let starts = frameStarts(bytes)
        let victim = starts[starts.count / 2]
        for i in (victim + 6)..<min(victim + 14, damaged.count) { damaged[i] ^= 0x5A }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(damaged)))
        let session = try ReplaySession.load(path: path, logger: quiet)
        #expect(!session.archiveFindings.isEmpty)
        #expect(session.connections.first?.isCut == true)
        let skipped = session.skipped.reduce(0) { $0 + $1.messages }
        #expect(skipped > 0, "messages after the damage are skipped and counted")
        #expect(session.skipped.contains { $0.reason.contains("archive damage") })
        let report = await replay(session, ReplayOptions(target: .inproc(scenario: nil)))
        #expect(report.divergenceCount == 0, "\(report.renderText())")
        #expect(report.renderText().contains("skipped:"))
    }

    @Test func aGapCutsItsConnectionAndOthersReplayWhole() throws {
        let a = recordJourney(passportJourney, connection: "a")
        let b = recordJourney(passportJourney, connection: "b")
        var builder = ReplaySessionBuilder()
        var seq = 0
        func record(_ c: String, _ m: RecordedMessage) {
            seq += 1
            builder.add(.record(ArchiveRecord(seq: seq, time: m.time, direction: m.direction, connection: c, payload: m.bytes)))
        }
        for (i, m) in a.messages.enumerated() {
            record("a", m)
            record("b", b.messages[i])
            if i == 4 {
                seq += 1
                builder.add(.event(ArchiveEvent(seq: seq, time: m.time, kind: .gap, connection: "a", direction: .hostToWeb, bytes: 512)))
            }
        }
        for m in b.messages.dropFirst(a.messages.count) { record("b", m) }
        let session = builder.finish()
        #expect(session.connections.map(\.messages.count) == [5, b.messages.count])
        #expect(session.skipped.count == 1)
        #expect(session.skipped[0].connection == "a" && session.skipped[0].messages == a.messages.count - 5)
        #expect(session.skipped[0].reason.contains("512 bytes of the h2w stream were never captured"))
    }

    @Test func dropsAndUnattributedErrorsCutEveryOpenConnection() {
        for kind in [ArchiveEvent.Kind.drop, .error] {
            var builder = ReplaySessionBuilder()
            let m1 = Array(Env.request("q", "capability.query").utf8)
            builder.add(.record(ArchiveRecord(seq: 1, time: 1, direction: .webToHost, connection: "x", payload: m1)))
            builder.add(.record(ArchiveRecord(seq: 2, time: 2, direction: .webToHost, connection: "y", payload: m1)))
            builder.add(.event(ArchiveEvent(seq: 3, time: 3, kind: kind, count: 7, reason: "bad line")))
            builder.add(.record(ArchiveRecord(seq: 4, time: 4, direction: .hostToWeb, connection: "x", payload: m1)))
            builder.add(.record(ArchiveRecord(seq: 5, time: 5, direction: .webToHost, connection: "z", payload: m1)))
            let s = builder.finish()
            #expect(s.connections.map(\.id) == ["x", "y", "z"], "\(kind)")
            #expect(s.connections.map(\.isCut) == [true, true, false], "a connection opened after the damage is whole")
            #expect(s.skippedMessagesCount == (kind == .drop ? 1 : 2))
        }
    }

    @Test func aFileThatIsNotAnArchiveIsAClearError() throws {
        let path = temporaryDirectory() + "/x.bsz"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{\"t\":1}\n".utf8)))
        for p in [path, "/nonexistent/x.bsz"] {
            do {
                _ = try ReplaySession.load(path: p, logger: quiet)
                Issue.record("\(p) loaded")
            } catch {
                #expect(error.code == .archive)
                #expect(error.message.contains(p), "\(error.message)")
            }
        }
    }

    @Test func malformedRecordedMessagesAreReplayedVerbatim() async {
        // Garbage, an invalid request the host answers INVALID_REQUEST, bytes that are not UTF-8.
        let steps: [JourneyStep] = [
            .send("{\"type\":\"request\",\"correlationId\":\"bad-1\",\"payload\":{}}"), .settle,
            .send("not json at all"), .settle,
            .send(String(decoding: [0xFF, 0xFE, 0x00, 0x41], as: UTF8.self)), .settle,
            .send(Env.request("q", "capability.query")), .settle,
        ]
        let c = recordJourney(steps)
        #expect(c.messages.contains { $0.status == "error" })
        let report = await replay(ReplaySession(connections: [c]), ReplayOptions(target: .inproc(scenario: nil)))
        #expect(report.divergenceCount == 0, "\(report.renderText())")
        #expect(report.sent == 4)
    }

    /// Byte offsets of the zstd frames in `bytes` (magic 28 B5 2F FD; every frame of these
    /// archives holds one line, so the magic is not found inside compressed data here by
    /// accident often enough to matter for the tests' purpose).
    func frameStarts(_ bytes: [UInt8]) -> [Int] {
        guard bytes.count >= 4 else { return [] }
        return (0...(bytes.count - 4)).filter { bytes[$0] == 0x28 && bytes[$0 + 1] == 0xB5 && bytes[$0 + 2] == 0x2F && bytes[$0 + 3] == 0xFD }
    }

    /// Where the frame holding the trailer starts (the writer may end with an empty frame).
    func lastFrameStart(_ bytes: [UInt8]) -> Int {
        let starts = frameStarts(bytes)
        guard let last = starts.last else { return bytes.count }
        return bytes.count - last < 16 && starts.count > 1 ? starts[starts.count - 2] : last
    }
}

extension ReplaySession {
    var skippedMessagesCount: Int { skipped.reduce(0) { $0 + $1.messages } }
}
