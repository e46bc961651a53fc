/*
 * bridgescope JavaScript tap: records every message that crosses the GBGBridge bridge in
 * a page, as tap-log lines (docs/FORMAT.md §9), without changing what the page sees.
 *
 * Two ways to use it (docs/CDP.md):
 *
 * 1. Injected by `bridgescope record --cdp` before any page script (the recorder wraps
 *    this file as `(function (tapConfig) { <this file> })({binding: NAME})`); lines go
 *    to the recorder over the CDP binding NAME, which the tap takes and removes from
 *    the page's global object. The recorder redacts (`--redact`), not the tap.
 *
 * 2. Included by a page on its own, as its first script:
 *      <script src="bridge-tap.js"></script>
 *      <script>BridgeScopeTap.configure({ onLine: function (line) { ... }, conn: "webview-1" });</script>
 *    Each line (a string without the newline) goes to `onLine`; the first is the tap's
 *    header (docs/TAP.md §1). Lines written before `configure` are kept (at most 10,000,
 *    then counted and reported by a drop line). Image and biometric fields are REPLACED
 *    by {"redacted":true,"sha256":HEX,"bytes":N} exactly as docs/TAP.md §2 says (the rule
 *    of TapRedactor in Sources/BridgeTap, which `record --redact` runs), unless the page
 *    passes `keepSensitiveFields: true`. Unpaired surrogates become U+FFFD.
 *
 * What is recorded, whenever and in whatever order the host or the page defines it:
 *   web → host  window.webkit.messageHandlers.gbgBridge.postMessage(object)   "msg"
 *               (what WebKit hands the app: webkitConvert below; plus "crossing"
 *               when that differs from what the page posted)
 *               window.GBGBridge.postMessage(jsonString)                       "text"
 *               a `message` event a frame receives from one of its child frames
 *   host → web  window.GBGBridge.receive(object | string)
 *               a `message` event a frame receives from its parent frame
 * (an iframe-shape message is recorded where it arrives: only the receiver's realm can
 * observe a cross-origin postMessage). Every call passes through unchanged: same
 * arguments, same `this`, same return value, same exception. A page that wraps or
 * replaces the bridge functions itself is recorded once per crossing: of nested bridge
 * calls in one direction, web → host records the innermost (what reaches the host) and
 * host → web the outermost (what the host passed).
 */
