// Helpers of the node tests of the JavaScript tap and the journey shim
// (node --test tools/taps/js/test/).
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const root = path.join(__dirname, "..", "..", "..", "..");
const tapPath = path.join(root, "tools", "taps", "js", "bridge-tap.js");
const shimPath = path.join(root, "tools", "journey", "bridge.js");
const BEGIN = "// ---- webkit-convert begin ----";
const END = "// ---- webkit-convert end ----";

/** The webkit-convert block of a file: from the begin marker's line to the end marker's line. */
function block(file) {
  const text = fs.readFileSync(file, "utf8");
  const begin = text.indexOf(BEGIN), end = text.indexOf(END);
  if (begin < 0 || end < begin || text.indexOf(BEGIN, begin + 1) >= 0 || text.indexOf(END, end + 1) >= 0) {
    throw new Error(file + ": one webkit-convert block expected");
  }
  return text.slice(text.lastIndexOf("\n", begin) + 1, text.indexOf("\n", end) + 1);
}

/** webkitConvert from the tap's block, in this realm. */
function loadConvert() {
  return new Function(block(tapPath) + "\nreturn webkitConvert;")();
}

/** A fresh page realm whose global is `window`; `extra` become globals. */
function page(extra) {
  const context = vm.createContext({});
  vm.runInContext("var window = globalThis;", context);
  Object.assign(context, extra || {});
  return context;
}

/** A page with the tap loaded and configured; lines collects what it writes. */
function tapPage(options) {
  const context = page();
  vm.runInContext(fs.readFileSync(tapPath, "utf8"), context, { filename: tapPath });
  const lines = [];
  context.BridgeScopeTap.configure(Object.assign({ onLine: (l) => lines.push(l), conn: "webview-1" }, options || {}));
  lines.shift();   // the header
  return { context, lines, run: (code) => vm.runInContext(code, context) };
}

/** A fake WebSocket class whose instances record what is sent. */
function fakeWebSocket() {
  const sockets = [];
  class WebSocket {
    constructor(url) { this.url = url; this.readyState = 0; this.sent = []; sockets.push(this); }
    send(text) { this.sent.push(text); }
    open() { this.readyState = WebSocket.OPEN; if (this.onopen) { this.onopen({}); } }
  }
  WebSocket.OPEN = 1;
  return { WebSocket, sockets };
}

/** A page with tools/journey/bridge.js loaded (query: "?env=android", say). */
function shimPage(query) {
  const ws = fakeWebSocket();
  const warnings = [];
  const context = page({
    location: { search: query || "", protocol: "http:", host: "127.0.0.1:8787" },
    URLSearchParams,
    WebSocket: ws.WebSocket,
    console: { warn: (...a) => warnings.push(a.join(" ")), error: () => {}, log: () => {} }
  });
  vm.runInContext(fs.readFileSync(shimPath, "utf8"), context, { filename: shimPath });
  return { context, socket: ws.sockets[0], warnings, run: (code) => vm.runInContext(code, context) };
}

module.exports = { tapPath, shimPath, block, loadConvert, page, tapPage, shimPage };
