/*
 * bridgescope shim: gives a page in a normal browser the native bridge's shape over a
 * WebSocket to the reference host (PROTOCOL.md §5). Load it before page code, like the
 * bootstrap script a native host injects at document start.
 *
 *   iOS shape (default):  window.webkit.messageHandlers.gbgBridge.postMessage(object)
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
  var env = params.get("env") === "android" ? "android" : "ios";
  var url = params.get("ws") ||
    ((window.location.protocol === "https:" ? "wss://" : "ws://") + window.location.host + "/bridge");

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
    // WKWebView's script message handler takes an object.
    window.webkit = window.webkit || {};
    window.webkit.messageHandlers = window.webkit.messageHandlers || {};
    window.webkit.messageHandlers.gbgBridge = {
      postMessage: function (object) { post(JSON.stringify(object)); }
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
