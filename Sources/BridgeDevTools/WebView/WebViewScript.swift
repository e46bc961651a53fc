import BridgeJSON
import BridgeTransport

/// The JavaScript a WebView target evaluates in the page (docs/WEBVIEW-TARGETS.md): a
/// probe for the bridge's shape, a stand-in `GBGBridge.receive` where the page has none
/// (about:blank), the tap, and one expression per message posted.
enum WebViewScript {
    /// The page's bridge, as the probe finds it.
    enum Shape: String, Sendable, Equatable {
        /// `window.webkit.messageHandlers.gbgBridge.postMessage(object)`.
        case ios
        /// `window.GBGBridge.postMessage(string)`.
        case android
    }

    /// What the probe answers: a JSON object `{ready, href, shape, mark}`.
    struct Probe: Sendable, Equatable {
        var ready: Bool
        var href: String
        var shape: Shape?
        var mark: String
    }

    /// Evaluates to the probe's JSON text.
    static let probe = #"""
    (function () {
      var w = window, shape = "none";
      try {
        if (w.webkit && w.webkit.messageHandlers && w.webkit.messageHandlers.gbgBridge &&
            typeof w.webkit.messageHandlers.gbgBridge.postMessage === "function") { shape = "ios"; }
        else if (w.GBGBridge && typeof w.GBGBridge.postMessage === "function") { shape = "android"; }
      } catch (e) { shape = "none"; }
      var mark = w[Symbol.for("bridgescope.webview.mark")];
      return JSON.stringify({ ready: document.readyState === "complete", href: String(location.href), shape: shape,
                              mark: typeof mark === "string" ? mark : "" });
    })()
    """#

    /// Reads the probe's answer.
    static func probe(_ text: String) -> Probe? {
        guard case .object(let o)? = try? JSONParser().parse(Array(text.utf8)).value else { return nil }
        return Probe(ready: o["ready"]?.boolValue ?? false, href: o["href"]?.stringValue ?? "",
                     shape: o["shape"]?.stringValue.flatMap(Shape.init(rawValue:)), mark: o["mark"]?.stringValue ?? "")
    }

    /// Marks the current document with `token` (a reload's new document has no mark).
    static func mark(_ token: String) -> String {
        "(function () { window[Symbol.for(\"bridgescope.webview.mark\")] = " + literal(token) + "; return \"marked\"; })()"
    }

    /// Makes sure `window.GBGBridge.receive` exists (a page without the SDK's bootstrap,
    /// such as about:blank, has none, and a host's `window.GBGBridge.receive(...)` would
    /// throw), so the tap can take what the host sends.
    static let receiver = #"""
    (function () {
      var w = window;
      if (!w.GBGBridge || (typeof w.GBGBridge !== "object" && typeof w.GBGBridge !== "function")) { w.GBGBridge = {}; }
      if (typeof w.GBGBridge.receive !== "function") { w.GBGBridge.receive = function () {}; }
      return "ready";
    })()
    """#

    /// Whether the tap is in the document.
    static let tapPresent = "!!globalThis[Symbol.for(\"bridgescope.tap\")]"

    /// What posting `bytes` in `shape` takes: the expression to evaluate in the page
    /// (``post(_:shape:)``), or why nothing can be posted (bytes that are not UTF-8: a
    /// JavaScript string cannot carry them).
    static func posting(_ bytes: [UInt8], shape: Shape) -> Posting {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .notSent("not UTF-8: a JavaScript string cannot carry it")
        }
        guard text.unicodeScalars.count > maxPieceScalars else { return .evaluate(post(text, shape: shape)) }
        return .evaluateInPieces(pieces(text), post(argument: "(function (w, k) { var p = w[k]; delete w[k]; "
            + "return p.join(\"\"); })(window, " + pieceStash + ")", shape: shape))
    }

    /// Either an expression to evaluate, or expressions that leave the text in the page in
    /// pieces and then the one that posts it, or why nothing is posted.
    enum Posting: Sendable, Equatable {
        case evaluate(String)
        case evaluateInPieces([String], String)
        case notSent(String)
    }

    /// Text longer than this many Unicode scalars goes to the page in pieces: WebKit's
    /// inspector server closes the socket on a message over 128 KiB (libsoup's default
    /// limit; measured on WebKitGTK 2.50.6: a 100,213-byte command answered, a 131,213-byte
    /// one closed the connection), and one scalar can take 8 bytes once quoted three times
    /// (in the expression, in the command, in the wrapping: `"`, `\`, a control character).
    static let maxPieceScalars = 12_000

    /// Where the pieces wait in the page (a symbol-keyed global the page does not see by name).
    static let pieceStash = "Symbol.for(\"bridgescope.webview.pieces\")"

    /// Expressions that leave `text` in the page in order, each a piece of at most
    /// ``maxPieceScalars`` scalars (never splitting one); the first starts a new list.
    static func pieces(_ text: String) -> [String] {
        var out: [String] = []
        var scalars = text.unicodeScalars[...]
        while !scalars.isEmpty {
            let piece = String(String.UnicodeScalarView(scalars.prefix(maxPieceScalars)))
            scalars = scalars.dropFirst(maxPieceScalars)
            out.append(out.isEmpty
                ? "(window[" + pieceStash + "] = [" + literal(piece) + "]).length"
                : "window[" + pieceStash + "].push(" + literal(piece) + ")")
        }
        return out
    }

    /// Posts `text` through the bridge in `shape`, as a journey would, and evaluates to
    /// `s` + what crossed, or `n` + why nothing was posted. iOS: the page's object is
    /// `JSON.parse(text)` (so duplicate keys keep their last value and numbers are
    /// doubles: what crossed is `JSON.stringify` of it); text that does not parse is not
    /// posted, nor a JSON string (one host reads a posted string as the JSON text it holds,
    /// another as a string: PROTOCOL.md §7 leaves it open, so no verdict could rest on it),
    /// nor an object the page cannot stringify or WebKit refuses (JSON.parse takes arrays
    /// nested 10,000 deep that V8's JSON.stringify throws on). Android: the string, as it is.
    ///
    /// The answer is always well-formed text: `JSON.stringify` escapes a lone surrogate,
    /// and a reason (an engine's message quotes a cut of the text, which can split a
    /// surrogate pair) is cut to ``maxReasonUnits`` and has its lone surrogates replaced
    /// by U+FFFD. An inspector message holding a lone surrogate would not parse, and the
    /// post would wait for an answer that never comes.
    static func post(_ text: String, shape: Shape) -> String {
        post(argument: literal(text), shape: shape)
    }

    /// ``post(_:shape:)`` with the text given by a JavaScript expression.
    static func post(argument: String, shape: Shape) -> String {
        switch shape {
        case .ios:
            return "(function (t) { function n(m) { m = String(m).slice(0, \(maxReasonUnits)); var r = \"n\"; "
                + "for (var i = 0; i < m.length; i++) { var c = m.charCodeAt(i); "
                + "if (c >= 0xD800 && c <= 0xDBFF && i + 1 < m.length && (m.charCodeAt(i + 1) & 0xFC00) === 0xDC00) { r += m.slice(i, i + 2); i++; } "
                + "else { r += (c & 0xF800) === 0xD800 ? \"\\ufffd\" : m.charAt(i); } } return r; } "
                + "var o, s; try { o = JSON.parse(t); } catch (e) { return n(e instanceof SyntaxError ? "
                + "\"not JSON in JavaScript: \" + e.message : \"the page's JSON.parse could not take it: \" + e); } "
                + "if (typeof o === \"string\") { return \"na string: how a host reads a posted string the protocol leaves open\"; } "
                + "try { s = JSON.stringify(o); } catch (e) { return n(\"the page's JSON.stringify could not take it: \" + e); } "
                + "try { window.webkit.messageHandlers.gbgBridge.postMessage(o); } catch (e) { return n(\"the bridge refused the object: \" + e); } "
                + "return \"s\" + s; })(" + argument + ")"
        case .android:
            return "(function (t) { window.GBGBridge.postMessage(t); return \"s\"; })(" + argument + ")"
        }
    }

    /// The longest reason the page gives for not posting: 300 UTF-16 units.
    static let maxReasonUnits = 300

    /// What the page's answer to ``post(_:shape:)`` means for `bytes` posted in `shape`:
    /// what crossed (iOS: the text after `s`; Android: the bytes as they were), or why
    /// nothing was posted; nil for an answer the expression never gives.
    static func outcome(_ answer: String, posted bytes: [UInt8], shape: Shape) -> PagePost? {
        var rest = answer.utf8[...]
        switch rest.popFirst() {
        case UInt8(ascii: "s"): return .crossed(shape == .android ? bytes : Array(rest))
        case UInt8(ascii: "n"): return .notSent(String(decoding: rest, as: UTF8.self))
        default: return nil
        }
    }

    /// `text` as a JavaScript string literal (a JSON string is one).
    static func literal(_ text: String) -> String {
        var out: [UInt8] = []
        JSONWriter.writeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
