// webkitConvert: what WebKit hands the app for an iOS-shape post (tools/taps/js/bridge-tap.js
// and tools/journey/bridge.js carry the same block). MEASURED rules come from WebKitGTK
// 2.50.6; the others are the block's guesses and are tested as written.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { tapPath, shimPath, block, loadConvert } = require("./support.js");

const convert = loadConvert();
const STOPS = "; WebKit does not deliver a message that holds one";

/** Converts `{payload: {data: {x: value}}}` and returns {delivered, value of x, changes}. */
function member(value) {
  const r = convert({ correlationId: "r1", payload: { data: { x: value } } });
  assert.equal(r.value.correlationId, "r1");
  return { delivered: r.delivered, has: Object.prototype.hasOwnProperty.call(r.value.payload.data, "x"), x: r.value.payload.data.x, changes: r.changes };
}
function changed(value, expected, text, delivered) {
  const r = member(value);
  assert.deepEqual(r.x, expected);
  assert.deepEqual(r.changes, text === null ? [] : ["payload.data.x: " + text]);
  assert.equal(r.delivered, delivered === undefined ? true : delivered);
}

test("the tap and the shim carry byte-identical webkit-convert blocks", () => {
  const tap = block(tapPath), shim = block(shimPath);
  assert.ok(tap.length > 1000);
  assert.equal(shim, tap);
});

test("a plain message crosses unchanged; key order is never reported", () => {
  const message = { version: "1.0", correlationId: "r1", type: "request", timestamp: 1700000000000,
    payload: { action: "camera.document.capture", data: { side: "front", list: [1, "a", true, null, { z: 1, a: 2 }] } } };
  const r = convert(message);
  assert.deepEqual(r, { delivered: true, value: message, changes: [] });
  assert.notEqual(r.value, message, "a copy");
  assert.deepEqual(convert({ b: 1, a: 2, 10: 3, 2: 4 }).changes, []);
});

test("numbers: -0 becomes 0, NaN and Infinity null, 2^53+1 is 2^53 already (MEASURED)", () => {
  changed(-0, 0, "-0, became 0");
  assert.ok(Object.is(member(-0).x, 0));
  changed(NaN, null, "NaN, became null");
  changed(Infinity, null, "Infinity, became null");
  changed(-Infinity, null, "-Infinity, became null");
  changed(9007199254740993, 9007199254740992, null);
  changed(0, 0, null);
  changed(1.5e300, 1.5e300, null);
});

test("undefined: a member vanishes (MEASURED); in an array it becomes null", () => {
  const r = member(undefined);
  assert.equal(r.has, false);
  assert.deepEqual(r.changes, ["payload.data.x: undefined, the member was dropped"]);
  assert.equal(r.delivered, true);
});

test("undefined in an array becomes null", () => {
  const r = convert({ list: [1, undefined, 3] });
  assert.deepEqual(r, { delivered: true, value: { list: [1, null, 3] }, changes: ["list[1]: undefined, became null"] });
});

test("a BigInt member vanishes (MEASURED); in an array it becomes null", () => {
  const r = member(12345678901234567890n);
  assert.equal(r.has, false);
  assert.deepEqual(r.changes, ["payload.data.x: a BigInt, the member was dropped"]);
  assert.equal(r.delivered, true);
  assert.deepEqual(convert({ a: [1n] }).value, { a: [null] });
  assert.deepEqual(convert({ a: [1n] }).changes, ["a[0]: a BigInt, became null"]);
  assert.deepEqual(convert({ a: Object(1n) }).changes, ["a: a BigInt object, the member was dropped"]);
});

test("a Date becomes its ISO string (MEASURED); an invalid Date null", () => {
  changed(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), "2026-01-02T03:04:05.006Z", "a Date, became an ISO string");
  changed(new Date(NaN), null, "an invalid Date, became null");
});

test("a Map becomes {} (MEASURED), a Set too", () => {
  changed(new Map([["a", 1]]), {}, "a Map, became {}");
  changed(new Set([1, 2]), {}, "a Set, became {}");
});

test("a Uint8Array becomes an object of its elements (MEASURED); other typed arrays alike", () => {
  changed(new Uint8Array([7, 0, 255]), { 0: 7, 1: 0, 2: 255 }, "a Uint8Array, became an object of its 3 elements");
  changed(new Int16Array([-1]), { 0: -1 }, "an Int16Array, became an object of its 1 elements");
  const r = member(new Float64Array([NaN, 1.5]));
  assert.deepEqual(r.x, { 0: null, 1: 1.5 });
  assert.deepEqual(r.changes, ["payload.data.x: a Float64Array, became an object of its 2 elements", "payload.data.x[0]: NaN, became null"]);
});

