import BridgeArchive
@testable import BridgeDevTools
import BridgeJSON
import Testing

/// A WebKit page socket that is the page itself, with no Target domain (an iOS before
/// 12.2 through ios_webkit_debug_proxy, which forwards frames unchanged), told from one
/// that holds targets by what it says, never assumed: the recorder's session
/// (``WebInspectorSession``) and the WebView target's channel (``WebViewChannel``) fed
/// scripted socket messages. Times are ns since the socket opened.
struct WebInspectorDirectPageTests {
    let prefix = "__bridgescope_tap_direct"
    static let ms: Int64 = 1_000_000

    func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// Each command sent: its method and whether it went wrapped, and its id.
    func commands(_ actions: [WebInspectorSession.Action]) -> [String] {
        actions.compactMap { action in
            guard case .send(let bytes) = action else { return nil }
            return describe(bytes)
        }
    }

    func describe(_ bytes: [UInt8]) -> String? {
        guard case .object(let o)? = try? JSONParser().parse(bytes).value, let method = o["method"]?.stringValue,
              let id = o["id"]?.numberValue?.lexeme else { return nil }
        guard method == "Target.sendMessageToTarget", let m = o["params"]?.objectValue?["message"]?.stringValue,
              case .object(let inner)? = try? JSONParser().parse(Array(m.utf8)).value else { return "\(id) \(method)" }
        return "wrapped \(inner["id"]?.numberValue?.lexeme ?? "?") \(inner["method"]?.stringValue ?? "?")"
    }

    func events(_ actions: [WebInspectorSession.Action]) -> [ArchiveEvent] {
        actions.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
    }

    func session() -> WebInspectorSession {
        WebInspectorSession(page: 1, pageURL: "http://a/j.html", tapSource: "/* tap */", prefix: prefix)
    }

    /// An unwrapped console message, as the page itself sends it.
    func console(_ body: String) -> [UInt8] {
        JSONWriter().bytes(["method": "Console.messageAdded", "params": ["message": ["source": "console-api", "level": "debug", "text": .string(body)]]])
    }

    static let refusedTarget = #"{"error":{"code":-32601,"message":"'Target' domain was not found"},"id":1}"#
    static let probeAnswered = #"{"result":{"result":{"type":"number","value":1,"description":"1"},"wasThrown":false},"id":2}"#
    static let created = #"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-1","type":"page"}}}"#

    // MARK: the recorder

