import BridgeArchive
import BridgeCapture
import BridgeJSON
import BridgeTestSupport
import Foundation
import Testing

/// node is installed, or `make test` requires it (BRIDGESCOPE_REQUIRE_BROWSER): the tests
/// that run it then fail without it, rather than skip.
let nodeEnabled = RequiredTools.nodeEnabled

/// tools/taps/js/bridge-tap.js used on its own (issue 19's JavaScript part): lines in the
/// tap-log format, private by default with the same fields and markers as `record --redact`.
@Suite(.enabled(if: nodeEnabled, "node is not installed (apt-get install nodejs)"))
struct JavaScriptTapTests {
    let tap = ProjectPaths.root.appendingPathComponent("tools/taps/js/bridge-tap.js").path

    /// Runs `body` in node after loading the tap; returns what it prints.
    func node(_ body: String) throws -> String {
        let script = "globalThis.window = globalThis; require(\(JSONWriter().string(.string(tap))));\n" + body
        let r = try runProcess(URL(fileURLWithPath: RequiredTools.node ?? "/usr/bin/node"), ["-e", script])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout
    }

    @Test func theSensitiveFieldsAreTheRecordersList() throws {
        let out = try node("console.log(JSON.stringify(BridgeScopeTap.sensitiveFields));")
        let parsed = try JSONParser().parse(out.trimmingCharacters(in: .whitespacesAndNewlines)).value
        #expect(Set(parsed.arrayValue?.compactMap(\.stringValue) ?? []) == Redactor.sensitiveFields)
    }

    /// Each message as the page sent it and the line the tap wrote, iOS (object) and
    /// Android (string) shapes: the line holds exactly what Redactor makes of the message.
    @Test func standaloneLinesAreRedactedLikeTheRecorder() throws {
        let out = try node(#"""
        var lines = [];
        BridgeScopeTap.configure({ onLine: function (l) { lines.push(l); }, conn: "webview-1" });
        window.webkit = { messageHandlers: { gbgBridge: { postMessage: function () {} } } };
        window.GBGBridge = { postMessage: function () {}, receive: function () {} };
        var sent = [
          { version: "1.0", correlationId: "r1", type: "response", timestamp: 1700000000000,
            payload: { action: "camera.document.capture", status: "success",
                       data: { imageData: "iVBORw0KGgo=", width: 2, nested: [{ photo: { a: 1 } }, { photo: null }], note: "caf\u00e9 \u2028" } } },
          { version: "1.0", correlationId: "r2", type: "request", timestamp: 1700000000001, payload: { action: "capability.query" } }
        ];
        webkit.messageHandlers.gbgBridge.postMessage(sent[0]);
        webkit.messageHandlers.gbgBridge.postMessage(sent[1]);
        var texts = ['{"version":"1.0","type":"response","payload":{"data":{"encryptedBlob":"QUJD"}}}',
                     'not json but mentions unencryptedBlob', 'not json, nothing sensitive'];
        texts.forEach(function (t) { GBGBridge.postMessage(t); });
        GBGBridge.receive({ type: "event", payload: { data: { previewImageData: "x" } } });
        console.log(JSON.stringify({ originals: sent.map(function (o) { return JSON.stringify(o); }).concat(texts)
          .concat([JSON.stringify({ type: "event", payload: { data: { previewImageData: "x" } } })]), lines: lines }));
        """#)
        let doc = try JSONParser().parse(out.trimmingCharacters(in: .whitespacesAndNewlines)).value
        let originals = doc["originals"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let lines = doc["lines"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(originals.count == 6 && lines.count == 7)
        var parser = TapLogParser()
        var entries = parser.feed(Array((lines.joined(separator: "\n") + "\n").utf8))
        // The first line is the tap's header (docs/TAP.md §1).
        guard case .event(let header)? = entries.first, header.fileSequence == 1, header.firstFile else {
            Issue.record("no header line: \(lines.first ?? "")")
            return
        }
        entries.removeFirst()
        let redactor = Redactor()
        for (i, entry) in entries.enumerated() {
            guard case .message(let m) = entry else { Issue.record("line \(i + 1) not a message: \(entry)"); continue }
            #expect(m.connection == "webview-1")
            let expected = redactor.redact(Array(originals[i].utf8)).bytes
            #expect(String(decoding: m.payload, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "message \(i + 1)")
        }
        #expect(lines[1].contains(#""imageData":{"redacted":true,"sha256":""#))
        #expect(!lines.joined().contains("iVBORw0KGgo="), "an image left the page")
    }

    @Test func keepingSensitiveFieldsIsAnExplicitOption() throws {
        let out = try node(#"""
        var lines = [];
        BridgeScopeTap.configure({ onLine: function (l) { lines.push(l); }, keepSensitiveFields: true });
        window.GBGBridge = { postMessage: function () {} };
        GBGBridge.postMessage('{"payload":{"data":{"photo":"QUJD"}}}');
        console.log(lines[1]);
        """#)
        #expect(out.contains(#""text":"{\"payload\":{\"data\":{\"photo\":\"QUJD\"}}}""#), "\(out)")
    }

    /// Lines before `configure` are kept and handed over; a page wrapping postMessage
    /// itself, a bridge defined before the tap, exceptions and `this` pass through.
    @Test func callsPassThroughAndAreRecordedOnce() throws {
        let out = try node(#"""
        // GBGBridge existed before the tap was loaded? Define it after instead; then the page wraps it.
        var got = [];
        window.GBGBridge = { postMessage: function (s) { got.push([this === window.GBGBridge, s]); return "r" + s.length; } };
        var orig = GBGBridge.postMessage;
        GBGBridge.postMessage = function (s) { return orig.call(this, s + "!"); };
        var ret = GBGBridge.postMessage("abc");
        GBGBridge.receive = function () { throw new RangeError("no"); };
        var threw = "";
        try { GBGBridge.receive({ a: 1 }); } catch (e) { threw = e.name + ":" + e.message; }
        var lines = [];
        BridgeScopeTap.configure({ onLine: function (l) { lines.push(l); } });
        console.log(JSON.stringify({ ret: ret, got: got, threw: threw, lines: lines.slice(1).map(function (l) { var o = JSON.parse(l); return o.dir + " " + (o.text || JSON.stringify(o.msg)); }) }));
        """#)
        #expect(out.contains(#""ret":"r4""#), "\(out)")
        #expect(out.contains(#""got":[[true,"abc!"]]"#), "\(out)")
        #expect(out.contains(#""threw":"RangeError:no""#), "\(out)")
        // Recorded once, as it reached the bridge (the page's wrapper added "!").
        #expect(out.contains(#""lines":["w2h abc!","h2w {\"a\":1}"]"#), "\(out)")
    }
}
