// The journey shim (tools/journey/bridge.js) in a fake window with a fake WebSocket: an
// iOS-shape post is sent as WebKit would deliver it, and not at all when WebKit would not.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { shimPage } = require("./support.js");

test("a message holding a function is not sent, and the page gets no exception", () => {
  const p = shimPage("");
  p.socket.open();
  const result = p.run(`
    var threw = null, ret;
    try { ret = window.webkit.messageHandlers.gbgBridge.postMessage({ correlationId: "r1", payload: { data: { cb: function () {} } } }); }
    catch (e) { threw = String(e); }
    ({ threw: threw, ret: ret })
  `);
  assert.equal(result.threw, null);
  assert.equal(result.ret, undefined);
  assert.deepEqual(p.socket.sent, []);
  assert.equal(p.warnings.length, 1, "a console warning for whoever runs the journey");
  assert.match(p.warnings[0], /payload\.data\.cb: a function/);
});

test("not queued either while the socket is connecting; the next message still goes", () => {
  const p = shimPage("");
  p.run(`
    window.webkit.messageHandlers.gbgBridge.postMessage({ s: Symbol("x") });
    window.webkit.messageHandlers.gbgBridge.postMessage({ correlationId: "r2" });
  `);
  assert.equal(p.run("BridgeScopeShim.queued()"), 1);
  p.socket.open();
  assert.deepEqual(p.socket.sent, ['{"correlationId":"r2"}']);
});

test("an iOS-shape post is sent as WebKit delivers it", () => {
  const p = shimPage("?env=ios");
  p.socket.open();
  p.run(`
    window.webkit.messageHandlers.gbgBridge.postMessage({ correlationId: "r3", payload: { data: {
      big: 10n, u: undefined, n: NaN, z: -0, when: new Date(0), m: new Map([[1, 2]]), bytes: new Uint8Array([1, 2]), list: [undefined, 1] } } });
    window.webkit.messageHandlers.gbgBridge.postMessage({ b: 1, a: 2 });
  `);
  assert.deepEqual(p.socket.sent, [
    '{"correlationId":"r3","payload":{"data":{"n":null,"z":0,"when":"1970-01-01T00:00:00.000Z","m":{},"bytes":{"0":1,"1":2},"list":[null,1]}}}',
    '{"b":1,"a":2}'
  ]);
  assert.deepEqual(p.warnings, []);
});

test("the Android shape sends the page's string unchanged", () => {
  const p = shimPage("?env=android");
  p.socket.open();
  p.run(`window.GBGBridge.postMessage('{"a":NaN, "b": function}')`);
  assert.deepEqual(p.socket.sent, ['{"a":NaN, "b": function}']);
  assert.equal(p.run("typeof window.webkit"), "undefined");
});
