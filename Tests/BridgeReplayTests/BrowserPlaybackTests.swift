import BridgeTestSupport
import Foundation
import Testing

/// The proof of `--as-host`: the passport journey recorded in headless Chromium against
/// the reference host, the host stopped, the archive played back as the host, and the
/// same journey run again against it in Chromium: it completes, and the second
/// recording analyses with no findings.
@Suite(.serialized, .enabled(if: chromiumEnabled && binaryBuilt,
                             "chromium is not installed (tools/setup.sh --with-browser) or bridgescope is not built"))
struct BrowserPlaybackTests {
    static let runJourney = ProjectPaths.root.appendingPathComponent("tools/run-journey")

    /// Records the passport journey against the reference host into an archive.
    func recordPassport(in dir: String) throws -> String {
        let tap = dir + "/first.tap.jsonl", bsz = dir + "/first.bsz"
        // run-journey starts the host, and the host exits at the journey's end: stopped.
        let first = try runProcess(Self.runJourney, ["passport", "--transcript", tap, "--timeout", "60", "--quiet"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let rec = try runBridgescope(["record", "-o", bsz, "--tap", tap, "--quiet"])
        #expect(rec.status == 0, "\(rec.stderr)")
        return bsz
    }

    @Test func thePassportJourneyCompletesAgainstItsRecordingAndAnalysesClean() throws {
        let dir = temporaryDirectory()
        let archive = try recordPassport(in: dir)
        let tap = dir + "/second.tap.jsonl"
        let second = try runProcess(Self.runJourney, ["passport", "--replay", archive, "--pace", "asap",
                                                      "--transcript", tap, "--timeout", "60"])
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("journey complete"))
        #expect(second.stdout.contains("playback: 1 connection(s), 4 request(s) answered from the recording, 0 unmatched"))
        for action in ["capability.query", "camera.document.capture", "nfc.read", "camera.selfie.capture"] {
            #expect(second.stdout.contains("response  \(action)  success"), "\(action) not answered")
        }
        let bsz = dir + "/second.bsz"
        #expect(try runBridgescope(["record", "-o", bsz, "--tap", tap, "--quiet"]).status == 0)
        let analysis = try runBridgescope(["analyze", "--fail-on", "warning", bsz])
        #expect(analysis.status == 0, "\(analysis.stdout)")
        #expect(analysis.stdout.contains("Findings: none"), "\(analysis.stdout)")
        // And the two recordings agree when the second is replayed against the reference host.
        let replay = try runBridgescope(["replay", bsz, "--no-timing"])
        #expect(replay.status == 0, "\(replay.stdout)")
    }

    @Test func recordedPacingReproducesTheRecordedTiming() throws {
        let dir = temporaryDirectory()
        let archive = try recordPassport(in: dir)
        let tap = dir + "/paced.tap.jsonl"
        let run = try runProcess(Self.runJourney, ["passport", "--replay", archive, "--transcript", tap, "--timeout", "60", "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("journey complete"))
        // No error: at most the warnings the first recording had (the reference host's
        // late host.ready is played back as recorded).
        let bsz = dir + "/paced.bsz"
        #expect(try runBridgescope(["record", "-o", bsz, "--tap", tap, "--quiet"]).status == 0)
        let analysis = try runBridgescope(["analyze", bsz])
        #expect(analysis.status == 0, "\(analysis.stdout)")
    }
}
