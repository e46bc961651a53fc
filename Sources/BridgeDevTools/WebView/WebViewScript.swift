import BridgeJSON

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

    /// Posts `text` through the bridge in `shape`, as a journey would, and evaluates to
    /// `s` + what crossed, or `n` + why nothing was posted. iOS: the page's object is
    /// `JSON.parse(text)` (so duplicate keys keep their last value and numbers are
    /// doubles: what crossed is `JSON.stringify` of it); text that does not parse is not
    /// posted, nor a JSON string (one host reads a posted string as the JSON text it holds,
    /// another as a string: PROTOCOL.md §7 leaves it open, so no verdict could rest on it). Android: the string, as it is.
    static func post(_ text: String, shape: Shape) -> String {
        switch shape {
        case .ios:
            return "(function (t) { var o; try { o = JSON.parse(t); } catch (e) { return \"nnot JSON in JavaScript: \" + e.message; } "
                + "if (typeof o === \"string\") { return \"na string: how a host reads a posted string the protocol leaves open\"; } "
                + "var s = JSON.stringify(o); window.webkit.messageHandlers.gbgBridge.postMessage(o); return \"s\" + s; })("
                + literal(text) + ")"
        case .android:
            return "(function (t) { window.GBGBridge.postMessage(t); return \"s\"; })(" + literal(text) + ")"
        }
    }

    /// `text` as a JavaScript string literal (a JSON string is one).
    static func literal(_ text: String) -> String {
        var out: [UInt8] = []
        JSONWriter.writeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