test("a function anywhere: not delivered, and the change says so (MEASURED)", () => {
  const r = convert({ correlationId: "r9", payload: { data: { deep: [{ a: { callback: function () {} } }] } } });
  assert.equal(r.delivered, false);
  assert.deepEqual(r.changes, ["payload.data.deep[0].a.callback: a function" + STOPS]);
  assert.deepEqual(r.value, { correlationId: "r9", payload: { data: { deep: [{ a: {} }] } } }, "the rest, for the record");
  assert.deepEqual(convert({ a: [() => 1] }).value, { a: [null] });
  assert.equal(convert({ a: class {} }).delivered, false);
  assert.deepEqual(convert(function () {}), { delivered: false, value: null, changes: ["(message): a function" + STOPS] });
});

test("a Symbol: not delivered, like a function; a Symbol key is not a member", () => {
  changed(Symbol("s"), undefined, "a Symbol" + STOPS, false);
  assert.equal(member(Symbol("s")).has, false);
  changed(Object(Symbol("s")), undefined, "a Symbol object" + STOPS, false);
  assert.deepEqual(convert({ a: 1, [Symbol("k")]: 2 }), { delivered: true, value: { a: 1 }, changes: [] });
});

test("64 levels of nesting cross; the 65th is not converted and the message counts as not delivered", () => {
  function nest(n) { let v = 1; for (let i = 0; i < n; i++) { v = { c: v }; } return v; }
  assert.deepEqual(convert(nest(64)), { delivered: true, value: nest(64), changes: [] });
  const r = convert(nest(65));
  assert.equal(r.delivered, false);
  assert.deepEqual(r.changes, [Array(64).fill("c").join(".") + ": nested deeper than 64 levels; not converted, the message is treated as not delivered"]);
  let arrays = 1;
  for (let i = 0; i < 100000; i++) { arrays = [arrays]; }
  const deep = convert(arrays);
  assert.equal(deep.delivered, false);
  assert.equal(deep.changes.length, 1);
});

test("a cycle: JSON cannot hold it, not delivered; a shared object is no cycle", () => {
  const m = { correlationId: "r1", payload: { data: {} } };
  m.payload.data.self = m.payload;
  const r = convert(m);
  assert.equal(r.delivered, false);
  assert.deepEqual(r.changes, ["payload.data.self: a cycle (it refers back to payload); JSON cannot hold it, the message is treated as not delivered"]);
  assert.deepEqual(r.value, { correlationId: "r1", payload: { data: { self: null } } });
  const top = {}; top.me = top;
  assert.deepEqual(convert(top).changes, ["me: a cycle (it refers back to (message)); JSON cannot hold it, the message is treated as not delivered"]);
  const shared = { a: 1 };
  assert.deepEqual(convert({ x: shared, y: [shared, shared] }), { delivered: true, value: { x: { a: 1 }, y: [{ a: 1 }, { a: 1 }] }, changes: [] });
});

test("strings: 1 MB, U+2028, emoji, NUL and </script> cross as they are (MEASURED)", () => {
  const big = "x".repeat(1024 * 1024);
  const started = Date.now();
  changed(big, big, null);
  assert.ok(Date.now() - started < 1000, "1 MB in under a second");
  for (const s of ["a\u2028b\u2029c", "\u{1F600}\u{1F1EB}\u{1F1F7}", "\u0000", "</script><script>alert(1)</script>", ""]) { changed(s, s, null); }
  changed({ "\u2028": "\u{1F600}" }, { "\u2028": "\u{1F600}" }, null);
});

test("a lone surrogate crosses as it is, in a value or a member name (MEASURED)", () => {
  changed("a\ud800b", "a\ud800b", null);
  changed("\udc00\ud83d\ude00\ud83d", "\udc00\ud83d\ude00\ud83d", null);
  const r = convert({ ["k\udfff"]: 1 });
  assert.deepEqual(r.value, { "k\udfff": 1 });
  assert.deepEqual(r.changes, []);
});

test("arrays: a hole becomes null, a named member is dropped", () => {
  // eslint-disable-next-line no-sparse-arrays
  assert.deepEqual(convert({ a: [1, , 3] }), { delivered: true, value: { a: [1, null, 3] }, changes: ["a[1]: an array hole, became null"] });
  const named = [1, 2];
  named.extra = "x";
  assert.deepEqual(convert({ a: named }), { delivered: true, value: { a: [1, 2] }, changes: ["a.extra: a named member of an array, dropped"] });
});

test("other objects: ArrayBuffer, DataView, RegExp, Error become {}; Promise, WeakMap are refused", () => {
  changed(new ArrayBuffer(4), {}, "an ArrayBuffer, became {}");
  changed(new DataView(new ArrayBuffer(4)), {}, "a DataView, became {}");
  changed(/a+/g, {}, "a RegExp, became {}");
  changed(new TypeError("boom"), {}, "an Error, became {}");
  changed(Promise.resolve(1), undefined, "a Promise" + STOPS, false);
  changed(new WeakMap(), undefined, "a WeakMap" + STOPS, false);
  changed(Object(5), 5, null);
  changed(Object("s"), "s", null);
  changed(Object(false), false, null);
});