(function (root, config) {
  "use strict";
  if (!root || typeof root !== "object" && typeof root !== "function") { return; }
  var INSTALLED = typeof Symbol === "function" ? Symbol.for("bridgescope.tap") : "__bridgescopeTapInstalled";
  if (root[INSTALLED]) { return; }
  try { Object.defineProperty(root, INSTALLED, { value: true, enumerable: false, configurable: false }); } catch (e) { return; }

  // The sensitive field names (PROTOCOL.md §6): a copy of TapRedactor.sensitiveFields
  // (Sources/BridgeTap/TapRedactor.swift) that a test compares with it.
  var SENSITIVE_FIELDS = ["imageData", "previewImageData", "encryptedBlob", "unencryptedBlob", "photo"];
  var MAX_PENDING = 10000;

  var stringify = JSON.stringify, parse = JSON.parse, now = Date.now;
  var defineProperty = Object.defineProperty, getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  var apply = Function.prototype.call.bind(Function.prototype.apply);
  var hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
  var isArray = Array.isArray;

  // ---- where lines go -------------------------------------------------------------
  var sink = null;            // function (line)
  var redact = true;
  var conn = null;
  var pending = [];
  var dropped = 0;

  if (config && typeof config.binding === "string") {
    // The recorder's binding: taken and removed from the global object. On some new
    // targets DevTools installs it after this script ran: a setter catches it, and
    // lines wait (bounded) until it is there.
    var bindingName = config.binding, binding = null;
    var grab = function () {
      if (binding) { return true; }
      var b;
      try { b = root[bindingName]; } catch (e) { b = undefined; }
      if (typeof b !== "function") { return false; }
      binding = b;
      try { delete root[bindingName]; } catch (e) { /* not configurable: leave it */ }
      return true;
    };
    if (!grab()) {
      try {
        defineProperty(root, bindingName, {
          configurable: true, enumerable: false,
          get: function () { return undefined; },
          set: function (v) { if (typeof v === "function") { binding = v; try { delete root[bindingName]; } catch (e) { /* ignore */ } } }
        });
      } catch (e) { /* ignore */ }
      if (typeof setTimeout === "function") { setTimeout(grab, 0); }
    }
    // Lines of one task go to the recorder in one binding call, joined by LF (a JSON
    // text never holds a raw LF), at the end of the task: one DevTools event instead of
    // one per message.
    var batch = [];
    var flush = function () {
      var lines = batch;
      batch = [];
      if (!grab()) {
        for (var i = 0; i < lines.length; i++) {
          if (pending.length < MAX_PENDING) { pending.push(lines[i]); } else { dropped += 1; }
        }
        return;
      }
      if (pending.length) { lines = pending.splice(0).concat(lines); }
      apply(binding, undefined, [lines.join("\n")]);
    };
    var later = typeof queueMicrotask === "function" ? queueMicrotask
      : function (f) { Promise.resolve().then(f); };
    sink = function (line) {
      batch.push(line);
      if (batch.length === 1) { later(flush); }
    };
    redact = false;
  }

  var dropFirst = 0, dropLast = 0, dropBytes = 0, dropConn = null;
  function emit(line) {
    if (sink) {
      try { sink(line); } catch (e) { /* a failing sink never breaks the page */ }
    } else if (pending.length < MAX_PENDING) {
      pending.push(line);
    } else {
      if (dropped === 0) { dropFirst = now(); dropConn = conn; }
      dropLast = now();
      dropped += 1;
      dropBytes += utf8(line).length;
    }
  }
  // The drop line of docs/TAP.md §1 for what the pending buffer could not keep.
  function dropLine() {
    return "{\"t\":" + dropFirst + ",\"event\":\"drop\"" + (dropConn !== null ? ",\"conn\":" + stringify(dropConn) : "") +
      ",\"count\":" + dropped + ",\"bytes\":" + dropBytes + ",\"reason\":" + stringify("tap queue full: " + dropped + " messages (" +
      dropBytes + " bytes) from " + dropFirst + " to " + dropLast + " not recorded") + "}";
  }

  // ---- redaction (standalone mode): docs/TAP.md §2, the same steps as TapRedactor ----
  // Replaces unpaired UTF-16 surrogates by U+FFFD (what any UTF-8 reader gets).
  function wellFormed(s) {
    var out = null;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0xD800 || c > 0xDFFF) { continue; }
      if (c <= 0xDBFF && i + 1 < s.length) {
        var d = s.charCodeAt(i + 1);
        if (d >= 0xDC00 && d <= 0xDFFF) { i++; continue; }
      }
      if (out === null) { out = s.split(""); }
      out[i] = "\ufffd";
    }
    return out === null ? s : out.join("");
  }
  var MARKER = /^\{"redacted":true,"sha256":"[0-9a-f]{64}","bytes":(0|[1-9][0-9]*)\}$/;
  function compact(v) {           // a valid JSON value without whitespace outside strings
    var out = "", inString = false, escaped = false;
    for (var i = 0; i < v.length; i++) {
      var c = v.charAt(i);
      if (inString) {
        if (escaped) { escaped = false; } else if (c === "\\") { escaped = true; } else if (c === "\"") { inString = false; }
        out += c;
      } else if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") {
        if (c === "\"") { inString = true; }
        out += c;
      }
    }
    return out;
  }
  function marker(content) {      // content: UTF-8 bytes
    return "{\"redacted\":true,\"sha256\":\"" + sha256Hex(content) + "\",\"bytes\":" + content.length + "}";
  }
  // The strict scanner: returns the values to replace, or null when the text is not JSON.
  function scan(t) {
    var i = 0, n = t.length, reps = [];
    function ws() { while (i < n) { var c = t.charCodeAt(i); if (c === 32 || c === 9 || c === 10 || c === 13) { i++; } else { return; } } }
    function fail() { throw scan; }
    function hex4(j) {
      if (j + 4 > n) { fail(); }
      var h = t.substr(j, 4);
      if (!/^[0-9a-fA-F]{4}$/.test(h)) { fail(); }
      return parseInt(h, 16);
    }
    function str() {             // at the opening quote; returns the unescaped string
      i++;
      var out = "", run = i;
      while (i < n) {
        var c = t.charCodeAt(i);
        if (c === 34) { out += t.slice(run, i); i++; return out; }
        if (c === 92) {
          out += t.slice(run, i);
          var e = t.charAt(i + 1);
          var simple = { "\"": "\"", "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }[e];
          if (i + 1 >= n) { fail(); }
          if (simple !== undefined && e !== "u") { out += simple; i += 2; run = i; continue; }
          if (e !== "u") { fail(); }
          var u = hex4(i + 2);
          i += 6;
          if (u >= 0xDC00 && u <= 0xDFFF) { fail(); }
          if (u >= 0xD800 && u <= 0xDBFF) {
            if (t.charAt(i) !== "\\" || t.charAt(i + 1) !== "u") { fail(); }
            var lo = hex4(i + 2);
            if (lo < 0xDC00 || lo > 0xDFFF) { fail(); }
            i += 6;
            out += String.fromCharCode(u, lo);
          } else {
            out += String.fromCharCode(u);
          }
          run = i;
          continue;
        }
        if (c < 0x20) { fail(); }
        i++;
      }
      fail();
    }
    function num() {
      var m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(t.slice(i, i + 400));
      if (!m || m[0].length === 0) { fail(); }
      if (m[0].length === 400) {  // a very long number: scan it by hand
        var j = i;
        if (t.charAt(j) === "-") { j++; }
        while (j < n && /[0-9.eE+-]/.test(t.charAt(j))) { j++; }
        var whole = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.exec(t.slice(i, j));
        if (!whole) { fail(); }
        i = j;
        return;
      }
      i += m[0].length;
    }
    // place: 0 top, 1 payload object, 2 data, 3 other
    function value(place, depth) {
      if (i >= n) { fail(); }
      var c = t.charAt(i);
      if (c === "{") { object(place, depth); } else if (c === "[") { array(place, depth); } else if (c === "\"") { str(); }
      else if (t.substr(i, 4) === "true" || t.substr(i, 4) === "null") { i += 4; } else if (t.substr(i, 5) === "false") { i += 5; }
      else { num(); }
    }
    function object(place, depth) {
      if (depth > 64) { fail(); }
      i++; ws();
      if (t.charAt(i) === "}") { i++; return; }
      for (;;) {
        if (t.charAt(i) !== "\"") { fail(); }
        var key = str();
        ws();
        if (t.charAt(i) !== ":") { fail(); }
        i++; ws();
        var start = i;
        if (place === 0) { value(key === "payload" ? 1 : 3, depth + 1); }
        else if (place === 1) { value(key === "data" ? 2 : 3, depth + 1); }
        else if (place === 2 && SENSITIVE_FIELDS.indexOf(key) >= 0 && t.substr(start, 4) !== "null") {
          value(3, depth + 1);
          var raw = t.slice(start, i), content;
          if (raw.charAt(0) === "\"") {
            var save = i; i = start; content = utf8(str()); i = save;
            reps.push([start, i, content]);
          } else {
            var compacted = compact(raw);
            if (!MARKER.test(compacted)) { reps.push([start, i, utf8(compacted)]); }
          }
        } else { value(place === 2 ? 2 : 3, depth + 1); }
        ws();
        var d = t.charAt(i);
        if (d === ",") { i++; ws(); continue; }
        if (d !== "}") { fail(); }
        i++;
        return;
      }
    }
    function array(place, depth) {
      if (depth > 64) { fail(); }
      i++; ws();
      if (t.charAt(i) === "]") { i++; return; }
      for (;;) {
        value(place === 2 ? 2 : 3, depth + 1);
        ws();
        var d = t.charAt(i);
        if (d === ",") { i++; ws(); continue; }
        if (d !== "]") { fail(); }
        i++;
        return;
      }
    }
    try {
      ws(); value(0, 1); ws();
      if (i !== n) { fail(); }
    } catch (e) {
      if (e === scan) { return null; }
      throw e;
    }
    return reps;
  }
  // Redacts a message text (already well-formed UTF-16); returns the text to record.
  function redactText(text) {
    if (!redact) { return text; }
    var reps = scan(text);
    if (reps === null) {
      for (var k = 0; k < SENSITIVE_FIELDS.length; k++) {
        if (text.indexOf(SENSITIVE_FIELDS[k]) >= 0) { return marker(utf8(text)); }
      }
      return text;
    }
    if (reps.length === 0) { return text; }
    var out = "", from = 0;
    for (var r = 0; r < reps.length; r++) {
      out += text.slice(from, reps[r][0]) + marker(reps[r][2]);
      from = reps[r][1];
    }
    return out + text.slice(from);
  }

  // ---- webkit-convert begin ----
  // webkitConvert(value): what the native side of a WKWebView receives when a page calls
  // window.webkit.messageHandlers.gbgBridge.postMessage(value). WebKit structured-clones
  // the value and the app reads a JSON-like copy of the clone. Returns
  //   { delivered: false when WebKit silently drops the whole message (no exception),
  //     value:     the JSON-able copy the app gets; with delivered false, the same
  //                conversion as far as it goes (what stops delivery left out or null),
  //                so a record of the attempt keeps its correlation id,
  //     changes:   ["<path from the message root>: <what the page had>, <what arrives>"] }
  // A change names paths and kinds, never a value. Key order is not kept by WebKit and is
  // never reported. MEASURED: seen on WebKitGTK 2.50.6 (native side jsc_value_to_json).
  // GUESS: not measured yet (structured clone, then a JSON-like reading); each rule is one
  // commented case below, easy to change. Never throws; bounded by the limits below.
  // This block is byte-identical in tools/journey/bridge.js and tools/taps/js/bridge-tap.js
  // (tools/taps/js/test/ compares them): change both.
  var webkitConvert = (function () {
    var DEPTH_LIMIT = 64;        // containers nested deeper: not converted (the tap's JSON rule)
    var VALUE_LIMIT = 1000000;   // values (members, elements, holes) converted per message
    var CHANGE_LIMIT = 100;      // changes listed per message; the rest are counted
    var STOPS = "; WebKit does not deliver a message that holds one";
    var DROP = {};               // a member that vanishes
    var MEMBER = 1, ELEMENT = 2, ROOT = 3;
    var bindCall = Function.prototype.bind.bind(Function.prototype.call);
    function uncurry(f) { return typeof f === "function" ? bindCall(f) : null; }
    function getterOf(proto, name) {
      try { var d = proto && Object.getOwnPropertyDescriptor(proto, name); return d ? uncurry(d.get) : null; } catch (e) { return null; }
    }
    function methodOf(ctor, name) { return typeof ctor === "function" && ctor.prototype ? uncurry(ctor.prototype[name]) : null; }
    var G = typeof globalThis !== "undefined" ? globalThis : typeof window !== "undefined" ? window : {};
    var keysOf = Object.keys, getProto = Object.getPrototypeOf, defProp = Object.defineProperty, isArr = Array.isArray;
    var quote = JSON.stringify, fromCharCode = String.fromCharCode;
    var hasOwn = uncurry(Object.prototype.hasOwnProperty), toTag = uncurry(Object.prototype.toString);
    var charCodeAt = uncurry(String.prototype.charCodeAt), isWellFormed = methodOf(String, "isWellFormed");
    var dateTime = methodOf(Date, "getTime"), dateISO = methodOf(Date, "toISOString");
    var numberValue = methodOf(Number, "valueOf"), booleanValue = methodOf(Boolean, "valueOf");
    var stringValue = methodOf(String, "valueOf"), bigintValue = methodOf(G.BigInt, "valueOf");
    var symbolValue = methodOf(G.Symbol, "valueOf");
    var mapSize = getterOf(G.Map && G.Map.prototype, "size"), setSize = getterOf(G.Set && G.Set.prototype, "size");
    var typedArrayProto = G.Uint8Array ? getProto(G.Uint8Array.prototype) : null;
    var typedName = G.Symbol && G.Symbol.toStringTag ? getterOf(typedArrayProto, G.Symbol.toStringTag) : null;
    var typedLength = getterOf(typedArrayProto, "length");
    var dataViewLength = getterOf(G.DataView && G.DataView.prototype, "byteLength");
    var bufferLength = getterOf(G.ArrayBuffer && G.ArrayBuffer.prototype, "byteLength");
    var sharedLength = getterOf(G.SharedArrayBuffer && G.SharedArrayBuffer.prototype, "byteLength");
    var regExpSource = getterOf(G.RegExp && G.RegExp.prototype, "source");
    // Objects structured clone refuses (DataCloneError): like a function (GUESS).
    var NOT_CLONEABLE = { Promise: 1, WeakMap: 1, WeakSet: 1, WeakRef: 1, FinalizationRegistry: 1, Generator: 1,
      AsyncGenerator: 1, Window: 1, global: 1, Document: 1, HTMLDocument: 1, Text: 1, Comment: 1 };
    function is(brand, v) { if (!brand) { return false; } try { brand(v); return true; } catch (e) { return false; } }
    function article(name) { return ("AEIO".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name; }
    function wellFormed(s) {
      if (isWellFormed) { return isWellFormed(s); }
      for (var i = 0; i < s.length; i++) {
        var c = charCodeAt(s, i);
        if (c < 0xD800 || c > 0xDFFF) { continue; }
        if (c > 0xDBFF || i + 1 >= s.length) { return false; }
        var d = charCodeAt(s, i + 1);
        if (d < 0xDC00 || d > 0xDFFF) { return false; }
        i++;
      }
      return true;
    }
    function replaceSurrogates(s) {
      var out = "", run = 0;
      for (var i = 0; i < s.length; i++) {
        var c = charCodeAt(s, i);
        if (c < 0xD800 || c > 0xDFFF) { continue; }
        if (c <= 0xDBFF && i + 1 < s.length) {
          var d = charCodeAt(s, i + 1);
          if (d >= 0xDC00 && d <= 0xDFFF) { i++; continue; }
        }
        out += s.slice(run, i) + "\ufffd";
        run = i + 1;
      }
      return out + s.slice(run);
    }
    function isIdentifier(k) {
      if (k.length === 0) { return false; }
      for (var i = 0; i < k.length; i++) {
        var c = charCodeAt(k, i);
        var letter = c >= 65 && c <= 90 || c >= 97 && c <= 122 || c === 95 || c === 36;
        if (!letter && !(i > 0 && c >= 48 && c <= 57)) { return false; }
      }
      return true;
    }
    // A place in the message: its container's place `up` (null: the message itself) and
    // its key there (a member name, an element's index as a number; null for the
    // message). The text is only built for a change: payload.data.list[2], a["b c"], "".
    function pathOf(up, key) {
      var text = "";
      for (; key !== null; key = up.key, up = up.up) {
        if (typeof key === "number") { text = "[" + key + "]" + text; }
        else if (!isIdentifier(key)) { text = "[" + quote(key) + "]" + text; }
        else { text = "." + key + text; }
      }
      return text.charAt(0) === "." ? text.slice(1) : text;
    }

    return function webkitConvert(input) {
      var delivered = true, changes = [], unlisted = 0, budget = VALUE_LIMIT, overBudget = false;
      var ancestors = [], places = [], top = 0;   // the containers being converted, outermost first
      function note(up, key, text, stops) {
        if (stops) { delivered = false; }
        if (changes.length >= CHANGE_LIMIT) { unlisted += 1; return; }
        var path = pathOf(up, key);
        changes[changes.length] = (path === "" ? "(message)" : path) + ": " + text;
      }
      // What vanishes: an object member is left out; an array element or the message: null.
      function gone(where) { return where === MEMBER ? DROP : null; }
      function vanish(up, key, where, what) {    // undefined, BigInt
        note(up, key, what + (where === MEMBER ? ", the member was dropped" : ", became null"));
        return gone(where);
      }
      function refuse(up, key, where, what) {    // function, Symbol, ...: the message is not delivered
        note(up, key, what + STOPS, true);
        return gone(where);
      }
      function threw(up, key, where) {
        note(up, key, "reading it threw an exception; WebKit does not deliver the message", true);
        return gone(where);
      }

      function convert(v, up, key, depth, where) {
        if (budget <= 0) {
          if (!overBudget) {
            overBudget = true;
            note(null, null, "holds more than " + VALUE_LIMIT + " values; not converted further, the message is treated as not delivered", true);
          }
          return gone(where);
        }
        budget -= 1;
        var t = typeof v;
        if (v === null || t === "boolean") { return v; }
        if (t === "string") { return string(v, up, key); }
        if (t === "number") { return number(v, up, key); }
        // undefined: a member vanishes (MEASURED); in an array or as the message: null (GUESS)
        if (t === "undefined") { return vanish(up, key, where, "undefined"); }
        // BigInt: a member vanishes (MEASURED); in an array or as the message: null (GUESS)
        if (t === "bigint") { return vanish(up, key, where, "a BigInt"); }
        // a function anywhere: the message is never delivered, no exception (MEASURED)
        if (t === "function") { return refuse(up, key, where, "a function"); }
        // a Symbol: DataCloneError like a function (GUESS, as the brief says)
        if (t === "symbol") { return refuse(up, key, where, "a Symbol"); }
        if (t !== "object") { return refuse(up, key, where, "a value of type " + t); }
        return object(v, up, key, depth, where);
      }

      // Strings cross as they are: U+2028, emoji, \u0000, "</script>" (MEASURED), and an
      // unpaired surrogate too: the native side's JSON holds it as a \udXXX escape
      // (MEASURED). (A tap line still replaces it by U+FFFD, as every tap line does.)
      function string(s, up, key) {
        return s;
      }
      function number(n, up, key) {
        // NaN and Infinity: null (MEASURED)
        if (n !== n) { note(up, key, "NaN, became null"); return null; }
        if (n === Infinity || n === -Infinity) { note(up, key, (n > 0 ? "Infinity" : "-Infinity") + ", became null"); return null; }
        // -0: 0 (MEASURED)
        if (n === 0 && 1 / n < 0) { note(up, key, "-0, became 0"); return 0; }
        // 2^53+1 arrives as 2^53 (MEASURED): a JS number cannot hold it, nothing to do here
        return n;
      }

      function object(v, up, key, depth, where) {
        // Deeper than the tap's JSON rules: not converted (bridgescope's limit, not WebKit's)
        if (depth > DEPTH_LIMIT) {
          note(up, key, "nested deeper than " + DEPTH_LIMIT + " levels; not converted, the message is treated as not delivered", true);
          return null;
        }
        // A cycle: structured clone keeps it, JSON cannot hold it (GUESS: not delivered)
        for (var i = 0; i < top; i++) {
          if (ancestors[i] === v) {
            var back = pathOf(places[i].up, places[i].key);
            note(up, key, "a cycle (it refers back to " + (back === "" ? "(message)" : back) +
              "); JSON cannot hold it, the message is treated as not delivered", true);
            return null;
          }
        }
        var place = { up: up, key: key };
        ancestors[top] = v;
        places[top] = place;
        top += 1;
        try {
          return shaped(v, place, depth, where);
        } catch (e) {
          return threw(up, key, where);          // a getter or a proxy trap threw
        } finally {
          top -= 1;
          ancestors[top] = null;
          places[top] = null;
        }
      }

      function shaped(v, place, depth, where) {
        var up = place.up, key = place.key;
        if (isArr(v)) { return array(v, place, depth); }
        var tag = toTag(v);
        if (tag !== "[object Object]") {
          // a Date: an ISO string (MEASURED); an invalid Date: null (GUESS: JSON's rule)
          if (is(dateTime, v)) {
            var ms = dateTime(v);
            if (ms !== ms) { note(up, key, "an invalid Date, became null"); return null; }
            note(up, key, "a Date, became an ISO string");
            return dateISO(v);
          }
          // a Map: {} (MEASURED); a Set: {} (GUESS)
          if (is(mapSize, v)) { note(up, key, "a Map, became {}"); return {}; }
          if (is(setSize, v)) { note(up, key, "a Set, became {}"); return {}; }
          // a typed array: an object of its indexed elements (MEASURED for Uint8Array)
          var name = typedName ? typedName(v) : undefined;
          if (typeof name === "string") { return typed(v, name, place, depth); }
          // a DataView, an ArrayBuffer, a RegExp: {} (GUESS: cloned, then no enumerable members)
          if (is(dataViewLength, v)) { note(up, key, "a DataView, became {}"); return {}; }
          if (is(bufferLength, v)) { note(up, key, "an ArrayBuffer, became {}"); return {}; }
          if (is(sharedLength, v)) { note(up, key, "a SharedArrayBuffer, became {}"); return {}; }
          if (is(regExpSource, v)) { note(up, key, "a RegExp, became {}"); return {}; }
          // boxed primitives: their primitive, not reported (the same JSON) (GUESS)
          if (is(numberValue, v)) { return number(numberValue(v), up, key); }
          if (is(booleanValue, v)) { return booleanValue(v); }
          if (is(stringValue, v)) { return string(stringValue(v), up, key); }
          if (is(bigintValue, v)) { return vanish(up, key, where, "a BigInt object"); }
          if (is(symbolValue, v)) { return refuse(up, key, where, "a Symbol object"); }
          // an Error: {} (GUESS: cloned with its message, which is not enumerable)
          if (tag === "[object Error]") { note(up, key, "an Error, became {}"); return {}; }
          // what structured clone refuses, DOM nodes and windows included: not delivered (GUESS)
          var kind = tag.slice(8, -1);
          if (hasOwn(NOT_CLONEABLE, kind) || kind.slice(-7) === "Element") { return refuse(up, key, where, article(kind)); }
        }
        return plain(v, place, depth);
      }

      // Arrays: elements in order; a hole becomes null (GUESS); named members of an
      // array are cloned but JSON has no place for them: dropped (GUESS).
      function array(v, place, depth) {
        var length = v.length, out = [], present = 0;
        if (!(length <= budget)) {
          note(place.up, place.key, "an array of length " + length + ", longer than bridgescope converts; the message is treated as not delivered", true);
          return null;
        }
        for (var i = 0; i < length; i++) {
          if (!hasOwn(v, i)) {
            budget -= 1;
            note(place, i, "an array hole, became null");
            out[i] = null;
            continue;
          }
          present += 1;
          out[i] = convert(v[i], place, i, depth + 1, ELEMENT);
        }
        var keys = keysOf(v);
        for (var k = present; k < keys.length; k++) {   // indices come first in keys order
          note(place, keys[k], "a named member of an array, dropped");
        }
        return out;
      }

      function typed(v, name, place, depth) {
        var length = typedLength(v), out = {};
        if (!(length <= budget)) {
          note(place.up, place.key, article(name) + " of length " + length + ", longer than bridgescope converts; the message is treated as not delivered", true);
          return null;
        }
        note(place.up, place.key, article(name) + ", became an object of its " + length + " elements");
        for (var i = 0; i < length; i++) {
          var r = convert(v[i], place, i, depth + 1, MEMBER);
          if (r !== DROP) { out[i] = r; }
        }
        return out;
      }

      // Plain objects and class instances: own enumerable members (structured clone);
      // getters are read. An inherited toJSON is not called (GUESS).
      function plain(v, place, depth) {
        var keys = keysOf(v), out = {};
        var toJSON = v.toJSON;
        if (typeof toJSON === "function" && !hasOwn(v, "toJSON")) {
          note(place.up, place.key, "an object with an inherited toJSON method; WebKit does not call it, its own members crossed");
        }
        for (var i = 0; i < keys.length; i++) {
          var key = keys[i], item;
          try { item = v[keys[i]]; } catch (e) { threw(place, key, MEMBER); continue; }
          var r = convert(item, place, key, depth + 1, MEMBER);
          if (r === DROP) { continue; }
          if (key === "__proto__") { defProp(out, key, { value: r, enumerable: true, writable: true, configurable: true }); } else { out[key] = r; }
        }
        return out;
      }

      var value;
      try {
        value = convert(input, null, null, 1, ROOT);
      } catch (e) {
        note(null, null, "bridgescope could not convert it; treated as not delivered", true);
        value = null;
      }
      if (unlisted > 0) { changes[changes.length] = "(message): " + unlisted + " more changes not listed"; }
      return { delivered: delivered, value: value === DROP ? null : value, changes: changes };
    };
  })();
  // ---- webkit-convert end ----

  // ---- lines ------------------------------------------------------------------------
  function prefix(dir) {
    return "{\"t\":" + now() + ",\"dir\":\"" + dir + "\"" + (conn !== null ? ",\"conn\":" + stringify(conn) : "");
  }
  // `extra`: members after the message (`from`/`origin` of an iframe-shape message a
  // frame received from a child, so the recorder files it under the child's frame).
  function lineFor(dir, value, extra) {
    extra = extra || "";
    try {
      if (typeof value === "string") {
        return prefix(dir) + ",\"text\":" + stringify(redactText(wellFormed(value))) + extra + "}";
      }
      var json = stringify(value);
      if (typeof json !== "string") { json = "null"; }
      return prefix(dir) + ",\"msg\":" + redactText(wellFormed(json)) + extra + "}";
    } catch (e) {
      // Not serializable (a cycle, a BigInt): the recorder turns this line into an error event.
      return prefix(dir) + ",\"unrecordable\":" + stringify(String(e && e.message || e)) + "}";
    }
  }
  function recordValue(dir, value, extra) { emit(lineFor(dir, value, extra)); }
  // An iOS-shape post (webkit.messageHandlers.gbgBridge.postMessage) of anything but a
  // string: the line holds what WebKit hands the app (webkitConvert), followed by a
  // `crossing` member when that differs from what the page posted or never reaches the
  // app (docs/TAP.md §1). A string crosses unchanged and is written as `text`.
  function webkitLineFor(dir, value) {
    if (typeof value === "string") { return lineFor(dir, value); }
    var c = webkitConvert(value), crossing = "";
    if (!c.delivered || c.changes.length > 0) {
      var changes = [];
      for (var i = 0; i < c.changes.length; i++) { changes[i] = wellFormed(c.changes[i]); }
      crossing = ",\"crossing\":{\"delivered\":" + (c.delivered ? "true" : "false") + ",\"changes\":" + stringify(changes) + "}";
    }
    return lineFor(dir, c.value, crossing);
  }

  // ---- wrapping the bridge's functions ----------------------------------------------
  var depth = { w2h: 0, h2w: 0 };
  var recordedEvent = null;
  var pendingLine = null;
  var wrappers = typeof WeakMap === "function" ? new WeakMap() : null;
  var webkitWrappers = typeof WeakMap === "function" ? new WeakMap() : null;
  var originals = typeof WeakMap === "function" ? new WeakMap() : null;

  // kind: {dir} of the hooked part; `webkit` is set for the iOS shape's postMessage.
  function wrap(fn, kind) {
    if (typeof fn !== "function" || !wrappers) { return fn; }
    if (originals.has(fn)) { return fn; }          // already one of ours
    var dir = kind.dir, cache = kind.webkit ? webkitWrappers : wrappers;
    var w = cache.get(fn);
    if (w) { return w; }
    w = function () {
      // One record per crossing. host → web: the outermost call (the host's). web → host:
      // the innermost (what reaches the host: a page's own wrapper may change or add to
      // the message before calling the original), taken as each nested call starts and
      // written when the outermost returns or throws. Not recorded at all: a call made
      // while the iframe-shape message event that carried it is dispatched (a frame
      // forwarding it; recorded as that event).
      var outer = depth[dir] === 0;
      if (outer && recordedEvent !== null && root.event === recordedEvent) {
        return apply(fn, this, arguments);
      }
      if (dir === "h2w") {
        if (outer) { recordValue(dir, arguments[0]); }
      } else {
        pendingLine = kind.webkit ? webkitLineFor(dir, arguments[0]) : lineFor(dir, arguments[0]);
      }
      depth[dir] += 1;
      try {
        return apply(fn, this, arguments);
      } finally {
        depth[dir] -= 1;
        if (outer && dir === "w2h" && pendingLine !== null) {
          var line = pendingLine;
          pendingLine = null;
          emit(line);
        }
      }
    };
    try { defineProperty(w, "name", { value: fn.name, configurable: true }); } catch (e) { /* old engines */ }
    try { defineProperty(w, "length", { value: fn.length, configurable: true }); } catch (e) { /* old engines */ }
    w.toString = function () { return Function.prototype.toString.call(fn); };
    try { defineProperty(w, "toString", { enumerable: false }); } catch (e) { /* ignore */ }
    cache.set(fn, w);
    originals.set(w, fn);
    return w;
  }

  // Makes obj[name] an accessor that keeps the page's value and hands out a wrapper
  // (for functions) or calls `onObject` (for objects that hold further bridge parts).
  function hook(obj, name, kind) {
    if (obj === null || typeof obj !== "object" && typeof obj !== "function") { return; }
    var d;
    try { d = getOwnPropertyDescriptor(obj, name); } catch (e) { return; }
    var unwrap = function (v) { return originals && originals.has(v) ? originals.get(v) : v; };
    if (d && !d.configurable) {
      // Cannot take the property over: instrument what is there now.
      if (d.get) {
        if (kind.parts) { instrument(safeGet(obj, name), kind.parts); }
      } else if (kind.dir) {
        if (typeof d.value === "function" && d.writable) { try { obj[name] = wrap(d.value, kind); } catch (e) { /* frozen */ } }
      } else {
        instrument(d.value, kind.parts);
      }
      return;
    }
    try {
      if (d && (d.get || d.set)) {
        // The page's (or host's) own accessor: keep it, wrap what it hands out.
        var g = d.get, s = d.set;
        defineProperty(obj, name, {
          configurable: true,
          enumerable: d.enumerable,
          get: function () {
            var v = g ? apply(g, this, []) : undefined;
            if (kind.parts) { instrument(v, kind.parts); return v; }
            return wrap(v, kind);
          },
          set: s ? function (v) { apply(s, this, [unwrap(v)]); } : undefined
        });
        return;
      }
      var value = d ? d.value : safeGet(obj, name);   // inherited or provided by the host object
      // A property that does not exist yet stays out of Object.keys / for-in until the
      // page or host sets it (`name in obj` does see it: docs/CDP.md, "What a page can tell").
      var enumerable = d ? d.enumerable : value !== undefined;
      if (kind.parts) { instrument(value, kind.parts); }
      var accessor = {
        configurable: true,
        enumerable: enumerable,
        get: function () { return kind.dir ? wrap(value, kind) : value; },
        set: function (v) {
          value = unwrap(v);
          if (kind.parts) { instrument(value, kind.parts); }
          if (!accessor.enumerable) {
            accessor.enumerable = true;
            try { defineProperty(obj, name, accessor); } catch (e) { /* ignore */ }
          }
        }
      };
      defineProperty(obj, name, accessor);
    } catch (e) { /* a host object that refuses accessors: leave it */ }
  }
  function safeGet(obj, name) { try { return obj[name]; } catch (e) { return undefined; } }

  var instrumented = typeof WeakSet === "function" ? new WeakSet() : null;
  // Every instrumented object is also held here. WebKit's `webkit.messageHandlers` and its
  // `gbgBridge` are host objects whose JavaScript wrappers are made afresh after a garbage
  // collection when nothing holds them, and a fresh wrapper has none of the hooks: a page
  // that looks the handler up for each post (as journeys do) would go unrecorded after the
  // first collection. Held, the wrapper stays the one WebKit hands out. (Few objects: the
  // bridge's own, and each one a page puts in their place; at most MAX_KEPT.)
  var kept = [], MAX_KEPT = 1000;
  function instrument(obj, parts) {
    if (obj === null || typeof obj !== "object" && typeof obj !== "function" || !instrumented) { return; }
    if (instrumented.has(obj)) { return; }
    instrumented.add(obj);
    if (obj !== root && kept.length < MAX_KEPT) { kept[kept.length] = obj; }
    for (var name in parts) { if (hasOwn(parts, name)) { hook(obj, name, parts[name]); } }
  }

  var W2H = { dir: "w2h" }, H2W = { dir: "h2w" }, W2H_WEBKIT = { dir: "w2h", webkit: true };
  instrument(root, {
    GBGBridge: { parts: { postMessage: W2H, receive: H2W } },
    webkit: { parts: { messageHandlers: { parts: { gbgBridge: { parts: { postMessage: W2H_WEBKIT } } } } } }
  });

  // ---- the iframe shape: message events between a frame and its parent or children ----
  function looksLikeEnvelope(data) {
    if (typeof data === "string") { return data.indexOf("\"payload\"") >= 0 || data.indexOf("\"correlationId\"") >= 0; }
    return data !== null && typeof data === "object" && !isArray(data) &&
      (hasOwn(data, "payload") || hasOwn(data, "correlationId"));
  }
  if (typeof root.addEventListener === "function") {
    root.addEventListener("message", function (event) {
      try {
        var source = event.source;
        if (!source || source === root || !looksLikeEnvelope(event.data)) { return; }
        if (root.parent && root.parent !== root && source === root.parent) {
          recordedEvent = event;
          recordValue("h2w", event.data);
          return;
        }
        var frames = root.frames;
        for (var i = 0; frames && i < frames.length; i++) {
          if (frames[i] === source) {
            recordedEvent = event;
            recordValue("w2h", event.data, ",\"from\":\"child\",\"origin\":" + stringify(String(event.origin)));
            return;
          }
        }
      } catch (e) { /* never disturb the page's own listeners */ }
    }, true);
  }

  // ---- standalone API -----------------------------------------------------------------
  if (!config) {
    var api = {
      /** Sets where lines go and how: {onLine, conn, keepSensitiveFields}. Lines kept so far are handed over at once. */
      configure: function (options) {
        options = options || {};
        var first = sink === null;
        if (typeof options.onLine === "function") { sink = options.onLine; }
        if (typeof options.conn === "string") { conn = options.conn; }
        redact = options.keepSensitiveFields !== true;
        if (first && sink) {
          // The header of docs/TAP.md §1: the callback is this tap's one "file".
          emit("{\"t\":" + now() + ",\"event\":\"tap\",\"tap\":\"js\",\"version\":1,\"seq\":1,\"first\":true,\"redacted\":" + redact + "}");
        }
        var kept = pending.splice(0);
        for (var i = 0; i < kept.length; i++) { emit(kept[i]); }
        if (dropped > 0 && sink) { emit(dropLine()); dropped = 0; dropBytes = 0; }
      },
      /** Lines not kept because nobody had configured a callback yet (since the last drop line). */
      dropped: function () { return dropped; },
      /** The field names redacted by default. */
      sensitiveFields: SENSITIVE_FIELDS.slice()
    };
    try { defineProperty(root, "BridgeScopeTap", { value: api, enumerable: false, configurable: true, writable: true }); } catch (e) { /* ignore */ }
  }

  // ---- UTF-8 and SHA-256 (synchronous: crypto.subtle is async and would reorder lines) --
  function utf8(s) {
    if (typeof TextEncoder === "function") { return new TextEncoder().encode(s); }
    var out = [];
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length) {
        var d = s.charCodeAt(i + 1);
        if (d >= 0xDC00 && d <= 0xDFFF) { c = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00); i++; } else { c = 0xFFFD; }
      } else if (c >= 0xD800 && c <= 0xDFFF) { c = 0xFFFD; }
      if (c < 0x80) { out.push(c); } else if (c < 0x800) { out.push(0xC0 | c >> 6, 0x80 | c & 63); } else if (c < 0x10000) {
        out.push(0xE0 | c >> 12, 0x80 | c >> 6 & 63, 0x80 | c & 63);
      } else { out.push(0xF0 | c >> 18, 0x80 | c >> 12 & 63, 0x80 | c >> 6 & 63, 0x80 | c & 63); }
    }
    return out;
  }
  var K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
  ];
  function sha256Hex(bytes) {
    var n = bytes.length, total = ((n + 9 + 63) >> 6) << 6;
    var m = new Uint8Array(total);
    m.set(bytes);
    m[n] = 0x80;
    var bits = n * 8;
    m[total - 4] = bits >>> 24 & 255; m[total - 3] = bits >>> 16 & 255; m[total - 2] = bits >>> 8 & 255; m[total - 1] = bits & 255;
    var hi = Math.floor(n / 0x20000000);
    m[total - 8] = hi >>> 24 & 255; m[total - 7] = hi >>> 16 & 255; m[total - 6] = hi >>> 8 & 255; m[total - 5] = hi & 255;
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var w = new Array(64);
    for (var off = 0; off < total; off += 64) {
      for (var i = 0; i < 16; i++) {
        w[i] = m[off + 4 * i] << 24 | m[off + 4 * i + 1] << 16 | m[off + 4 * i + 2] << 8 | m[off + 4 * i + 3];
      }
      for (i = 16; i < 64; i++) {
        var x = w[i - 15], y = w[i - 2];
        var s0 = (x >>> 7 | x << 25) ^ (x >>> 18 | x << 14) ^ x >>> 3;
        var s1 = (y >>> 17 | y << 15) ^ (y >>> 19 | y << 13) ^ y >>> 10;
        w[i] = w[i - 16] + s0 + w[i - 7] + s1 | 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
      for (i = 0; i < 64; i++) {
        var S1 = (e >>> 6 | e << 26) ^ (e >>> 11 | e << 21) ^ (e >>> 25 | e << 7);
        var t1 = hh + S1 + (e & f ^ ~e & g) + K[i] + w[i] | 0;
        var S0 = (a >>> 2 | a << 30) ^ (a >>> 13 | a << 19) ^ (a >>> 22 | a << 10);
        var t2 = S0 + (a & b ^ a & c ^ b & c) | 0;
        hh = g; g = f; f = e; e = d + t1 | 0; d = c; c = b; b = a; a = t1 + t2 | 0;
      }
      h[0] = h[0] + a | 0; h[1] = h[1] + b | 0; h[2] = h[2] + c | 0; h[3] = h[3] + d | 0;
      h[4] = h[4] + e | 0; h[5] = h[5] + f | 0; h[6] = h[6] + g | 0; h[7] = h[7] + hh | 0;
    }
    var hex = "";
    for (i = 0; i < 8; i++) { hex += ("00000000" + (h[i] >>> 0).toString(16)).slice(-8); }
    return hex;
  }
})(typeof globalThis !== "undefined" ? globalThis : this, typeof tapConfig !== "undefined" ? tapConfig : null);