    @Test func aSocketThatIsThePageIsRecordedUnwrapped() {
        var s = session()
        #expect(commands(s.opened(now: 0)) == ["1 Target.setPauseOnStart", "2 Runtime.evaluate"])
        // The page has no Target domain: that refusal is no news; the probe is answered.
        #expect(s.receive(text(Self.refusedTarget), now: 3 * Self.ms).isEmpty)
        #expect(s.receive(text(Self.probeAnswered), now: 4 * Self.ms).isEmpty)
        // No target named: after the grace period it is the page, attached unwrapped, once.
        #expect(s.tick(now: 100 * Self.ms).isEmpty)
        #expect(s.tick(now: 499 * Self.ms).isEmpty)
        let attached = s.tick(now: 500 * Self.ms)
        #expect(commands(attached) == ["3 Console.enable", "4 Page.enable", "5 Page.setBootstrapScript", "6 Runtime.evaluate"])
        guard case .note(let note)? = attached.first else { Issue.record("no note"); return }
        #expect(note.contains("is the page itself (no Target domain)"), "\(note)")
        #expect(s.tick(now: 900 * Self.ms).isEmpty)
        // Its answers and events come as they are.
        #expect(s.receive(text(#"{"result":{},"id":3}"#), now: 501 * Self.ms).isEmpty)
        let installed = s.receive(text(#"{"result":{"result":{"type":"string","value":"installed"}},"id":6}"#), now: 502 * Self.ms)
        #expect(installed.isEmpty, "\(installed)")
        let header = #"{"t":1,"event":"tap","tap":"js","version":1,"seq":1,"first":true,"redacted":false}"#
        let request = #"{"t":1700000000000,"dir":"w2h","msg":{"version":"1.0","type":"request"}}"#
        let first = s.receive(console("\(prefix) d0c 1 top \"http://a/j.html\"\n\(header)\n\(request)"), now: 503 * Self.ms)
        #expect(events(first).map { "\($0.kind) \($0.connection ?? "")" } == ["open p1.t1.d1"])
        #expect(first.contains { if case .record(_, .webToHost, "p1.t1.d1", let p) = $0 { return p == Array(#"{"version":"1.0","type":"request"}"#.utf8) } else { return false } })
        // A page that refuses the bootstrap script (an older WebKit) says so in the archive.
        let refused = s.receive(text(#"{"error":{"message":"'Page.setBootstrapScript' was not found"},"id":5}"#), now: 504 * Self.ms)
        #expect(events(refused).map { $0.reason ?? "" } == ["WebKit's inspector at http://a/j.html refused installing the tap (bootstrap script): 'Page.setBootstrapScript' was not found"])
    }

    /// A socket that names a target holds targets, even when something answered the probe.
    @Test func aSocketThatNamesATargetIsWrapped() {
        var s = session()
        _ = s.opened(now: 0)
        #expect(s.receive(text(Self.probeAnswered), now: 1 * Self.ms).isEmpty)
        let attached = s.receive(text(Self.created), now: 2 * Self.ms)
        #expect(commands(attached) == ["wrapped 1 Console.enable", "wrapped 2 Page.enable", "wrapped 3 Page.setBootstrapScript", "wrapped 4 Runtime.evaluate"])
        #expect(s.tick(now: 10_000 * Self.ms).isEmpty)
    }

    /// What ios_webkit_debug_proxy relayed from an iOS Simulator in its issue 373 (2020):
    /// the target named first, then a command sent unwrapped refused with -32601 and a
    /// `data` array. The socket is wrapped, the probe's refusal is no news.
    @Test func aCurrentIOSThroughTheProxyIsWrapped() {
        var s = session()
        _ = s.opened(now: 0)
        let attached = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-7","type":"page"}}}"#), now: 1)
        #expect(commands(attached) == ["wrapped 1 Console.enable", "wrapped 2 Page.enable", "wrapped 3 Page.setBootstrapScript", "wrapped 4 Runtime.evaluate"])
        let refused = #"{"error":{"code":-32601,"message":"'Runtime' domain was not found","data":[{"code":-32601,"message":"'Runtime' domain was not found"}]},"id":2}"#
        #expect(s.receive(text(refused), now: 2).isEmpty)
        #expect(s.tick(now: 10_000 * Self.ms).isEmpty)
    }

    /// WebKitGTK's order: the target first, then the probe refused (no note: it was ours),
    /// then a refused Target command, which is news.
    @Test func theProbeRefusedByATargetSocketIsNoNews() {
        var s = session()
        _ = s.opened(now: 0)
        _ = s.receive(text(Self.created), now: 1)
        #expect(s.receive(text(#"{"error":{"message":"'Runtime' domain was not found"},"id":2}"#), now: 2).isEmpty)
        guard case .note(let note)? = s.receive(text(Self.refusedTarget), now: 3).first else { Issue.record("no note"); return }
        #expect(note.contains("refused a Target command"))
    }

    /// Nothing is assumed: a socket that refuses the probe and names no target is never attached.
    @Test func aSocketThatSaysNothingStaysUndecided() {
        var s = session()
        _ = s.opened(now: 0)
        _ = s.receive(text(#"{"error":{"message":"no"},"id":2}"#), now: 1)
        #expect(s.tick(now: 60_000 * Self.ms).isEmpty)
        var silent = session()
        _ = silent.opened(now: 0)
        #expect(silent.tick(now: 60_000 * Self.ms).isEmpty)
    }

    // MARK: the WebView target's channel

    @Test func theChannelGoesDirectOnlyWhenThePageAnswersAndNamesNoTarget() throws {
        var channel = WebViewChannel(kind: .webkit)
        channel.opened(now: 0)
        let sent = channel.takeSends()
        #expect(sent.map(describe) == ["1 Target.setPauseOnStart", "2 Runtime.evaluate"])
        #expect(!channel.isReady && channel.command("Runtime.evaluate") == nil)
        // A page itself refuses the Target domain: no matter.
        #expect(channel.receive(text(#"{"error":{"code":-32601,"message":"'Target' domain was not found"},"id":1}"#)) == .ignored)
        #expect(channel.receive(text(#"{"result":{"result":{"type":"number","value":1}},"id":2}"#)) == .ignored)
        #expect(channel.tick(now: 499 * Self.ms) == nil)
        #expect(channel.tick(now: 500 * Self.ms) == .ready)
        #expect(channel.isReady && channel.tick(now: 600 * Self.ms) == nil)
        let command = channel.command("Runtime.evaluate", ["expression": "1"])
        let (id, bytes) = try #require(command)
        #expect(id == 1 && describe(bytes) == "3 Runtime.evaluate")   // the caller's id, the socket's
        guard case .answer(1, let result?, nil) = channel.receive(text(#"{"result":{"result":{"value":"x"}},"id":3}"#)) else {
            Issue.record("no answer"); return
        }
        #expect(result["result"]?.objectValue?["value"]?.stringValue == "x")
        guard case .event("Console.messageAdded", _) = channel.receive(console("hello")) else { Issue.record("no event"); return }
        #expect(channel.receive(text(#"{"method":"Inspector.targetCrashed","params":{}}"#)) == .gone("the page crashed"))
    }

    @Test func theChannelWrapsForATargetAndDevToolsNeedsNoProbe() throws {
        var channel = WebViewChannel(kind: .webkit)
        channel.opened(now: 0)
        #expect(channel.receive(text(Self.created)) == .ready)
        #expect(channel.receive(text(#"{"result":{"result":{"value":1}},"id":1}"#)) == .ignored)
        #expect(channel.tick(now: 10_000 * Self.ms) == nil)
        #expect(channel.command("Page.enable").map { describe($0.bytes) } == "wrapped 1 Page.enable")
        var cdp = WebViewChannel(kind: .cdp)
        cdp.opened(now: 0)
        #expect(cdp.takeSends().isEmpty && cdp.tick(now: 10_000 * Self.ms) == nil && cdp.isReady)
    }
}
