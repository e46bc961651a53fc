import BridgeTestSupport
import Foundation
import Testing

/// One sample journey run, and what it must end with on every engine.
struct EngineJourney: CustomStringConvertible, Sendable {
    var journey: String
    var args: [String] = []
    var status: Int32 = 0
    var stdoutHas: [String] = []
    var stdoutLacks: [String] = []
    var timeout = 60
    var description: String { ([journey] + args).joined(separator: " ") }

    static let all: [EngineJourney] = [
        EngineJourney(journey: "passport",
                      stdoutHas: ["capability.query", "camera.document.capture", "nfc.read", "camera.selfie.capture", "journey complete"]),
        EngineJourney(journey: "document-dual", stdoutHas: ["\"sides\":[\"front\",\"back\"]"]),
        // A device without NFC: the journey skips the chip; the double tap is answered BUSY.
        EngineJourney(journey: "degradation", args: ["--scenario", "tools/scenarios/nfc-missing.json"],
                      stdoutHas: ["BUSY", "journey complete"], stdoutLacks: ["request  nfc.read"]),
        EngineJourney(journey: "degradation", args: ["--scenario", "tools/scenarios/nfc-unavailable.json"],
                      stdoutHas: ["NFC_NOT_AVAILABLE", "journey complete"]),
        EngineJourney(journey: "degradation", args: ["--scenario", "tools/scenarios/camera-denied.json"], status: 1,
                      stdoutHas: ["journey error"]),
        // The iOS cases of shapes: plain, the page wrapping the bridge itself, a reload, a
        // journey that starts 500 ms after load.
        EngineJourney(journey: "shapes", stdoutHas: ["journey complete"]),
        EngineJourney(journey: "shapes", args: ["--page-args", "wrap=1"], stdoutHas: ["journey complete", "page wrapper post"]),
        EngineJourney(journey: "shapes", args: ["--page-args", "reload=1"], stdoutHas: ["journey complete"]),
        EngineJourney(journey: "shapes", args: ["--page-args", "delay=500"], stdoutHas: ["journey complete"]),
        // A cross-site navigation mid-journey (127.0.0.1 -> localhost): on WebKit a new web
        // process, as on an iPhone; the bridge and the host go on.
        EngineJourney(journey: "shapes", args: ["--page-args", "hop=1"], stdoutHas: ["journey complete"]),
        // A request holding a function: WebKit never delivers it, the page waits forever;
        // the shim converts as WebKit does, so Chromium hangs too (docs/WEBKIT.md).
        EngineJourney(journey: "unclonable", status: 3, stdoutLacks: ["request  camera.document.capture"], timeout: 6),
        EngineJourney(journey: "unclonable", args: ["--page-args", "fixed=1"], stdoutHas: ["camera.document.capture", "journey complete"]),
    ]
}

/// Every sample journey on both engines: real WebKit (bridgescope-webkit, the iOS bridge)
/// and Chromium with the shim in front of the reference host.
@Suite(.serialized)
struct EngineJourneyTests {
    @Test(.enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"), arguments: EngineJourney.all)
    func onWebKit(_ j: EngineJourney) throws {
        #expect(webkitShellPresent, "bridgescope-webkit is not built: make webkit")
        try check(j, engine: "webkit")
    }

    @Test(.enabled(if: chromiumEnabled, "chromium is not installed: run tools/setup.sh --with-browser"), arguments: EngineJourney.all)
    func onChromium(_ j: EngineJourney) throws {
        #expect(chromiumPresent, "chromium is not installed: run tools/setup.sh --with-browser")
        try check(j, engine: "chromium")
    }

    func check(_ j: EngineJourney, engine: String) throws {
        let r = try runEngineJourney(j.journey, engine: engine, j.args, timeout: j.timeout)
        #expect(r.status == j.status, "\(engine) \(j): exit \(r.status)\n\(r.stdout)\n\(r.stderr)")
        for text in j.stdoutHas { #expect(r.stdout.contains(text), "\(engine) \(j): \(text) missing\n\(r.stdout)") }
        for text in j.stdoutLacks { #expect(!r.stdout.contains(text), "\(engine) \(j): \(text) present\n\(r.stdout)") }
    }
}
