import BridgeArchive
import BridgeCapture
import BridgeDevTools
import BridgeJSON
import BridgeTestSupport
import Foundation
import Testing

/// `record --webkit`'s pure parts, without WebKit: the inspector's HTML page list, the
/// Target wrapping and unwrapping, and the session (console lines in, records out).
struct WebKitRecordInspectorTests {
    func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// The page list WebKitGTK 2.50.6 serves at `/` (captured from bridgescope-webkit
    /// --inspector, styles cut), with a second target added.
    static let realList = #"""
        <html><head><title>Remote inspector</title><meta http-equiv="Content-Type" content="text/html; charset=utf-8" /><style>  td.input { width: 64px; }</style></head><body><h1>Inspectable targets</h1><div id='targetlist'><table><tbody><tr><td class="data"><div class="targetname">Bridge shapes (recorder test page)</div><div class="targeturl">http://127.0.0.1:18765/shapes.html?delay=15000&amp;wrap=1</div></td><td class="input"><input type="button" value="Inspect" onclick="window.open('Main.html?ws=' + window.location.host + '/socket/1/1/WebPage', '_blank', 'location=no,menubar=no,status=no,toolbar=no');"></td></tr><tr><td class="data"><div class="targetname">Second &lt;tab&gt; &#233;</div><div class="targeturl">about:blank</div></td><td class="input"><input type="button" value="Inspect" onclick="window.open('Main.html?ws=' + window.location.host + '/socket/1/12/WebPage', '_blank');"></td></tr></tbody></table></div></body></html>
        """#

    // MARK: the page list

    @Test func pageListOfTheRealServer() {
        let list = WebInspectorPageList(html: text(Self.realList))
        #expect(list.pages == [
            .init(socketPath: "/socket/1/1/WebPage", title: "Bridge shapes (recorder test page)",
                  url: "http://127.0.0.1:18765/shapes.html?delay=15000&wrap=1"),
            .init(socketPath: "/socket/1/12/WebPage", title: "Second <tab> é", url: "about:blank"),
        ])
    }

    @Test(arguments: [
        "",                                                      // empty
        "<html><body><h1>Inspectable targets</h1></body></html>", // no target
        "/socket/1/x/WebPage /socket//1/WebPage /socket/1/1/Web", // not numbers, truncated
        "/socket/12345678901/1/WebPage",                           // over 10 digits
        "\u{0}\u{FF}/socket/",                                     // binary and a cut marker
    ])
    func pageListWithoutSockets(_ html: String) {
        #expect(WebInspectorPageList(html: text(html)).pages.isEmpty)
    }

    @Test func pageListToleratesMissingCellsAndDuplicates() {
        let html = "<p>/socket/3/4/WebPage</p><div class='targeturl'>http://x/?a=1&bogus;</div>'/socket/3/5/WebPage' /socket/3/4/WebPage"
        let list = WebInspectorPageList(html: text(html))
        #expect(list.pages == [
            .init(socketPath: "/socket/3/4/WebPage", title: "", url: ""),
            .init(socketPath: "/socket/3/5/WebPage", title: "", url: "http://x/?a=1&bogus;"),
        ])
    }

    // MARK: Target wrapping

    @Test func wrapsCommandsForATarget() throws {
        var wire = WebInspectorTargets()
        let (inner, bytes) = wire.wrap("page-7", "Console.enable")
        #expect(inner == 1)
        #expect(String(decoding: bytes, as: UTF8.self)
                == #"{"id":1,"method":"Target.sendMessageToTarget","params":{"targetId":"page-7","message":"{\"id\":1,\"method\":\"Console.enable\",\"params\":{}}"}}"#)
        #expect(wire.wrap("page-7", "Page.enable").innerId == 2)
        #expect(wire.wrap("page-8", "Page.enable").innerId == 1)   // inner ids count per target
        #expect(wire.outer("Target.resume", ["targetId": "page-8"]).id == 4)
    }

    @Test func unwrapsWhatTargetsSend() {
        var wire = WebInspectorTargets()
        #expect(wire.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-7","type":"page"}}}"#))
                == .created(.init(id: "page-7", type: "page", provisional: false, paused: false)))
        guard case .fromTarget("page-7", let o) = wire.receive(text(#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-7","message":"{\"result\":{},\"id\":2}"}}"#)) else {
            Issue.record("not unwrapped"); return
        }
        #expect(o["id"]?.numberValue?.lexeme == "2")
        #expect(wire.receive(text(#"{"result":{},"id":3}"#)) == .answer(id: 3, error: nil))
        #expect(wire.receive(text(#"{"error":{"message":"'Runtime' domain was not found"},"id":4}"#))
                == .answer(id: 4, error: "'Runtime' domain was not found"))
        #expect(wire.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-9","type":"page","isProvisional":true,"isPaused":true}}}"#))
                == .created(.init(id: "page-9", type: "page", provisional: true, paused: true)))
        #expect(wire.receive(text(#"{"method":"Target.didCommitProvisionalTarget","params":{"oldTargetId":"page-7","newTargetId":"page-9"}}"#))
                == .committed(old: "page-7", new: "page-9"))
        #expect(wire.known.keys.sorted() == ["page-9"])
        #expect(wire.receive(text(#"{"method":"Target.targetDestroyed","params":{"targetId":"page-9"}}"#)) == .destroyed("page-9"))
        #expect(wire.receive(text(#"{"method":"Target.targetDestroyed","params":{"targetId":"page-9"}}"#)) == .ignored)
        #expect(wire.receive(text(#"{"method":"Inspector.somethingElse","params":{}}"#)) == .ignored)
    }

    @Test(arguments: [
        (#"not json"#, "not JSON"),
        (#"[1,2]"#, "array, not an object"),
        (#"{"params":{}}"#, "without id or method"),
        (#"{"method":"Target.targetCreated","params":{"targetInfo":{"type":"page"}}}"#, "without a targetInfo.targetId"),
        (#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"ghost","message":"{}"}}"#, "ghost, which was never created"),
        (#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-1","message":"{oops"}}"#, "target page-1 sent a message that is not JSON"),
        (#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-1","message":"7"}}"#, "target page-1 sent a number"),
        (#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-1","message":{}}}"#, "without a targetId and a message string"),
        (#"{"method":"Target.didCommitProvisionalTarget","params":{}}"#, "without a newTargetId"),
    ])
    func malformedMessagesAreReported(_ input: String, _ expected: String) {
        var wire = WebInspectorTargets()
        _ = wire.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-1","type":"page"}}}"#))
        guard case .malformed(let reason) = wire.receive(text(input)) else { Issue.record("accepted \(input)"); return }
        #expect(reason.contains(expected), "\(reason)")
    }

    @Test func oversizedMessagesAreRefusedAtTheLimit() {
        var wire = WebInspectorTargets(maxMessageBytes: 120)
        _ = wire.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"p","type":"page"}}}"#))
        let big = "{\"method\":\"X\",\"params\":{\"pad\":\"" + String(repeating: "a", count: 200) + "\"}}"
        guard case .malformed(let reason) = wire.receive(text(big)) else { Issue.record("accepted"); return }
        #expect(reason.contains("over the 120-byte limit"), "\(reason)")
        // The inner text is checked on its own: the outer fits, the inner does not.
        var inner = WebInspectorTargets(maxMessageBytes: 160)
        _ = inner.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"p","type":"page"}}}"#))
        #expect(WebInspectorTargets.defaultMaxMessageBytes == 256 << 20)
    }

    // MARK: the session

    let prefix = "__bridgescope_tap_test"

    func session() -> WebInspectorSession {
        WebInspectorSession(page: 1, pageURL: "http://a/j.html", tapSource: "/* bridgescope tap */", prefix: prefix)
    }

    /// The method of every command sent, the inner one for wrapped commands.
    func methods(_ actions: [WebInspectorSession.Action]) -> [String] {
        actions.compactMap { action in
            guard case .send(let bytes) = action, case .object(let o)? = try? JSONParser().parse(bytes).value,
                  let method = o["method"]?.stringValue else { return nil }
            guard method == "Target.sendMessageToTarget", let m = o["params"]?.objectValue?["message"]?.stringValue,
                  case .object(let inner)? = try? JSONParser().parse(Array(m.utf8)).value else { return method }
            return inner["method"]?.stringValue
        }
    }

    func events(_ actions: [WebInspectorSession.Action]) -> [ArchiveEvent] {
        actions.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
    }

    func records(_ actions: [WebInspectorSession.Action]) -> [(String, String)] {
        actions.compactMap { if case .record(_, _, let c, let p) = $0 { return (c, String(decoding: p, as: UTF8.self)) } else { return nil } }
    }

    @Test func pastTheTargetCapAPageTargetIsResumedUnrecorded() {
        var s = session()
        s.maxTargets = 1
        _ = s.opened(now: 0)
        let first = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-1","type":"page","isPaused":true}}}"#), now: 1)
        #expect(methods(first).contains("Page.setBootstrapScript"))
        let second = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-2","type":"page","isPaused":true}}}"#), now: 2)
        #expect(methods(second) == ["Target.resume"])
        #expect(events(second).map(\.kind) == [.drop])
    }

    /// A console message from target `target` carrying `body` as its text.
    func console(_ body: String, target: String = "page-1") -> [UInt8] {
        let inner = String(decoding: JSONWriter().bytes(["method": "Console.messageAdded",
                                                         "params": ["message": ["source": "console-api", "level": "debug",
                                                                                "text": .string(body)]]]), as: UTF8.self)
        return JSONWriter().bytes(["method": "Target.dispatchMessageFromTarget",
                                   "params": ["targetId": .string(target), "message": .string(inner)]])
    }

    func tapMessage(doc: String = "d0c", seq: Int, top: Bool = true, _ lines: [String]) -> String {
        "\(prefix) \(doc) \(seq) \(top ? "top" : "frame") \"http://a/j.html\"\n" + lines.joined(separator: "\n")
    }

    static let header = #"{"t":1,"event":"tap","tap":"js","version":1,"seq":1,"first":true,"redacted":false}"#
    static let request = #"{"t":1700000000000,"dir":"w2h","msg":{"version":"1.0","type":"request"}}"#
    static let answer = #"{"t":1700000000001,"dir":"h2w","msg":{"type":"response","a":[1, 2]}}"#

    func attached() -> WebInspectorSession {
        var s = session()
        _ = s.opened(now: 0)
        _ = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-1","type":"page"}}}"#), now: 1)
        return s
    }

    @Test func attachingInstallsTheTapBeforeThePage() {
        var s = session()
        #expect(methods(s.opened(now: 0)) == ["Target.setPauseOnStart", "Runtime.evaluate"])
        let actions = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-1","type":"page"}}}"#), now: 1)
        #expect(methods(actions) == ["Console.enable", "Page.enable", "Page.setBootstrapScript", "Runtime.evaluate"])
    }

    @Test func aPausedProvisionalTargetResumesOnlyOnceTheTapIsSet() {
        var s = attached()
        let created = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-2","type":"page","isProvisional":true,"isPaused":true}}}"#), now: 2)
        #expect(methods(created) == ["Console.enable", "Page.enable", "Page.setBootstrapScript"])
        let enabled = s.receive(text(#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-2","message":"{\"result\":{},\"id\":1}"}}"#), now: 3)
        #expect(methods(enabled).isEmpty)
        let set = s.receive(text(#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-2","message":"{\"result\":{},\"id\":3}"}}"#), now: 4)
        #expect(methods(set) == ["Target.resume"])
        // A paused target of another type is let go at once.
        let worker = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"w-1","type":"worker","isPaused":true}}}"#), now: 5)
        #expect(methods(worker) == ["Target.resume"])
    }

    @Test func tapLinesBecomeRecordsOfTheDocument() {
        var s = attached()
        let first = s.receive(console(tapMessage(seq: 1, [Self.header])), now: 2)
        #expect(events(first).map(\.kind) == [.open])
        #expect(events(first).first?.connection == "p1.t1.d1")
        #expect(events(first).first?.reason == "page http://a/j.html (target page-1, document d0c)")
        let second = s.receive(console(tapMessage(seq: 2, [Self.request, Self.answer])), now: 3)
        #expect(records(second).map(\.0) == ["p1.t1.d1", "p1.t1.d1"])
        #expect(records(second).map(\.1) == [#"{"version":"1.0","type":"request"}"#, #"{"type":"response","a":[1, 2]}"#])
        // The page's own console, and other prefixes, are not the tap's.
        #expect(s.receive(console("hello " + Self.request), now: 4).isEmpty)
        #expect(s.receive(console(prefix + "x 1 top \"\"\n" + Self.request), now: 4).isEmpty)
        // A new top document replaces the old one; an iframe's document opens beside it.
        let next = s.receive(console(tapMessage(doc: "e1", seq: 1, [Self.request])), now: 5)
        #expect(events(next).map { "\($0.kind) \($0.connection ?? "")" } == ["close p1.t1.d1", "open p1.t1.d2"])
        #expect(events(next).first?.reason == "documents replaced (navigation or reload): http://a/j.html")
        let frame = s.receive(console(tapMessage(doc: "f1", seq: 1, top: false, [Self.request])), now: 6)
        #expect(events(frame).map { "\($0.kind) \($0.connection ?? "")" } == ["open p1.t1.d3"])
        #expect(records(frame).map(\.0) == ["p1.t1.d3"])
        let end = s.finish(now: 7)
        #expect(events(end).map { "\($0.kind) \($0.connection ?? "")" } == ["close p1.t1.d2", "close p1.t1.d3"])
    }

    @Test func lostRepeatedAndBadConsoleMessagesAreErrors() {
        var s = attached()
        _ = s.receive(console(tapMessage(seq: 1, [Self.header])), now: 2)
        let gap = s.receive(console(tapMessage(seq: 4, [Self.request])), now: 3)
        #expect(events(gap).map { $0.reason ?? "" } == ["the tap's console messages 2...3 never arrived: not recorded"])
        #expect(records(gap).count == 1)
        let again = s.receive(console(tapMessage(seq: 4, [Self.request])), now: 4)
        #expect(events(again).map(\.kind) == [.error])
        #expect(records(again).isEmpty)
        let badHeader = s.receive(console(prefix + " d0c five top \"\"\n" + Self.request), now: 5)
        #expect(events(badHeader).first?.reason?.contains("not its header") == true)
        let badLine = s.receive(console(tapMessage(seq: 5, ["{not json", Self.request, #"{"t":1,"event":"gap","bytes":3}"#])), now: 6)
        #expect(events(badLine).map(\.kind) == [.error, .error])
        #expect(records(badLine).count == 1)
        let crossing = s.receive(console(tapMessage(seq: 6, [#"{"t":1700000000000,"dir":"w2h","msg":{"a":1},"crossing":{"delivered":false,"changes":["payload.data.f: a function; WebKit does not deliver a message that holds one"]}}"#])), now: 7)
        #expect(events(crossing).map(\.kind) == [.crossing])
        #expect(records(crossing).map(\.1) == [#"{"a":1}"#])
        #expect(events(crossing).first?.connection == "p1.t1.d1")
    }

    @Test func targetsGoingAwayCloseTheirDocuments() {
        var s = attached()
        _ = s.receive(console(tapMessage(seq: 1, [Self.header])), now: 2)
        _ = s.receive(text(#"{"method":"Target.targetCreated","params":{"targetInfo":{"targetId":"page-2","type":"page","isProvisional":true}}}"#), now: 3)
        let commit = s.receive(text(#"{"method":"Target.didCommitProvisionalTarget","params":{"oldTargetId":"page-1","newTargetId":"page-2"}}"#), now: 4)
        #expect(events(commit).map { "\($0.kind) \($0.connection ?? "") \($0.reason ?? "")" }
                == ["close p1.t1.d1 documents replaced (navigation to another process): http://a/j.html"])
        let opened = s.receive(console(tapMessage(doc: "n", seq: 1, [Self.header]), target: "page-2"), now: 5)
        #expect(events(opened).first?.connection == "p1.t2.d1")
        // Messages from the replaced target are refused.
        #expect(events(s.receive(console(tapMessage(seq: 2, [Self.request])), now: 6)).first?.reason?.contains("never created") == true)
        let gone = s.closed(reason: "inspector connection closed (EOF)", now: 7)
        #expect(events(gone).map { $0.reason ?? "" } == ["inspector connection closed (EOF): http://a/j.html"])
    }

    @Test func refusedTapInstallationIsAnError() {
        var s = attached()
        let refused = s.receive(text(#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-1","message":"{\"error\":{\"message\":\"'Page' domain was not found\"},\"id\":3}"}}"#), now: 2)
        #expect(events(refused).map { $0.reason ?? "" } == ["WebKit's inspector at http://a/j.html refused installing the tap (bootstrap script): 'Page' domain was not found"])
        let present = s.receive(text(#"{"method":"Target.dispatchMessageFromTarget","params":{"targetId":"page-1","message":"{\"result\":{\"result\":{\"type\":\"string\",\"value\":\"present\"}},\"id\":4}"}}"#), now: 3)
        guard case .note(let note)? = present.first else { Issue.record("no note"); return }
        #expect(note.contains("has a tap of its own"))
    }

    // MARK: the page's script (in node)

    /// The recorder's script in a page (node standing in for it): it installs and configures
    /// the tap; the app's later `configure` gets every line too, with its header; the console
    /// carries the same lines; the script run again answers `installed` (same recorder),
    /// `redirected` (another recorder), and `present` on a page whose own tap came first.
    @Test(.enabled(if: nodeEnabled, "node is not installed")) func theScriptSharesTheTapWithTheApp() throws {
        let dir = TestScratch.rootURL.appendingPathComponent("webinspector-script-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tapSource = try String(contentsOf: ProjectPaths.root.appendingPathComponent("tools/taps/js/bridge-tap.js"), encoding: .utf8)
        let first = dir.appendingPathComponent("first.js"), second = dir.appendingPathComponent("second.js")
        try WebInspectorTapScript.script(tapSource: tapSource, prefix: "P1").write(to: first, atomically: true, encoding: .utf8)
        try WebInspectorTapScript.script(tapSource: tapSource, prefix: "P2").write(to: second, atomically: true, encoding: .utf8)
        func run(_ body: String) throws -> JSONValue {
            let script = """
                globalThis.window = globalThis; globalThis.top = globalThis;
                var vm = require("vm"), fs = require("fs"), out = { console: [], app: [], answers: [] };
                var print = console.log.bind(console);
                console.debug = function (t) { out.console.push(t); };
                function evaluate(path) { out.answers.push(vm.runInThisContext(fs.readFileSync(path, "utf8"))); }
                \(body)
                setTimeout(function () { print(JSON.stringify(out)); }, 20);
                """
            let r = try runProcess(URL(fileURLWithPath: RequiredTools.node ?? "/usr/bin/node"), ["-e", script])
            #expect(r.status == 0, "\(r.stderr)")
            return try JSONParser().parse(Array(r.stdout.utf8)).value
        }
        let shared = try run("""
            evaluate(\(JSONWriter().string(.string(first.path))));
            BridgeScopeTap.configure({ conn: "webview-1", keepSensitiveFields: true, onLine: function (l) { out.app.push(l); } });
            window.webkit = { messageHandlers: { gbgBridge: { postMessage: function () {} } } };
            webkit.messageHandlers.gbgBridge.postMessage({ version: "1.0", correlationId: "a", type: "request", payload: { action: "x", data: { imageData: "AAAA" } } });
            webkit.messageHandlers.gbgBridge.postMessage({ version: "1.0", correlationId: "b", type: "request", payload: { action: "y" } });
            evaluate(\(JSONWriter().string(.string(first.path))));
            setTimeout(function () { evaluate(\(JSONWriter().string(.string(second.path)))); }, 5);
            """)
        #expect(shared["answers"]?.arrayValue?.compactMap(\.stringValue) == ["installed", "installed", "redirected"])
        let app = shared["app"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let consoleTexts = shared["console"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(app.count == 3, "\(app)")
        #expect(app.first?.contains(#""event":"tap""#) == true && app.first?.contains(#""redacted":false"#) == true)
        #expect(consoleTexts.count == 2, "\(consoleTexts)")
        // One console message per task: the tap's header and both posts (one task), then
        // the new recorder's header.
        let bodies = consoleTexts.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        #expect(bodies.first?.first?.hasPrefix("P1 ") == true && bodies.first?.first?.hasSuffix(#" 1 top """#) == true, "\(bodies)")
        #expect(bodies.first?.dropFirst().first?.contains(#""event":"tap""#) == true)
        #expect(Array(bodies.first?.dropFirst(2) ?? []) == Array(app.dropFirst()), "the console lines are the app's lines")
        #expect(app[1].contains(#""imageData":"AAAA""#), "the app's keepSensitiveFields applies")
        #expect(bodies.last?.first?.hasPrefix("P2 ") == true && bodies.last?.first?.contains(" 1 top ") == true)
        let present = try run("""
            require(\(JSONWriter().string(.string(ProjectPaths.root.appendingPathComponent("tools/taps/js/bridge-tap.js").path))));
            BridgeScopeTap.configure({ onLine: function (l) { out.app.push(l); } });
            evaluate(\(JSONWriter().string(.string(first.path))));
            """)
        #expect(present["answers"]?.arrayValue?.compactMap(\.stringValue) == ["present"])
        #expect(present["console"]?.arrayValue?.isEmpty == true)
    }
}
