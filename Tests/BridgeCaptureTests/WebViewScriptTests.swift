@testable import BridgeDevTools
import BridgeJSON
import BridgeTestSupport
import BridgeTransport
import Foundation
import Testing

/// What a WebView target posts through a page's bridge, and what it judges
/// (``WebViewScript``, docs/WEBVIEW-TARGETS.md "What crosses, and what is judged"): the
/// JavaScript text, the decisions taken before and after it runs, and, in node standing in
/// for the page, what each shape carries. iOS posts `JSON.parse(text)` and is judged on
/// `JSON.stringify` of it; Android posts the text unchanged.
struct WebViewScriptTests {
    // MARK: the JavaScript text

    @Test func theExpressionsAsGenerated() {
        #expect(WebViewScript.post(#"{"a":1}"#, shape: .android)
                == #"(function (t) { window.GBGBridge.postMessage(t); return "s"; })("{\"a\":1}")"#)
        #expect(WebViewScript.post(#"{"a":1}"#, shape: .ios) == [
            #"(function (t) { function n(m) { m = String(m).slice(0, 300); var r = "n"; for (var i = 0; i < m.length; "#,
            #"i++) { var c = m.charCodeAt(i); "#,
            #"if (c >= 0xD800 && c <= 0xDBFF && i + 1 < m.length && (m.charCodeAt(i + 1) & 0xFC00) === 0xDC00) { "#,
            #"r += m.slice(i, i + 2); i++; } else { r += (c & 0xF800) === 0xD800 ? "\ufffd" : m.charAt(i); } } "#,
            #"return r; } var o, s; try { o = JSON.parse(t); } catch (e) { "#,
            #"return n(e instanceof SyntaxError ? "not JSON in JavaScript: " + e.message : "the page's JSON.parse could not take it: " + e); "#,
            #"} if (typeof o === "string") { "#,
            #"return "na string: how a host reads a posted string the protocol leaves open"; } try { "#,
            #"s = JSON.stringify(o); } catch (e) { return n("the page's JSON.stringify could not take it: " + e); } "#,
            #"try { window.webkit.messageHandlers.gbgBridge.postMessage(o); } catch (e) { "#,
            #"return n("the bridge refused the object: " + e); } return "s" + s; })("{\"a\":1}")"#
        ].joined())
    }

    /// The text goes into the expression as one JSON string literal (ES2019 made every
    /// JSON string a JavaScript one, U+2028 and U+2029 included): quotes and backslashes
    /// escaped, control characters as escapes, nothing else touched; `</script>` does not
    /// matter (the expression is evaluated, never put in HTML).
    @Test(arguments: [
        ("plain", #""plain""#),
        ("\"'`", #""\"'`""#),
        ("a\\b", #""a\\b""#),
        ("</script><!--", #""</script><!--""#),
        ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
        ("\u{0}\u{1F}\n\r\t\u{7F}", #""\u0000\u001f\n\r\t"# + "\u{7F}\""),
        ("');alert(1);('", #""');alert(1);('""#),
        ("😀é", "\"😀é\""),
    ])
    func theTextIsOneStringLiteral(_ text: String, _ literal: String) throws {
        #expect(WebViewScript.literal(text) == literal)
        #expect(try JSONParser().parse(Array(literal.utf8)).value.stringValue == text)
    }

    // MARK: the decisions

    /// Bytes that are not UTF-8 are not posted, in either shape (a JavaScript string
    /// cannot carry them): a stray byte, an overlong form, a surrogate encoded on its own
    /// (what a lone `\ud800` is in bytes), a cut sequence, a code point past U+10FFFF.
    @Test(arguments: [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x7B, 0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0x22, 0x80, 0x22]] as [[UInt8]])
    func bytesThatAreNotUTF8AreNotSent(_ bytes: [UInt8]) {
        for shape in [WebViewScript.Shape.ios, .android] {
            #expect(WebViewScript.posting(bytes, shape: shape) == .notSent("not UTF-8: a JavaScript string cannot carry it"))
        }
        #expect(WebViewScript.posting(Array("{}".utf8), shape: .ios) == .evaluate(WebViewScript.post("{}", shape: .ios)))
    }

    /// The page's answer: iOS is judged on the text the page stringified, Android on the
    /// bytes it was given; `n` is not sent; anything else is no answer of the expression.
    @Test func whatTheAnswerMeans() {
        let posted = Array(#"{"a":1,"a":2}"#.utf8)
        #expect(WebViewScript.outcome(#"s{"a":2}"#, posted: posted, shape: .ios) == .crossed(Array(#"{"a":2}"#.utf8)))
        #expect(WebViewScript.outcome("s", posted: posted, shape: .android) == .crossed(posted))
        #expect(WebViewScript.outcome(#"s{"a":2}"#, posted: posted, shape: .android) == .crossed(posted))
        #expect(WebViewScript.outcome("na string", posted: posted, shape: .ios) == .notSent("a string"))
        #expect(WebViewScript.outcome("n", posted: posted, shape: .ios) == .notSent(""))
        for answer in ["", "x", "S{}", " s{}", "\u{FEFF}s{}"] {
            #expect(WebViewScript.outcome(answer, posted: posted, shape: .ios) == nil, "\(answer)")
        }
    }

    /// No input crashes the decisions or the text: random bytes, mostly JSON-ish, either
    /// give "not UTF-8" or an expression whose literal reads back as the text.
    @Test func noInputCrashesThePosting() throws {
        var random = SplitMix64(seed: 2041)
        for round in 0..<3000 {
            let bytes = round % 3 == 0 ? random.bytes(Int(random.next() % 64)) : Self.hostileText(&random, length: Int(random.next() % 64)).utf8.map { $0 }
            for shape in [WebViewScript.Shape.ios, .android] {
                switch WebViewScript.posting(bytes, shape: shape) {
                case .notSent(let why):
                    #expect(String(validating: bytes, as: UTF8.self) == nil, "\(why)")
                case .evaluate(let expression):
                    let text = try #require(String(validating: bytes, as: UTF8.self))
                    #expect(expression == WebViewScript.post(text, shape: shape))
                    #expect(try JSONParser().parse(Array(WebViewScript.literal(text).utf8)).value.stringValue == text)
                case .evaluateInPieces:
                    Issue.record("short text in pieces")   // WebViewScriptPiecesTests has the long ones
                }
                _ = WebViewScript.outcome(String(decoding: bytes, as: UTF8.self), posted: bytes, shape: shape)
            }
        }
    }

    /// Text built from the characters that break quoting and JSON.
    static func hostileText(_ random: inout SplitMix64, length: Int) -> String {
        let pieces = ["{", "}", "[", "]", "\"", "\\", ":", ",", "1", "9007199254740993", "1e400", "-0", "\"a\"", "null",
                      "</script>", "\u{2028}", "\u{2029}", "\u{0}", "\n", "'", "`", "😀", "é", "\\ud800", "\\u0000", " ", "\u{FEFF}"]
        return (0..<length).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    // MARK: in a page (node)

    /// One post expression run in a fresh node context with a fake bridge of its shape.
    struct PageRun {
        var answer: String?
        var threw: String?
        /// iOS: `JSON.stringify` of each object posted; Android: whether each string posted was the text.
        var posted: [String]
    }

    /// Runs every `(text, shape)` in node, each in a context of its own; with
    /// `bridgeThrows`, the iOS bridge throws an error with a 1,000-character message
    /// starting with a lone surrogate.
    func runInNode(_ cases: [(String, WebViewScript.Shape)], bridgeThrows: Bool = false) throws -> [PageRun] {
        let dir = TestScratch.rootURL.appendingPathComponent("webview-script-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("cases-\(UUID().uuidString).json")
        let items = cases.map { text, shape in
            JSONValue.object(JSONObject([.init(key: "shape", value: .string(shape.rawValue)), .init(key: "text", value: .string(text)),
                                         .init(key: "expression", value: .string(WebViewScript.post(text, shape: shape)))]))
        }
        try Data(JSONWriter().bytes(.array(items))).write(to: file)
        let script = """
            var vm = require("vm"), fs = require("fs"), out = [];
            JSON.parse(fs.readFileSync(\(JSONWriter().string(.string(file.path))), "utf8")).forEach(function (c) {
              var posted = [], page = {};
              page.window = page;
              if (c.shape === "ios") { page.webkit = { messageHandlers: { gbgBridge: { postMessage: function (o) {
                \(bridgeThrows ? "throw new Error(\"\\ud83d\" + \"E\".repeat(999));" : "posted.push(JSON.stringify(o));") } } } }; }
              else { page.GBGBridge = { postMessage: function (s) { posted.push(String(s === c.text)); } }; }
              var run = { posted: posted };
              try { run.answer = vm.runInNewContext(c.expression, page); } catch (e) { run.threw = String(e); }
              out.push(run);
            });
            process.stdout.write(JSON.stringify(out));
            """
        let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "node"
        let r = try runProcess(URL(fileURLWithPath: node), ["-e", script])
        #expect(r.status == 0, "\(r.stderr)")
        let runs = try JSONParser(limits: JSONLimits(maxInputBytes: 64 << 20, maxDepth: 8, maxStringBytes: 64 << 20))
            .parse(Array(r.stdout.utf8)).value.arrayValue ?? []
        return runs.map { v in
            PageRun(answer: v["answer"]?.stringValue, threw: v["threw"]?.stringValue,
                    posted: v["posted"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }

    static let megabyte = #"{"big":""# + String(repeating: "x", count: 1 << 20) + #""}"#
    static let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)

    /// iOS: what is judged is what the posted object becomes, `JSON.stringify(JSON.parse(text))`;
    /// what cannot be posted as an object is not posted (and says why); nothing throws.
    @Test(.enabled(if: nodeEnabled, "node is not installed")) func iOSPostsTheParsedObjectAndIsJudgedOnItsText() throws {
        let cases: [(text: String, answer: String)] = [
            (#"{"a":1,"b":2,"a":3}"#, #"s{"a":3,"b":2}"#),                       // duplicate keys: the last value, the first place
            (#"{"n":9007199254740993}"#, #"s{"n":9007199254740992}"#),           // 2^53+1 is a double: 2^53
            (#"{"n":1e400,"m":-1e400}"#, #"s{"n":null,"m":null}"#),              // ±Infinity: null (as WebKit delivers it)
            (#"{"z":-0,"f":1.50,"e":1E2,"g":1e21}"#, #"s{"z":0,"f":1.5,"e":100,"g":1e+21}"#),
            (#" { "a" : [ 1 , "x" ] } "#, #"s{"a":[1,"x"]}"#),
            (#"{"b":1,"2":2,"1":3}"#, #"s{"1":3,"2":2,"b":1}"#),                 // integer keys first (order is not kept by WebKit anyway)
            (#"{"__proto__":{"x":1}}"#, #"s{"__proto__":{"x":1}}"#),
            (#"{"s":"\ud800"}"#, #"s{"s":"\ud800"}"#),                           // a lone surrogate crosses as an escape
            ("{\"s\":\"\u{2028}\u{2029}😀\"}", "s{\"s\":\"\u{2028}\u{2029}😀\"}"),
            (#"{"q":"\"'</script><!--","k":"\u0000"}"#, #"s{"q":"\"'</script><!--","k":"\u0000"}"#),
            ("null", "snull"),
            ("[]", "s[]"),
            (Self.megabyte, "s" + Self.megabyte),
        ]
        let runs = try runInNode(cases.map { ($0.text, .ios) })
        #expect(runs.count == cases.count)
        for (c, run) in zip(cases, runs) {
            #expect(run.threw == nil && run.answer == c.answer, "\(c.text.prefix(80)): \(run.answer?.prefix(80) ?? "nil") \(run.threw ?? "")")
            #expect(run.posted == [String(c.answer.dropFirst())], "what was posted stringifies to what is judged")
        }
        let refused: [(text: String, why: String)] = [
            (#""a JSON string""#, "na string: how a host reads a posted string the protocol leaves open"),
            ("not json", "nnot JSON in JavaScript: "),
            (#"{"a":1,}"#, "nnot JSON in JavaScript: "),
            ("\u{FEFF}{}", "nnot JSON in JavaScript: "),                          // a BOM is not JSON's white space
            ("", "nnot JSON in JavaScript: "),
            (Self.deep, "nthe page's JSON.stringify could not take it: RangeError"), // V8 parses 10,000 levels, cannot stringify them
        ]
        let refusedRuns = try runInNode(refused.map { ($0.text, .ios) })
        for (c, run) in zip(refused, refusedRuns) {
            #expect(run.threw == nil, "\(c.text.prefix(40)) threw in the page: \(run.threw ?? "")")
            #expect(run.answer?.hasPrefix(c.why) == true, "\(c.text.prefix(40)): \(run.answer ?? "nil")")
            #expect(run.posted.isEmpty, "nothing posted")
            if let answer = run.answer, case .notSent? = WebViewScript.outcome(answer, posted: Array(c.text.utf8), shape: .ios) {} else {
                Issue.record("\(c.text.prefix(40)) is not judged as not sent")
            }
        }
    }

    /// V8's message quotes a cut of the text that splits a surrogate pair: the reason stays
    /// well-formed (an inspector message with a lone surrogate would not parse, and the post
    /// would wait for its answer until the command times out; node's output here neither).
    @Test(.enabled(if: nodeEnabled, "node is not installed")) func aReasonThatSplitsASurrogatePairStaysWellFormed() throws {
        let text = "x" + String(repeating: "😀", count: 40)
        let run = try #require(try runInNode([(text, .ios)]).first)
        #expect(run.threw == nil && run.posted.isEmpty)
        #expect(run.answer?.hasPrefix("nnot JSON in JavaScript: Unexpected token 'x'") == true, "\(run.answer ?? "nil")")
        #expect(run.answer?.contains("\u{FFFD}") == true, "the split pair's half is replaced")
    }

    /// A bridge that refuses the object: not posted, and the reason is cut to 300 UTF-16
    /// units with its lone surrogates replaced.
    @Test(.enabled(if: nodeEnabled, "node is not installed")) func aRefusingBridgeIsNotSentWithAShortWellFormedReason() throws {
        let run = try #require(try runInNode([(#"{"a":1}"#, .ios)], bridgeThrows: true).first)
        #expect(run.threw == nil && run.posted.isEmpty)
        let answer = try #require(run.answer)
        #expect(answer.hasPrefix("nthe bridge refused the object: Error: \u{FFFD}EEE"), "\(answer.prefix(60))")
        #expect(answer.utf16.count == 1 + WebViewScript.maxReasonUnits)
    }

    /// Android: the string posted is the text, unchanged, whatever it holds.
    @Test(.enabled(if: nodeEnabled, "node is not installed")) func androidPostsTheTextUnchanged() throws {
        let texts = [#"{"a":1,"a":2}"#, "not json", "\"", "\\", "</script>", "\u{2028}\u{2029}", "\u{0}\r\n", "');alert(1);('",
                     #"{"n":9007199254740993}"#, "😀", "", Self.megabyte, Self.deep]
        let runs = try runInNode(texts.map { ($0, .android) })
        for (text, run) in zip(texts, runs) {
            #expect(run.threw == nil && run.answer == "s" && run.posted == ["true"], "\(text.prefix(40)): \(run)")
            #expect(WebViewScript.outcome(run.answer ?? "", posted: Array(text.utf8), shape: .android) == .crossed(Array(text.utf8)))
        }
    }

    /// Hostile text in both shapes: every answer is `s` or `n`, never an exception in
    /// the page; Android posts it unchanged; iOS posts only what it answers `s` for.
    @Test(.enabled(if: nodeEnabled, "node is not installed")) func noInputThrowsInThePage() throws {
        var random = SplitMix64(seed: 7)
        let texts = (0..<300).map { _ in Self.hostileText(&random, length: Int(random.next() % 48)) }
        let runs = try runInNode(texts.map { ($0, .ios) } + texts.map { ($0, .android) })
        #expect(runs.count == texts.count * 2)
        for (i, run) in runs.enumerated() {
            let text = texts[i % texts.count]
            #expect(run.threw == nil, "\(text) threw in the page: \(run.threw ?? "")")
            let answer = try #require(run.answer)
            let outcome = WebViewScript.outcome(answer, posted: Array(text.utf8), shape: i < texts.count ? .ios : .android)
            switch outcome {
            case .crossed(let bytes)?:
                #expect(run.posted == [i < texts.count ? String(decoding: bytes, as: UTF8.self) : "true"], "\(text)")
            case .notSent?:
                #expect(i < texts.count && run.posted.isEmpty, "\(text)")
            case nil:
                Issue.record("\(text): \(answer)")
            }
        }
    }
}
