// The JavaScript tap's iOS-shape lines: the message as WebKit hands it to the app, and a
// `crossing` member after it when that differs from what the page posted (docs/TAP.md §1).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { tapPage } = require("./support.js");

const STOPS = "; WebKit does not deliver a message that holds one";

/** A tap page whose iOS handler records its calls; returns the page and the calls. */
function iosPage(options) {
  const p = tapPage(options);
  p.run(`
    var calls = [];
    window.webkit = { messageHandlers: { gbgBridge: { postMessage: function (m) {
      calls.push({ self: this, arg: m });
      if (m && m.fail) { throw new RangeError("handler failed"); }
      return "ret";
    } } } };
  `);
  return p;
}
/** The line without its time (the rest is exact). */
function untimed(line) { return line.replace(/^\{"t":\d+,/, "{"); }

test("a message WebKit delivers unchanged keeps its old line, no crossing member", () => {
  const p = iosPage();
  p.run(`webkit.messageHandlers.gbgBridge.postMessage({ type: "request", correlationId: "r1", version: "1.0", payload: { action: "capability.query", data: { z: 1, a: [1, "\\u2028", null] } } })`);
  assert.equal(p.lines.length, 1);
  assert.equal(untimed(p.lines[0]),
    '{"dir":"w2h","conn":"webview-1","msg":{"type":"request","correlationId":"r1","version":"1.0","payload":{"action":"capability.query","data":{"z":1,"a":[1,"\u2028",null]}}}}');
});

test("a BigInt member: the line keeps the correlation id and says what crossed", () => {
  const p = iosPage();
  p.run(`webkit.messageHandlers.gbgBridge.postMessage({ correlationId: "r7", payload: { data: { big: 10n, when: new Date(0), list: [undefined, -0] } } })`);
  assert.equal(untimed(p.lines[0]),
    '{"dir":"w2h","conn":"webview-1","msg":{"correlationId":"r7","payload":{"data":{"when":"1970-01-01T00:00:00.000Z","list":[null,0]}}},' +
    '"crossing":{"delivered":true,"changes":["payload.data.big: a BigInt, the member was dropped","payload.data.when: a Date, became an ISO string",' +
    '"payload.data.list[0]: undefined, became null","payload.data.list[1]: -0, became 0"]}}');
  const line = JSON.parse(p.lines[0]);
  assert.equal(line.msg.correlationId, "r7");
  assert.ok(p.lines[0].indexOf('"crossing"') > p.lines[0].indexOf('"msg"'), "crossing comes after the message");
  assert.deepEqual(Object.keys(line), ["t", "dir", "conn", "msg", "crossing"]);
});

test("a function at depth: delivered false; the call still reaches the handler unchanged", () => {
  const p = iosPage();
  const out = p.run(`
    var sent = { correlationId: "r2", payload: { data: { nested: { callback: function () {} } } } };
    var ret = webkit.messageHandlers.gbgBridge.postMessage(sent);
    ({ ret: ret, same: calls.length === 1 && calls[0].arg === sent && calls[0].self === webkit.messageHandlers.gbgBridge })
  `);
  assert.equal(out.ret, "ret");
  assert.equal(out.same, true);
  const line = JSON.parse(p.lines[0]);
  assert.deepEqual(line.msg, { correlationId: "r2", payload: { data: { nested: {} } } });
  assert.deepEqual(line.crossing, { delivered: false, changes: ["payload.data.nested.callback: a function" + STOPS] });
});

test("the handler's exception passes through, and the line is still written", () => {
  const p = iosPage();
  const threw = p.run(`
    var threw = "";
    try { webkit.messageHandlers.gbgBridge.postMessage({ fail: true, n: NaN }); } catch (e) { threw = e.name + ":" + e.message; }
    threw
  `);
  assert.equal(threw, "RangeError:handler failed");
  assert.deepEqual(JSON.parse(p.lines[0]).crossing, { delivered: true, changes: ["n: NaN, became null"] });
});

test("a cycle and a Symbol: recorded with delivered false instead of an unrecordable line", () => {
  const p = iosPage();
  p.run(`
    var m = { correlationId: "r3", payload: {} }; m.payload.back = m;
    webkit.messageHandlers.gbgBridge.postMessage(m);
    webkit.messageHandlers.gbgBridge.postMessage({ correlationId: "r4", s: Symbol("x") });
  `);
  const a = JSON.parse(p.lines[0]), b = JSON.parse(p.lines[1]);
  assert.deepEqual(a.msg, { correlationId: "r3", payload: { back: null } });
  assert.equal(a.crossing.delivered, false);
  assert.match(a.crossing.changes[0], /^payload\.back: a cycle/);
  assert.deepEqual(b.msg, { correlationId: "r4" });
  assert.deepEqual(b.crossing, { delivered: false, changes: ["s: a Symbol" + STOPS] });
});

test("redaction still applies to the recorded message", () => {
  const p = iosPage();
  p.run(`webkit.messageHandlers.gbgBridge.postMessage({ correlationId: "r5", payload: { data: { imageData: "QUJD", when: new Date(0) } } })`);
  const line = JSON.parse(p.lines[0]);
  assert.deepEqual(line.msg.payload.data.imageData, { redacted: true, sha256: require("crypto").createHash("sha256").update("QUJD").digest("hex"), bytes: 4 });
  assert.ok(!p.lines[0].includes("QUJD"));
  assert.deepEqual(line.crossing.changes, ["payload.data.when: a Date, became an ISO string"]);
});

test("strings posted in either shape, Android posts and host → web lines do not change", () => {
  const p = iosPage();
  p.run(`
    window.GBGBridge = { postMessage: function () {}, receive: function () {} };
    webkit.messageHandlers.gbgBridge.postMessage('{"a":1}');
    GBGBridge.postMessage('{"a":NaN}');
    GBGBridge.postMessage({ a: undefined, d: new Date(0) });
    GBGBridge.receive({ a: undefined, b: NaN });
    GBGBridge.receive({ big: 1n });
  `);
  assert.deepEqual(p.lines.map(untimed), [
    '{"dir":"w2h","conn":"webview-1","text":"{\\"a\\":1}"}',
    '{"dir":"w2h","conn":"webview-1","text":"{\\"a\\":NaN}"}',
    '{"dir":"w2h","conn":"webview-1","msg":{"d":"1970-01-01T00:00:00.000Z"}}',
    '{"dir":"h2w","conn":"webview-1","msg":{"b":null}}',
    '{"dir":"h2w","conn":"webview-1","unrecordable":"Do not know how to serialize a BigInt"}'
  ]);
});

test("a page replacing JSON and Date after the tap loaded does not break the line", () => {
  const p = iosPage();
  p.run(`
    JSON.stringify = function () { throw new Error("page's"); };
    Date.prototype.toISOString = function () { return "page's"; };
    Object.keys = function () { return []; };
    webkit.messageHandlers.gbgBridge.postMessage({ correlationId: "r6", when: new Date(0) });
  `);
  const line = p.lines[0].replace(/^\{"t":\d+,/, "{");
  assert.equal(line, '{"dir":"w2h","conn":"webview-1","msg":{"correlationId":"r6","when":"1970-01-01T00:00:00.000Z"},"crossing":{"delivered":true,"changes":["when: a Date, became an ISO string"]}}');
});

test("a change naming a member with an unpaired surrogate is written well-formed", () => {
  const p = iosPage();
  p.run(`webkit.messageHandlers.gbgBridge.postMessage({ "k\\ud800": undefined })`);
  const line = JSON.parse(p.lines[0]);
  assert.deepEqual(line.msg, {});
  assert.deepEqual(line.crossing.changes, ['["k\\ud800"]: undefined, the member was dropped']);
});
