/*
 * The web side of a verification journey, as a real one drives the bridge: correlation
 * ids, timeouts (PROTOCOL.md §2: 5 s capability.query, 30 s requests, 120 s document
 * capture), acknowledged responses, journey events, and progress shown on the page.
 * Works with any host that provides the iOS or Android bridge shape (bridge.js does).
 */
(function () {
  "use strict";
  var TIMEOUTS = { "capability.query": 5000, "camera.document.capture": 120000 };
  var DEFAULT_TIMEOUT = 30000;
  var pending = {};
  var eventHandlers = {};
  var counter = 0;

  function uuid() {
    counter += 1;
    if (window.crypto && window.crypto.randomUUID) { return window.crypto.randomUUID(); }
    return "web-" + Date.now().toString(16) + "-" + counter;
  }

  // The iframe shape (PROTOCOL.md §5): ?env=iframe&parent=<host page origin>.
  var query = new URLSearchParams(window.location.search);
  var parentOrigin = query.get("env") === "iframe" && window.parent !== window ? query.get("parent") : null;

  function send(message) {
    if (parentOrigin) {
      window.parent.postMessage(message, parentOrigin);
    } else if (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.gbgBridge) {
      window.webkit.messageHandlers.gbgBridge.postMessage(message);
    } else if (window.GBGBridge && window.GBGBridge.postMessage) {
      window.GBGBridge.postMessage(JSON.stringify(message));
    } else {
      throw new Error("no native bridge on this page (missing bootstrap script?)");
    }
  }

  function envelope(type, action, data) {
    var payload = { action: action };
    if (data !== undefined) { payload.data = data; }
    return { version: "1.0", correlationId: uuid(), type: type, timestamp: Date.now(), payload: payload };
  }

  var hostReady = false;   // host.ready seen (it may arrive before the journey runs)
  var readyWaiters = [];
  window.GBGBridge = window.GBGBridge || {};
  window.GBGBridge.receive = function (message) {
    if (!message || typeof message !== "object") { return; }
    if (message.type === "response") {
      var p = pending[message.correlationId];
      if (!p) { console.warn("response to an unknown request", message.correlationId); return; }
      if (message.payload && message.payload.status === "acknowledged") {
        Journey.log(p.action + ": acknowledged, still working", "info");
        return;
      }
      clearTimeout(p.timer);
      delete pending[message.correlationId];
      p.resolve(message.payload || {});
    } else if (message.type === "event") {
      var action = message.payload && message.payload.action;
      if (action === "host.ready") {
        hostReady = true;
        readyWaiters.splice(0).forEach(function (f) { f(true); });
      }
      (eventHandlers[action] || []).forEach(function (f) { f(message.payload.data || {}); });
      (eventHandlers["*"] || []).forEach(function (f) { f(action, message.payload.data || {}); });
    }
  };

  if (parentOrigin) {
    window.addEventListener("message", function (event) {
      if (event.source !== window.parent || event.origin !== parentOrigin) { return; }  // origin allowlist
      window.GBGBridge.receive(event.data);
    });
  }

  var Journey = {
    /** Sends a request; resolves with the final payload ({status, data, error}). */
    request: function (action, data, timeoutMs) {
      var message = envelope("request", action, data);
      var timeout = timeoutMs || TIMEOUTS[action] || DEFAULT_TIMEOUT;
      return new Promise(function (resolve) {
        var timer = setTimeout(function () {
          delete pending[message.correlationId];
          Journey.log(action + ": no answer after " + timeout + " ms", "error");
          resolve({ action: action, status: "error", error: { code: "TIMEOUT", message: "no response after " + timeout + " ms", recoverable: true } });
        }, timeout);
        pending[message.correlationId] = { action: action, resolve: resolve, timer: timer };
        send(message);
      });
    },
    /** Sends a web → host event. */
    event: function (action, data) { send(envelope("event", action, data)); },
    /** Calls f(data) for host events with this action ("*" for all: f(action, data)). */
    on: function (action, f) { (eventHandlers[action] = eventHandlers[action] || []).push(f); },
    /** Appends a progress line to the page. */
    log: function (text, kind) {
      var list = document.getElementById("steps");
      if (list) {
        var li = document.createElement("li");
        li.className = kind || "info";
        li.textContent = text;
        list.appendChild(li);
      }
      console.log("[journey] " + text);
    },
    /** Shows a captured image. */
    showImage: function (label, data) {
      var box = document.getElementById("images");
      if (!box || !data) { return; }
      var src = data.imageData || data.previewImageData;
      if (!src) { return; }
      var fig = document.createElement("figure");
      var img = document.createElement("img");
      img.src = "data:" + (data.mimeType || "image/png") + ";base64," + src;
      img.alt = label;
      img.width = Math.min(240, data.width || 240);
      var cap = document.createElement("figcaption");
      cap.textContent = label + " (" + data.width + "×" + data.height + ", " + data.mimeType + ")";
      fig.appendChild(img);
      fig.appendChild(cap);
      box.appendChild(fig);
    },
    /** Marks the journey finished on the page and tells the host. */
    finish: function (ok, detail) {
      document.body.setAttribute("data-outcome", ok ? "complete" : "error");
      var out = document.getElementById("outcome");
      if (out) { out.textContent = ok ? "Journey complete" : "Journey failed: " + detail.message; }
      if (ok) { Journey.event("journey.complete", detail); } else { Journey.event("journey.error", detail); }
      Journey.log(ok ? "journey complete" : "journey error: " + detail.message, ok ? "ok" : "error");
    },
    sleep: function (ms) { return new Promise(function (r) { setTimeout(r, ms); }); },
    /** Resolves true once the host has said host.ready, false after timeoutMs without it. */
    whenHostReady: function (timeoutMs) {
      if (hostReady) { return Promise.resolve(true); }
      return new Promise(function (resolve) {
        readyWaiters.push(resolve);
        setTimeout(function () { resolve(false); }, timeoutMs);
      });
    },
    /** Runs a journey body once the host is ready (or 2 s have passed without host.ready,
     *  for hosts that never send it); any thrown error ends it with journey.error. */
    run: function (name, body) {
      Journey.whenHostReady(2000).then(function (ready) {
        if (!ready) { Journey.log("no host.ready within 2 s: starting anyway", "info"); }
        Journey.event("journey.started", { journey: name });
        Journey.log("journey " + name + " started (" + (parentOrigin ? "iframe" : window.BridgeScopeShim ? window.BridgeScopeShim.env : "native") + ")");
        return body();
      }).catch(function (e) { Journey.finish(false, { message: String(e && e.message || e) }); });
    },
    /** A request that must succeed; throws with the host's error otherwise. */
    must: function (action, data, label) {
      Journey.log((label || action) + "…");
      return Journey.request(action, data).then(function (p) {
        if (p.status !== "success") {
          var why = p.error ? p.error.code + ": " + p.error.message : p.status;
          Journey.log((label || action) + " failed (" + why + ")", "error");
          var err = new Error((label || action) + " failed: " + why);
          err.payload = p;
          throw err;
        }
        Journey.log((label || action) + " done", "ok");
        return p.data || {};
      });
    }
  };
  window.Journey = Journey;
})();
