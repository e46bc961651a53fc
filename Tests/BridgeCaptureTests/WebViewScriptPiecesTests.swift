@testable import BridgeDevTools
import BridgeJSON
import BridgeTestSupport
import Foundation
import Testing

/// A long message goes to the page in pieces: WebKit's inspector server closes the socket
/// on a message over 128 KiB (a 1 MB correlationId of emoji ended a fuzz run through
/// `webkit:` as "the inspector connection closed", a false `crash`, in a clean-clone
/// `make test`). Every command stays under the limit once wrapped, and the page posts
/// exactly what one expression would have posted.
struct WebViewScriptPiecesTests {
    static func texts() -> [String] {
        var random = SplitMix64(seed: 128)
        let hostile = (0..<40_000).map { _ in WebViewScriptTests.hostileText(&random, length: 1) }.joined()
        return [
            #"{"version":"1.0","correlationId":""# + String(repeating: "😀", count: 300_000)
                + #"","type":"request","timestamp":1,"payload":{"action":"capability.query"}}"#,
            #"{"version":"1.0","correlationId":"c","type":"request","timestamp":1,"payload":{"action":"a.b","data":{"s":""#
                + String(repeating: "\u{1}\"\\", count: 40_000) + #""}}}"#,
            hostile,
        ]
    }

    @Test func everyPieceFitsUnderTheInspectorsLimit() throws {
        for text in Self.texts() {
            for shape in [WebViewScript.Shape.ios, .android] {
                guard case .evaluateInPieces(let parts, let final) = WebViewScript.posting(Array(text.utf8), shape: shape) else {
                    Issue.record("\(text.prefix(30)): not in pieces"); continue
                }
                #expect(parts.count > 1)
                var wire = WebInspectorTargets()
                for expression in parts + [final] {
                    let bytes = wire.wrap("page-7", "Runtime.evaluate", ["expression": .string(expression), "returnByValue": true]).bytes
                    #expect(bytes.count < 120_000, "\(bytes.count) bytes")
                }
            }
        }
        // Short text stays one expression.
        #expect(WebViewScript.posting(Array("{}".utf8), shape: .ios) == .evaluate(WebViewScript.post("{}", shape: .ios)))
    }

    @Test(.enabled(if: nodeEnabled, "node is not installed")) func thePagePostsWhatOneExpressionWould() throws {
        var items: [JSONValue] = []
        for text in Self.texts() {
            for shape in [WebViewScript.Shape.ios, .android] {
                guard case .evaluateInPieces(let parts, let final) = WebViewScript.posting(Array(text.utf8), shape: shape) else { continue }
                items.append(.object(JSONObject([
                    .init(key: "shape", value: .string(shape.rawValue)),
                    .init(key: "whole", value: .array([.string(WebViewScript.post(text, shape: shape))])),
                    .init(key: "pieces", value: .array((parts + [final]).map { .string($0) })),
                ])))
            }
        }
        let dir = TestScratch.rootURL.appendingPathComponent("webview-pieces-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("cases.json")
        try Data(JSONWriter().bytes(.array(items))).write(to: file)
        // Each list of expressions in a fresh context with a stand-in bridge: the answer of
        // the last, and what was posted (iOS: JSON.stringify of the object; Android: the string).
        let script = """
            var vm = require("vm"), fs = require("fs"), same = [];
            function run(shape, expressions) {
              var posted = [], page = {}, answer;
              page.window = page;
              if (shape === "ios") { page.webkit = { messageHandlers: { gbgBridge: { postMessage: function (o) { posted.push(JSON.stringify(o)); } } } }; }
              else { page.GBGBridge = { postMessage: function (s) { posted.push(s); } }; }
              expressions.forEach(function (e) { answer = vm.runInNewContext(e, page); });
              return JSON.stringify([answer, posted, Object.getOwnPropertySymbols(page).map(function (k) { return page[k]; })]);
            }
            JSON.parse(fs.readFileSync(\(JSONWriter().string(.string(file.path))), "utf8")).forEach(function (c) {
              var a = run(c.shape, c.whole), b = run(c.shape, c.pieces);
              same.push(a === b ? "same" : "differs: " + a.slice(0, 200) + " / " + b.slice(0, 200));
            });
            process.stdout.write(same.join("\\n"));
            """
        let r = try runProcess(URL(fileURLWithPath: RequiredTools.node ?? "node"), ["-e", script])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 6 && lines.allSatisfy { $0 == "same" }, "\(r.stdout.prefix(2000))")
    }

    /// The tap itself goes to WebKit in one command (`Page.setBootstrapScript`, and the
    /// evaluation in the current document): it must stay under the same limit.
    @Test func theTapFitsInOneInspectorCommand() throws {
        let source = try String(contentsOf: ProjectPaths.root.appendingPathComponent("tools/taps/js/bridge-tap.js"), encoding: .utf8)
        let script = WebInspectorTapScript.script(tapSource: source, prefix: "__bridgescope_tap_0123456789abc")
        var wire = WebInspectorTargets()
        let bytes = wire.wrap("page-7", "Page.setBootstrapScript", ["source": .string(script)]).bytes
        #expect(bytes.count < 120_000, "\(bytes.count) bytes: WebKit's inspector closes the socket past 128 KiB")
    }
}
