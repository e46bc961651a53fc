@testable import BridgeDevTools
import BridgeTestSupport
import BridgeTransport
import Foundation
import Testing

/// A WebView target (`webkit:`) follows the WebView to another web process: a cross-site
/// navigation runs in a new process, as WKWebView does (the shell turns process swap on,
/// docs/WEBKIT.md), and WebKit shows it as a provisional target that the link must arm
/// with the tap before it runs (the pure part: `WebViewChannelTests`).
@Suite(.serialized, .enabled(if: webkitEnabled, "bridgescope-webkit is not built: make webkit"))
struct WebViewProcessSwapTests {
    /// Posts a capability query through the link's bridge and waits for its answer from the tap.
    func roundTrip(_ link: WebViewLink, _ id: String) async throws -> Bool {
        let request = #"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":1,"payload":{"action":"capability.query"}}"#
        let posted = try await link.post(Array(request.utf8)).value
        guard case .crossed = posted else { Issue.record("not posted: \(posted)"); return false }
        let waiter = Task {
            for await answer in link.answers where String(decoding: answer, as: UTF8.self).contains("\"correlationId\":\"\(id)\"") {
                return true
            }
            return false
        }
        // Generous: in a full run async tests wait minutes for the cooperative pool.
        let timer = Task.detached { try? await Task.sleep(for: .seconds(120)); waiter.cancel() }
        defer { timer.cancel() }
        return await waiter.value
    }

    @Test func theLinkFollowsTheWebViewToAnotherProcess() async throws {
        let dir = TestScratch.rootURL.appendingPathComponent("webview-swap-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pages = try SlowPageServer(folder: dir)
        let port = freeTCPPort()
        let shell = try BackgroundProcess(webkitShell.path, [pages.url("target.html", delay: 0), "--keep-open",
                                                             "--inspector", "127.0.0.1:\(port)", "--quiet", "--timeout", "600"],
                                          log: dir.appendingPathComponent("shell.log"))
        defer { shell.stop() }
        #expect(waitForPort(port))
        let spec = try #require(try WebViewSpec(parsing: "webkit:http://127.0.0.1:\(port)"))
        let link = try await WebViewLink.open(spec, tapSource: try CDPTapScript.load(executable: ProjectPaths.binary.path),
                                              blank: false, commandTimeout: 60)
        defer { link.close() }
        let before = link.state.withLock { $0.channel.target }
        #expect(try await roundTrip(link, "before-swap"))

        // 127.0.0.1 and localhost are two sites: WebKit moves the page to a new web process.
        let there = pages.url("target.html", delay: 0).replacingOccurrences(of: "//127.0.0.1:", with: "//localhost:")
        try await link.navigate(to: there)
        let after = link.state.withLock { $0.channel.target }
        #expect(before != nil && after != nil && before != after, "the page target did not change: \(String(describing: before))")
        #expect(link.pageURL.hasPrefix("http://localhost:"), "\(link.pageURL)")
        // The new process's document runs the tap (armed while paused): the host's answer is heard.
        #expect(try await roundTrip(link, "after-swap"))
        #expect(link.failure == nil, "\(link.failure ?? "")\n\(shell.output.suffix(1500))")

        // And back: a second swap.
        try await link.navigate(to: pages.url("target.html", delay: 0))
        #expect(link.state.withLock { $0.channel.target } != after)
        #expect(try await roundTrip(link, "after-second-swap"))
    }
}
