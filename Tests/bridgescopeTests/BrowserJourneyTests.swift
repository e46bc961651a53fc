import BridgeTestSupport
import Foundation
import Testing

/// Where a Chromium is looked for.
let chromiumCandidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
let chromiumPresent = chromiumCandidates.contains { FileManager.default.isExecutableFile(atPath: $0) }

/// A real browser runs the sample journeys against the Swift host over a real socket.
@Suite(.serialized, .enabled(if: chromiumPresent, "chromium is not installed: run tools/setup.sh --with-browser"))
struct BrowserJourneyTests {
    func runJourney(_ args: [String]) throws -> ProcessResult {
        try runProcess(ProjectPaths.root.appendingPathComponent("tools/run-journey"), args + ["--timeout", "60"])
    }

    @Test func passportJourneyCompletesAgainstTheDefaultScenario() throws {
        let r = try runJourney(["passport"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("journey complete"))
        // The exchange shows the whole journey: query, document, NFC, selfie.
        for action in ["capability.query", "camera.document.capture", "nfc.read", "camera.selfie.capture", "journey.complete"] {
            #expect(r.stdout.contains(action), "\(action) missing from the exchange")
        }
    }

    @Test func degradationJourneyCompletesWithNFCDisabled() throws {
        // A device without NFC: the query does not list it, so the journey skips the chip.
        let r = try runJourney(["degradation", "--scenario", "tools/scenarios/nfc-missing.json"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(!r.stdout.contains("request  nfc.read"), "the journey should skip NFC when the query says unsupported")
        #expect(r.stdout.contains("BUSY"), "the double tap should have been answered BUSY and retried")
        // NFC listed but off when read: the journey reads, gets NFC_NOT_AVAILABLE, and goes on.
        let off = try runJourney(["degradation", "--scenario", "tools/scenarios/nfc-unavailable.json"])
        #expect(off.status == 0, "\(off.stdout)\n\(off.stderr)")
        #expect(off.stdout.contains("NFC_NOT_AVAILABLE"))
    }

    @Test func deniedCameraEndsTheJourneyWithAnError() throws {
        let r = try runJourney(["degradation", "--scenario", "tools/scenarios/camera-denied.json", "--quiet"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("journey error"))
    }
}