test("class instances: their own enumerable members; an inherited toJSON is not called", () => {
  class Point { constructor() { this.x = 1; this.y = 2; } get sum() { return this.x + this.y; } }
  changed(new Point(), { x: 1, y: 2 }, null);
  class Stamp { constructor() { this.ms = 5; } toJSON() { return "stamp"; } }
  changed(new Stamp(), { ms: 5 }, "an object with an inherited toJSON method; WebKit does not call it, its own members crossed");
  changed(Object.create(null, { a: { value: 1, enumerable: true }, hidden: { value: 2 } }), { a: 1 }, null);
  const withGetter = {};
  Object.defineProperty(withGetter, "g", { get() { return 3; }, enumerable: true });
  changed(withGetter, { g: 3 }, null);
});

test("a member named __proto__ stays a member", () => {
  const r = convert(JSON.parse('{"__proto__":{"a":1},"b":2}'));
  assert.equal(JSON.stringify(r.value), '{"__proto__":{"a":1},"b":2}');
  assert.deepEqual(r.changes, []);
});

test("never throws: throwing getters, revoked proxies, odd roots", () => {
  const g = {};
  Object.defineProperty(g, "bad", { get() { throw new Error("no"); }, enumerable: true });
  const r = convert({ a: 1, g: g });
  assert.equal(r.delivered, false);
  assert.deepEqual(r.changes, ["g.bad: reading it threw an exception; WebKit does not deliver the message"]);
  const p = Proxy.revocable({}, {});
  p.revoke();
  assert.equal(convert({ p: p.proxy }).delivered, false);
  assert.equal(convert(p.proxy).delivered, false);
  const hostile = new Proxy({}, { ownKeys() { throw new Error("x"); }, get() { throw new Error("y"); } });
  assert.equal(convert([hostile]).delivered, false);
  assert.deepEqual(convert(undefined), { delivered: true, value: null, changes: ["(message): undefined, became null"] });
  assert.deepEqual(convert(null), { delivered: true, value: null, changes: [] });
  assert.deepEqual(convert("text"), { delivered: true, value: "text", changes: [] });
  assert.deepEqual(convert(7n), { delivered: true, value: null, changes: ["(message): a BigInt, became null"] });
});

test("never hangs: a huge sparse array, a shared-object explosion; changes are capped", () => {
  let started = Date.now();
  const sparse = [];
  sparse[1e9] = 1;
  const r = convert({ a: sparse });
  assert.equal(r.delivered, false);
  assert.deepEqual(r.changes, ["a: an array of length 1000000001, longer than bridgescope converts; the message is treated as not delivered"]);
  assert.ok(Date.now() - started < 1000);
  started = Date.now();
  let v = 1;
  for (let i = 0; i < 60; i++) { v = [v, v]; }     // 2^60 paths
  const blown = convert(v);
  assert.equal(blown.delivered, false);
  assert.ok(blown.changes.includes("(message): holds more than 1000000 values; not converted further, the message is treated as not delivered"));
  assert.ok(Date.now() - started < 5000, "bounded");
  const many = convert({ a: new Array(1000).fill(undefined) });
  assert.equal(many.changes.length, 101);
  assert.equal(many.changes[100], "(message): 900 more changes not listed");
  assert.equal(many.delivered, true);
});

test("a page replacing builtins after load does not change the conversion", () => {
  const fresh = loadConvert();
  const saved = { iso: Date.prototype.toISOString, keys: Object.keys, stringify: JSON.stringify, isArray: Array.isArray };
  try {
    Date.prototype.toISOString = () => "page's";
    Object.keys = () => [];
    JSON.stringify = () => "page's";
    Array.isArray = () => false;
    const r = fresh({ d: new Date(0), a: [1], "a b": 1 });
    assert.deepEqual(r.value, { d: "1970-01-01T00:00:00.000Z", a: [1], "a b": 1 });
  } finally {
    Date.prototype.toISOString = saved.iso;
    Object.keys = saved.keys;
    JSON.stringify = saved.stringify;
    Array.isArray = saved.isArray;
  }
});

test("paths: members by name, elements by index, other names quoted, the message itself as (message)", () => {
  const r = convert({ payload: { "a b": [{ x: [NaN] }], $ok_1: undefined, "0": NaN, "": -0 } });
  assert.deepEqual(r.changes, [
    'payload["0"]: NaN, became null',
    'payload["a b"][0].x[0]: NaN, became null',
    "payload.$ok_1: undefined, the member was dropped",
    'payload[""]: -0, became 0'
  ]);
  assert.deepEqual(convert([undefined]).changes, ["[0]: undefined, became null"]);
  assert.deepEqual(convert(NaN).changes, ["(message): NaN, became null"]);
});
