import BridgeAnalysis
import BridgeArchive
import BridgeJSON
import BridgeProtocol
import BridgeTestSupport
import Foundation
import Testing

/// The sample sessions in `captures/` (recorded from the sample journeys against the
/// reference host; captures/README.md says how): each gives exactly its expected findings.
struct CapturesTests {
    static let directory = ProjectPaths.root.appendingPathComponent("captures")

    static func analyze(_ name: String) throws -> AnalysisReport {
        try Archives.analyze(directory.appendingPathComponent(name).path)
    }

    static func steps(_ report: AnalysisReport, _ action: String) -> [JourneyStep] {
        report.connections.flatMap(\.steps).filter { $0.action == action }
    }

    @Test(arguments: ["happy-passport.bsz", "nfc-never-answered.bsz", "busy-storm.bsz", "dual-picture-retake.bsz", "malformed-traffic.bsz"])
    func captureIsASmallCompleteArchive(_ name: String) throws {
        let path = Self.directory.appendingPathComponent(name).path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size < 200_000)
        let reader = try ArchiveReader(path: path)
        let records = reader.readAllRecords()
        #expect(reader.findings.isEmpty, "\(reader.findings)")
        #expect(reader.trailer?.records == records.count)
        #expect(reader.header.source.hasPrefix("tap:"))
        let report = try Self.analyze(name)
        #expect(report.countsBySlug["capture-error"] == nil && report.countsBySlug["capture-gap"] == nil)
        #expect(report.connections.count == 1)
    }

    /// The passport journey in headless Chromium, default host: every step succeeds. The
    /// sample page sends its capability.query before host.ready arrives (it does not wait
    /// for it), which is reported as a warning and does not fail the session.
    @Test func happyPassport() throws {
        let r = try Self.analyze("happy-passport.bsz")
        #expect(r.countsBySlug == ["missing-host-ready": 1])
        #expect(!FailPolicy.fails(r, threshold: .error))
        #expect(r.summary.requests == 4 && r.summary.unanswered == 0)
        let requests = r.connections[0].steps.filter { $0.kind == .request }
        #expect(requests.map(\.action) == ["capability.query", "camera.document.capture", "nfc.read", "camera.selfie.capture"])
        #expect(requests.allSatisfy { $0.outcome == "success" })
        #expect(r.connections[0].outcome == JourneyOutcome(state: "complete", detail: "success"))
        #expect(Set(r.latency.map(\.action)) == Set(requests.map(\.action)))
        let early = try #require(r.findings.first { $0.slug == "missing-host-ready" })
        #expect(early.correlationId == requests[0].correlationId)  // the query, not host.ready
        #expect(early.records.last == requests[0].records.first)
    }

    /// nfc.read never answered (tools/scenarios/nfc-silent.json): the page gives up after
    /// 30 s and ends the journey with an error; the read stays unanswered.
    @Test func nfcNeverAnswered() throws {
        let r = try Self.analyze("nfc-never-answered.bsz")
        #expect(r.countsBySlug == ["unanswered-request": 1, "missing-host-ready": 1])
        #expect(FailPolicy.fails(r, threshold: .error))
        let unanswered = try #require(r.findings.first { $0.slug == "unanswered-request" })
        #expect(unanswered.message.hasPrefix("nfc.read ("))
        let read = try #require(Self.steps(r, "nfc.read").first)
        #expect(read.outcome == "unanswered" && read.findings == [.unansweredRequest])
        #expect(unanswered.records == read.records)
        #expect(r.connections[0].outcome.state == "error")
        #expect(r.connections[0].outcome.detail?.contains("TIMEOUT") == true)
        // The page waited its 30 s timeout before giving up.
        let end = try #require(r.connections[0].steps.last)
        #expect(end.action == "journey.error" && end.start - read.start >= 30_000_000_000)
    }

    /// The degradation journey's double tap on a slow camera (tools/scenarios/busy-storm.json):
    /// the second tap and its retries are answered BUSY four times within 2 s.
    @Test func busyStormFromADoubleTap() throws {
        let r = try Self.analyze("busy-storm.bsz")
        #expect(r.countsBySlug == ["missing-host-ready": 1, "busy-retry-storm": 1])
        let captures = Self.steps(r, "camera.document.capture")
        #expect(captures.filter { $0.errorCode == "BUSY" }.count == 4)
        #expect(captures.filter { $0.outcome == "success" }.count == 2)
        #expect(captures.contains { $0.findings == [.busyRetryStorm] })
        #expect(r.countsBySlug["busy-violation"] == nil)  // the host answered BUSY every time
        #expect(r.connections[0].outcome.state == "complete")
    }

    /// The two-picture document journey: front, back, then a retake of the back. Both
    /// sides are there, so `dual-capture-incomplete` stays quiet; the same session with
    /// the back's answers removed makes it fire.
    @Test func dualPictureWithRetake() throws {
        let path = Self.directory.appendingPathComponent("dual-picture-retake.bsz").path
        let r = try Archives.analyze(path)
        #expect(r.countsBySlug == ["missing-host-ready": 1])
        let captures = Self.steps(r, "camera.document.capture")
        #expect(captures.map(\.detail) == ["side front", "side back", "side back"])
        #expect(captures.allSatisfy { $0.outcome == "success" })

        let backRecords = Set(captures.filter { $0.detail == "side back" }.flatMap { $0.records.dropFirst() })
        var analyzer = SessionAnalyzer(source: "without-back")
        for e in try Archives.events(ofArchive: path) where !backRecords.contains(e.record) { analyzer.feed(e) }
        let cut = analyzer.finish()
        #expect(cut.countsBySlug["dual-capture-incomplete"] == 1)
        #expect(cut.countsBySlug["unanswered-request"] == 2)
    }

    /// A scripted broken web build against `host --stdio`: every malformed message is a
    /// finding with its record number and byte offset, and the journey is still followed.
    @Test func malformedTraffic() throws {
        let r = try Self.analyze("malformed-traffic.bsz")
        #expect(r.countsBySlug == [
            "malformed-json": 1, "duplicate-key": 1, "not-an-object": 1, "unknown-type": 1, "status-on-request": 1,
            "timestamp-in-seconds": 1, "wrong-direction": 1, "invalid-utf8": 1, "retry-after-fatal": 1,
        ])
        #expect(r.summary.undecodable == 3)  // cut off, encoded twice, not UTF-8
        for f in r.findings where f.rule.rawValue < "BRG100" {
            #expect(f.records.count == 1 && f.offset != nil, "\(f)")
        }
        let malformed = try #require(r.findings.first { $0.slug == "malformed-json" })
        #expect(malformed.records == [5])
        // The host answered the request with a status on it INVALID_REQUEST, not recoverable;
        // the retry is flagged, then answered.
        let documents = Self.steps(r, "camera.document.capture")
        #expect(documents.map(\.outcome) == ["error", "success"])
        #expect(documents.first?.errorCode == "INVALID_REQUEST")
        let selfies = Self.steps(r, "camera.selfie.capture")
        #expect(selfies.map(\.outcome) == ["success"])
        #expect(r.connections[0].outcome.state == "complete")
    }
}
