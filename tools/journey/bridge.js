/*
 * bridgescope shim: gives a page in a normal browser the native bridge's shape over a
 * WebSocket to the reference host (PROTOCOL.md §5). Load it before page code, like the
 * bootstrap script a native host injects at document start.
 *
 *   iOS shape (default):  window.webkit.messageHandlers.gbgBridge.postMessage(object)
 *                         (sent as WebKit would deliver it: webkitConvert below)
 *   Android (?env=android): window.GBGBridge.postMessage(jsonString)
 *   host → web:           window.GBGBridge.receive(object)
 *
 * Query parameters: env=ios|android|iframe, ws=<WebSocket URL> (default: same host, /bridge).
 * With env=iframe the page is a journey embedded by a host page (iframe-host.html) and
 * talks to it with postMessage: this shim then installs nothing.
 * Messages posted before the socket opens are queued and sent in order, not lost.
 */
(function () {
  "use strict";
  var params = new URLSearchParams(window.location.search);
  if (params.get("env") === "iframe") { return; }
  // A real native bridge is already there (bridgescope-webkit, a WKWebView): it answers;
  // the shim installs nothing and opens no socket.
  if (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.gbgBridge &&
      !window.BridgeScopeShim) { return; }
  var env = params.get("env") === "android" ? "android" : "ios";
  var url = params.get("ws") ||
    ((window.location.protocol === "https:" ? "wss://" : "ws://") + window.location.host + "/bridge");

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

  // The bootstrap every native host injects: namespace plus a no-op receive.
  window.GBGBridge = window.GBGBridge || {};
  window.GBGBridge.receive = window.GBGBridge.receive || function () {};

  var queue = [];
  var socket = null;
  var state = "connecting";
  var listeners = [];

  function setState(s, detail) {
    state = s;
    listeners.forEach(function (f) { try { f(s, detail); } catch (e) { console.error(e); } });
  }

  function post(text) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(text);
    } else {
      queue.push(text);
    }
  }

  function connect() {
    socket = new WebSocket(url);
    socket.onopen = function () {
      setState("open");
      while (queue.length > 0) { socket.send(queue.shift()); }
    };
    socket.onmessage = function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (e) {
        console.error("bridgescope shim: host sent invalid JSON", e);
        return;
      }
      window.GBGBridge.receive(message);
    };
    socket.onclose = function (event) { setState("closed", { code: event.code, reason: event.reason }); };
    socket.onerror = function () { setState("error"); };
  }

  if (env === "android") {
    // Android's JavaScript interface takes a JSON string.
    window.GBGBridge.postMessage = function (jsonString) { post(String(jsonString)); };
  } else {
    // WKWebView's script message handler takes an object and hands the app what
    // webkitConvert says: a message WebKit would not deliver (a function in it, say) is
    // not sent, and the page gets no exception, exactly as in WKWebView.
    var warn = typeof console !== "undefined" && typeof console.warn === "function" ? console.warn : null;
    var toJSONText = JSON.stringify;
    window.webkit = window.webkit || {};
    window.webkit.messageHandlers = window.webkit.messageHandlers || {};
    window.webkit.messageHandlers.gbgBridge = {
      postMessage: function (object) {
        var crossing = webkitConvert(object);
        if (!crossing.delivered) {
          // WebKit prints nothing; this is for whoever runs the journey in a browser.
          try { if (warn) { warn.call(console, "bridgescope shim: not sent, WKWebView would not deliver this message: " + crossing.changes.join("; ")); } } catch (e) { /* ignore */ }
          return;
        }
        post(toJSONText(crossing.value));
      }
    };
  }

  window.BridgeScopeShim = {
    env: env,
    url: url,
    state: function () { return state; },
    onStateChange: function (f) { listeners.push(f); f(state); },
    queued: function () { return queue.length; }
  };
  connect();
})();
