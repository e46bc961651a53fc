import BridgeTestSupport
import Foundation
import Testing

/// Issue 16: the HTML report of a long session, opened in headless Chromium. The
/// timeline spans the whole session (its last tick is the session's end, after the cut
/// idle stretch) and the journey table says what it folded; the screenshot is kept in
/// the temporary directory for a person to look at.
@Suite(.serialized, .enabled(if: chromiumEnabled, "chromium is not installed: run tools/setup.sh --with-browser"))
struct HTMLScreenshotTests {
    @Test func aLongSessionRendersWholeInHeadlessChromium() throws {
        let dir = TestScratch.rootURL.appendingPathComponent("bridgescope-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let fixture = ProjectPaths.root.appendingPathComponent("Tests/BridgeAnalysisTests/Fixtures/long-session-uuids.ndjson").path
        let r = try runBridgescope(["analyze", fixture, "--format", "html", "-o", "report.html"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let html = try String(contentsOf: dir.appendingPathComponent("report.html"), encoding: .utf8)
        // The axis reaches the session's end (1 min 31 s) across the cut idle stretch.
        #expect(html.contains("class=\"axis-break\"") && html.contains(">+90s</text>"), "timeline does not reach the end")
        #expect(html.contains("298 more like") && html.contains("(records 618–1212)"))
        let png = dir.appendingPathComponent("report.png")
        let browser = RequiredTools.chromium ?? "chromium"
        let shot = try runProcess(URL(fileURLWithPath: browser),
                                  ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,2000",
                                   "--screenshot=\(png.path)", dir.appendingPathComponent("report.html").absoluteString])
        let bytes = [UInt8]((try? Data(contentsOf: png)) ?? Data())
        #expect(bytes.count > 50_000, "screenshot missing or blank (\(bytes.count) bytes): \(shot.stderr.suffix(500))")
        guard bytes.count > 24 else { return }
        #expect(Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1280 && height == 2000)
        print("HTML report screenshot: \(png.path)")
    }
}
