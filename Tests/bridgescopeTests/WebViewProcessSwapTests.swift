import BridgeTestSupport
import Foundation
import Testing

/// A WebView target (`webkit:`) follows the WebView to another web process: a cross-site
/// navigation runs in a new process, as WKWebView does (the shell turns process swap on,
/// docs/WEBKIT.md), and WebKit shows it as a provisional target that the link must arm
/// with the tap before it runs (the pure part: `WebViewChannelTests`). The link runs in
/// `WebViewDriver`, a process of its own: in the test runner its socket task would wait
/// for a cooperative pool that the synchronous tests hold for minutes in a full run.
@Suite(.serialized, .enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"))
struct WebViewProcessSwapTests {
    @Test func theLinkFollowsTheWebViewToAnotherProcess() throws {
        let dir = TestScratch.rootURL.appendingPathComponent("webview-swap-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pages = try SlowPageServer(folder: dir)
        let port = freeTCPPort()
        let here = pages.url("target.html", delay: 0)
        let shell = try BackgroundProcess(webkitShell.path, [here, "--keep-open", "--inspector", "127.0.0.1:\(port)",
                                                             "--quiet", "--timeout", "600"],
                                          log: dir.appendingPathComponent("shell.log"))
        defer { shell.stop() }
        #expect(waitForPort(port, seconds: 60))
        // 127.0.0.1 and localhost are two sites: WebKit moves the page to a new web process, and back.
        let there = here.replacingOccurrences(of: "//127.0.0.1:", with: "//localhost:")
        let driver = ProjectPaths.binary.deletingLastPathComponent().appendingPathComponent("WebViewDriver")
        let r = try runProcess(driver, ["webkit:http://127.0.0.1:\(port)",
                                        ProjectPaths.root.appendingPathComponent("tools/taps/js/bridge-tap.js").path, there, here])
        let steps = r.stdout.split(separator: "\n").filter { $0.hasPrefix("target ") }
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)\n\(shell.output.suffix(1500))")
        #expect(steps.count == 3, "\(r.stdout)")
        guard steps.count == 3 else { return }
        // Each step in another process's target, and the host's answer heard in each.
        let targets = steps.map { $0.split(separator: " ")[1] }
        #expect(targets[0] != targets[1] && targets[1] != targets[2], "\(steps)")
        #expect(steps[1].contains("url http://localhost:") && steps[2].contains("url http://127.0.0.1:"), "\(steps)")
        #expect(steps.allSatisfy { $0.hasSuffix("answered true") }, "\(steps)")
    }
}
