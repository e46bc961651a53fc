// Test driver of the JavaScript tap in standalone mode (docs/TAP.md), with the Swift and
// Java drivers' contract: `node tap-driver.js --dir DIR [--keep]` reads lines
// `w2h|h2w <conn> <base64 of the message's UTF-16BE code units>` from standard input and
// hands each to the page's bridge (GBGBridge.postMessage / GBGBridge.receive, as an
// Android-shaped page would); the tap's lines go to DIR/bridge-000001.ndjson.
"use strict";
var fs = require("fs"), path = require("path");
var args = process.argv.slice(2);
var dir = args[args.indexOf("--dir") + 1];
if (args.indexOf("--dir") < 0 || !dir) { process.stderr.write("usage: node tap-driver.js --dir DIR [--keep]\n"); process.exit(2); }
fs.mkdirSync(dir, { recursive: true });
var fd = fs.openSync(path.join(dir, "bridge-000001.ndjson"), "a");
globalThis.window = globalThis;
require(path.join(__dirname, "bridge-tap.js"));
window.GBGBridge = { postMessage: function () {}, receive: function () {} };
BridgeScopeTap.configure({
  conn: "webview-1",
  keepSensitiveFields: args.indexOf("--keep") >= 0,
  onLine: function (line) { fs.writeSync(fd, line + "\n"); }
});
var input = fs.readFileSync(0, "latin1").split("\n");
input.forEach(function (line) {
  if (!line) { return; }
  var parts = line.split(" ");
  var bytes = Buffer.from(parts[2], "base64");
  var units = [];
  for (var i = 0; i + 1 < bytes.length; i += 2) { units.push(bytes[i] << 8 | bytes[i + 1]); }
  var text = "";
  for (var j = 0; j < units.length; j += 8192) { text += String.fromCharCode.apply(null, units.slice(j, j + 8192)); }
  if (parts[1] !== "webview-1") { process.stderr.write("the JavaScript driver runs one page: conn must be webview-1\n"); process.exit(2); }
  if (parts[0] === "w2h") { GBGBridge.postMessage(text); } else { GBGBridge.receive(text); }
});
fs.closeSync(fd);
