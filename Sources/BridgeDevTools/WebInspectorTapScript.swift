/// The JavaScript `record --webkit` puts in a page (docs/CDP.md, "WebKit"): the tap
/// (tools/taps/js/bridge-tap.js) on its own, then a glue that configures it to send its
/// lines out through the console, the only channel out of a page WebKit's inspector
/// offers (no `Runtime.addBinding`).
///
/// The glue batches the lines of one page task (one `console.debug` per task, at its end,
/// like the DevTools binding), each message
/// `PREFIX DOC SEQ top|frame "HREF"\n` + the lines joined by LF: `PREFIX` is random per
/// recorder (a page cannot guess it), `DOC` random per document, `SEQ` counts the
/// document's messages from 1 (so no two are identical, which WebKit would merge into a
/// repeat count, and a lost one shows), `HREF` the document's URL as a JSON string.
///
/// **One owner of the tap.** A document has one tap (it guards itself) with one sink. The
/// glue takes the sink and wraps `BridgeScopeTap.configure`: an app's or page's own later
/// `configure({onLine})` (bridgescope-webkit --record, the iOS recipe of docs/TAP.md) gets
/// the same lines too, its `conn` and `keepSensitiveFields` apply to both, and it gets the
/// tap header it would have had. A document whose tap was configured before the recorder
/// came (the recorder attached to a page already running with its own tap) is left alone:
/// the evaluation answers `present` and that document is not recorded. A document whose
/// tap a previous `record --webkit` configured is handed to this one (`redirected`).
package enum WebInspectorTapScript {
    /// What the evaluation in the current document answers: the tap is now recording.
    package static let installed = "installed"
    /// Another tap owned the document already; nothing changed.
    package static let present = "present"
    /// A previous recorder's tap now sends to this recorder.
    package static let redirected = "redirected"

    /// The script for `Page.setBootstrapScript` (every later document, before its first
    /// script) and for `Runtime.evaluate` in the current document: both the same.
    package static func script(tapSource: String, prefix: String) -> String {
        "(function () {\nvar __had = !!globalThis[Symbol.for(\"bridgescope.tap\")];\n" + tapSource + "\n;return ("
            + glue + ")(globalThis, __had, \"" + prefix + "\");\n})();"
    }

    static let glue = #"""
    function (root, had, prefix) {
      "use strict";
      var HOOK = Symbol.for("bridgescope.webinspector");
      var tap = root.BridgeScopeTap;
      if (!tap || typeof tap.configure !== "function") { return "no tap"; }
      var apply = Function.prototype.call.bind(Function.prototype.apply);
      var stringify = JSON.stringify, now = Date.now, random = Math.random;
      if (typeof tap[HOOK] === "function") { return tap[HOOK](prefix) ? "redirected" : "installed"; }
      if (had) { return "present"; }
      var con = root.console, debug = con && con.debug;
      var seq = 0, batch = [], other = null;
      var token = function () { return random().toString(36).slice(2, 12) || "0"; };
      var doc = token();
      var top; try { top = root.top === root; } catch (e) { top = false; }
      var flush = function () {
        var lines = batch;
        batch = [];
        seq += 1;
        var href = ""; try { href = String(root.location.href); } catch (e) { /* ignore */ }
        try { apply(debug, con, [prefix + " " + doc + " " + seq + " " + (top ? "top" : "frame") + " " + stringify(href) + "\n" + lines.join("\n")]); } catch (e) { /* ignore */ }
      };
      var later = typeof queueMicrotask === "function" ? queueMicrotask : function (f) { Promise.resolve().then(f); };
      var mine = function (line) { batch.push(line); if (batch.length === 1) { later(flush); } };
      var sink = function (line) {
        mine(line);
        if (other) { try { other(line); } catch (e) { /* a failing sink never breaks the page */ } }
      };
      var header = function (redacted) {
        return "{\"t\":" + now() + ",\"event\":\"tap\",\"tap\":\"js\",\"version\":1,\"seq\":1,\"first\":true,\"redacted\":" + redacted + "}";
      };
      var configure = tap.configure;
      apply(configure, tap, [{ onLine: sink, keepSensitiveFields: true }]);
      tap.configure = function (options) {
        options = options || {};
        var o = { onLine: sink, keepSensitiveFields: options.keepSensitiveFields };
        if (typeof options.conn === "string") { o.conn = options.conn; }
        if (typeof options.onLine === "function") {
          var first = other === null;
          other = options.onLine;
          if (first) { try { other(header(options.keepSensitiveFields !== true)); } catch (e) { /* ignore */ } }
        }
        return apply(configure, tap, [o]);
      };
      try {
        Object.defineProperty(tap, HOOK, { enumerable: false, configurable: true, value: function (p) {
          if (p === prefix) { return false; }
          prefix = p; seq = 0; doc = token(); mine(header(false));
          return true;
        } });
      } catch (e) { /* ignore */ }
      return "installed";
    }
    """#
}
