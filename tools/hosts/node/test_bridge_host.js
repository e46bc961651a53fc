// Tests of bridge_host.js: each spawns the host, feeds it stdin lines and checks stdout.
// Run: node --test tools/hosts/node/   (or: node --test tools/hosts/node/test_bridge_host.js)
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { captureDelay, parseJson } = require('./bridge_host.js');

const HOST = path.join(__dirname, 'bridge_host.js');
const TS = 1700000000000;

function req(id, action, data, extra = {}) {
  const payload = { action };
  if (data !== undefined) payload.data = data;
  return { version: '1.0', correlationId: id, type: 'request', timestamp: TS, payload, ...extra };
}

// Spawns the host. lines: strings (sent as they are), objects (sent as JSON) or
// { wait: ms }. Resolves when the host exits: { out (parsed stdout lines), code, stderr }.
function runHost(lines, env = {}, { close = true } = {}) {
  const child = spawn(process.execPath, [HOST], {
    env: { PATH: process.env.PATH, BRIDGE_HOST_DELAY_MS: '20-40', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const feed = (async () => {
    for (const line of lines) {
      if (line && line.wait) await new Promise((r) => setTimeout(r, line.wait));
      else child.stdin.write((typeof line === 'string' ? line : JSON.stringify(line)) + '\n');
    }
    if (close) child.stdin.end();
  })();
  const result = async () => {
    await feed;
    const { code, signal } = await exited;
    const out = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return { out, code, signal, stderr };
  };
  return { child, result, output: () => stdout };
}

const run = (lines, env) => runHost(lines, env).result();
const responses = (out) => out.filter((m) => m.type === 'response');
const byId = (out, id) => responses(out).filter((m) => m.correlationId === id);

// The single answer to id, checked to be the only one.
function only(out, id) {
  const found = byId(out, id);
  assert.equal(found.length, 1, `exactly one answer to ${id}, got ${JSON.stringify(found)}`);
  return found[0];
}

function assertError(answer, status, code, recoverable, action) {
  assert.equal(answer.payload.status, status);
  assert.equal(answer.payload.error.code, code);
  assert.equal(answer.payload.error.recoverable, recoverable);
  assert.equal(typeof answer.payload.error.message, 'string');
  assert.equal(answer.payload.data, undefined);
  if (action !== undefined) assert.equal(answer.payload.action, action);
}

function assertEnvelope(m) {
  assert.equal(m.version, '1.0');
  assert.ok(Number.isInteger(m.timestamp) && m.timestamp > 1e12);
  assert.ok(typeof m.correlationId === 'string' && m.correlationId.length > 0);
}

// ---------------------------------------------------------------------------

test('host.ready is the first line; empty stdin exits 0', async () => {
  const { out, code } = await run([]);
  assert.equal(code, 0);
  assert.equal(out.length, 1);
  const [ready] = out;
  assertEnvelope(ready);
  assert.equal(ready.type, 'event');
  assert.match(ready.correlationId, /^web-event-[0-9a-f-]{36}$/);
  assert.equal(ready.payload.action, 'host.ready');
  assert.deepEqual(ready.payload.data, { protocolVersion: '1.0', environment: 'web', hostVersion: '0.1.0-node' });
});

test('capability.query is answered at once with the three capabilities', async () => {
  const { out } = await run([req('q1', 'capability.query')]);
  const a = only(out, 'q1');
  assertEnvelope(a);
  assert.equal(a.payload.action, 'capability.query');
  assert.equal(a.payload.status, 'success');
  assert.equal(a.payload.data.environment, 'web');
  assert.equal(typeof a.payload.data.hostVersion, 'string');
  const cap = { supported: true, version: '1.0' };
  assert.deepEqual(a.payload.data.capabilities, { 'camera.document': cap, 'camera.selfie': cap, 'nfc.read': cap });
});

test('camera.document.capture: a real PNG of the stated size', async () => {
  const { out } = await run([req('d1', 'camera.document.capture', { documentType: 'passport', side: 'front' })]);
  const a = only(out, 'd1');
  assert.equal(a.payload.status, 'success');
  assert.equal(a.payload.action, 'camera.document.capture');
  const { imageData, width, height, mimeType } = a.payload.data;
  assert.equal(mimeType, 'image/png');
  const png = Buffer.from(imageData, 'base64');
  assert.equal(png.toString('base64'), imageData);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(png.toString('latin1', 12, 16), 'IHDR');
  assert.equal(png.readUInt32BE(16), width);
  assert.equal(png.readUInt32BE(20), height);
});

test('camera.selfie.capture: a real JPEG of the stated size and two blobs', async () => {
  const { out } = await run([req('s1', 'camera.selfie.capture')]);
  const a = only(out, 's1');
  assert.equal(a.payload.status, 'success');
  assert.equal(a.payload.action, 'camera.selfie.capture');
  const d = a.payload.data;
  assert.equal(d.mimeType, 'image/jpeg');
  const jpeg = Buffer.from(d.previewImageData, 'base64');
  assert.deepEqual([...jpeg.subarray(0, 2)], [0xff, 0xd8]);
  assert.deepEqual([...jpeg.subarray(-2)], [0xff, 0xd9]);
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  assert.ok(sof > 0, 'a baseline SOF0 marker');
  assert.equal(jpeg.readUInt16BE(sof + 5), d.height);
  assert.equal(jpeg.readUInt16BE(sof + 7), d.width);
  for (const blob of [d.encryptedBlob, d.unencryptedBlob]) {
    assert.ok(blob.length > 0 && Buffer.from(blob, 'base64').toString('base64') === blob);
  }
  assert.notEqual(d.encryptedBlob, d.unencryptedBlob);
});

test('nfc.read succeeds with the data groups', async () => {
  const { out } = await run([req('n1', 'nfc.read', { hang: false })]);
  const a = only(out, 'n1');
  assert.equal(a.payload.status, 'success');
  assert.equal(a.payload.action, 'nfc.read');
  assert.deepEqual(a.payload.data, { chipRead: true, dataGroups: ['DG1', 'DG2'] });
});

test('concurrent: a second document capture is BUSY at once; the other slot is free', async () => {
  const lines = [
    req('d1', 'camera.document.capture'),
    req('d2', 'camera.document.capture'),
    req('s1', 'camera.selfie.capture'),
    req('s2', 'camera.selfie.capture'),
  ];
  const { out, code } = await run(lines, { BRIDGE_HOST_DELAY_MS: '60-80' });
  assert.equal(code, 0);
  const order = responses(out).map((m) => m.correlationId);
  assert.deepEqual(order.slice(0, 2), ['d2', 's2']);
  assertError(only(out, 'd2'), 'error', 'BUSY', true, 'camera.document.capture');
  assert.match(only(out, 'd2').payload.error.message, /camera\.document/);
  assertError(only(out, 's2'), 'error', 'BUSY', true, 'camera.selfie.capture');
  assert.equal(only(out, 'd1').payload.status, 'success');
  assert.equal(only(out, 's1').payload.status, 'success');
});

test('concurrent: a slot is free again once its capture is answered', async () => {
  const lines = [req('d1', 'camera.document.capture'), { wait: 150 }, req('d2', 'camera.document.capture')];
  const { out } = await run(lines);
  assert.equal(only(out, 'd1').payload.status, 'success');
  assert.equal(only(out, 'd2').payload.status, 'success');
});

test('serial: no BUSY; each message is answered before the next is read', async () => {
  const lines = [
    req('d1', 'camera.document.capture'),
    req('d2', 'camera.document.capture'),
    req('q1', 'capability.query'),
  ];
  const { out, code } = await run(lines, { BRIDGE_HOST_MODE: 'serial' });
  assert.equal(code, 0);
  assert.deepEqual(responses(out).map((m) => [m.correlationId, m.payload.status]), [
    ['d1', 'success'],
    ['d2', 'success'],
    ['q1', 'success'],
  ]);
});

test('any other action is UNSUPPORTED_ACTION at once; web events are not answered', async () => {
  const event = { version: '1.0', correlationId: 'e1', type: 'event', timestamp: TS, payload: { action: 'journey.started' } };
  const lines = [event, req('u1', 'foo.bar'), req('u2', 'host.ready'), req('u3', 'journey.complete', { status: 'ok' })];
  const { out } = await run(lines);
  assert.equal(byId(out, 'e1').length, 0);
  for (const [id, action] of [['u1', 'foo.bar'], ['u2', 'host.ready'], ['u3', 'journey.complete']]) {
    assertError(only(out, id), 'unsupported', 'UNSUPPORTED_ACTION', false, action);
  }
});

test('invalid requests are answered INVALID_REQUEST with their action, or "invalid"', async () => {
  const noTimestamp = req('i2', 'capability.query');
  delete noTimestamp.timestamp;
  const cases = [
    [req('i1', 'capability.query', null), 'capability.query'], // data: null
    [noTimestamp, 'capability.query'],
    [{ version: '1.0', correlationId: 'i3', type: 'request', timestamp: TS, payload: {} }, 'invalid'],
    [req('i4', ''), 'invalid'],
    [req('i5', 42), 'invalid'],
    [req('i6', 'capability.query', [1]), 'capability.query'],
    [req('i7', 'capability.query', undefined, { timestamp: 1.5 }), 'capability.query'],
    [req('i8', 'capability.query', undefined, { timestamp: -1 }), 'capability.query'],
    [req('i9', 'capability.query', undefined, { timestamp: '1700000000000' }), 'capability.query'],
    [req('i10', 'capability.query', undefined, { version: 1 }), 'capability.query'],
    [req('i11', 'capability.query', undefined, { payload: { action: 'nfc.read', status: 'success' } }), 'nfc.read'],
    [req('i12', 'capability.query', undefined, { payload: null }), 'invalid'],
    [req('i13', 'no dots here'), 'no dots here'],
    [req('i14', 'nfc.read', undefined, { payload: { action: 'nfc.read', data: {}, error: null } }), 'nfc.read'],
  ];
  const { out } = await run(cases.map(([m]) => m));
  for (const [m, action] of cases) {
    assertError(only(out, m.correlationId), 'error', 'INVALID_REQUEST', false, action);
  }
});

test('version 1.x is accepted, another major is VERSION_MISMATCH', async () => {
  const lines = [
    req('v1', 'capability.query', undefined, { version: '1.7' }),
    req('v2', 'capability.query', undefined, { version: '2.0' }),
    req('v3', 'capability.query', undefined, { version: 'one' }),
  ];
  const { out } = await run(lines);
  assert.equal(only(out, 'v1').payload.status, 'success');
  assertError(only(out, 'v2'), 'error', 'VERSION_MISMATCH', false, 'capability.query');
  assertError(only(out, 'v3'), 'error', 'INVALID_REQUEST', false, 'capability.query');
});

test('accepted: unknown members, seconds timestamps, numbers beyond 2^53, CRLF', async () => {
  const lines = [
    req('a1', 'capability.query', { anything: [1, { x: null }] }, { extra: 1, payload: { action: 'capability.query', more: true } }),
    req('a2', 'capability.query', undefined, { timestamp: 1700000000 }),
    '{"version":"1.0","correlationId":"a3","type":"request","timestamp":18446744073709551616,"payload":{"action":"capability.query"}}',
    JSON.stringify(req('a4', 'capability.query')) + '\r',
    '',
    '\r',
  ];
  const { out } = await run(lines);
  for (const id of ['a1', 'a2', 'a3', 'a4']) assert.equal(only(out, id).payload.status, 'success', id);
});

test('bytes that are not a request object with an id are never answered', async () => {
  const good = JSON.stringify(req('x', 'capability.query'));
  const lines = [
    'not json',
    good.slice(0, -1), // truncated
    '[' + good + ']', // a JSON array
    JSON.stringify({ type: 'request', payload: { action: 'capability.query' } }), // no correlationId
    JSON.stringify(req('', 'capability.query')), // empty correlationId
    JSON.stringify(req(7, 'capability.query')), // not a string
    JSON.stringify({ ...req('r1', 'capability.query'), type: 'response' }), // wrong direction
    JSON.stringify({ ...req('r2', 'capability.query'), type: 'Request' }),
    '\ufeff' + JSON.stringify(req('r3', 'capability.query')), // byte-order mark
    JSON.stringify(req('r4', 'capability.query')).replace('"r4"', '"r4\\ud800"'), // lone surrogate
    Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString('latin1'), // not UTF-8 (written as latin1 below)
    '{"correlationId":"r5","type":"request",}',
    '42',
    'null',
  ];
  const r = runHost([], {}, { close: false });
  for (const line of lines) r.child.stdin.write(Buffer.from(line + '\n', line.startsWith('\xff') ? 'latin1' : 'utf8'));
  r.child.stdin.end();
  const { out, code } = await r.result();
  assert.equal(code, 0);
  assert.deepEqual(out.map((m) => m.payload.action), ['host.ready']);
});

test('nesting deeper than 64 in a request object is INVALID_REQUEST', async () => {
  const deep = (n) => '['.repeat(n) + ']'.repeat(n);
  const line = (id, n) => JSON.stringify(req(id, 'capability.query', { x: 'DEEP' })).replace('"DEEP"', deep(n));
  // envelope, payload and data are 3 levels: 61 more make 64, the limit.
  const { out } = await run([line('ok', 61), line('deep', 62), line('verydeep', 200000)]);
  assert.equal(only(out, 'ok').payload.status, 'success');
  assertError(only(out, 'deep'), 'error', 'INVALID_REQUEST', false, 'capability.query');
  assertError(only(out, 'verydeep'), 'error', 'INVALID_REQUEST', false, 'capability.query');
});

test('duplicate keys: the first wins', async () => {
  const lines = [
    '{"version":"1.0","correlationId":"first","correlationId":"second","type":"request","timestamp":1,"payload":{"action":"capability.query"}}',
    '{"version":"1.0","correlationId":"p1","type":"request","timestamp":1,"payload":{"action":"capability.query"},"payload":{"action":"foo.bar"}}',
    '{"version":"1.0","correlationId":"p2","type":"request","timestamp":1,"payload":{"action":"foo.bar","action":"capability.query"}}',
    '{"version":"1.0","correlationId":"p3","type":"request","type":"event","timestamp":1,"payload":{"action":"capability.query"}}',
  ];
  const { out } = await run(lines);
  assert.equal(only(out, 'first').payload.status, 'success');
  assert.equal(byId(out, 'second').length, 0);
  assert.equal(only(out, 'p1').payload.action, 'capability.query');
  assertError(only(out, 'p2'), 'unsupported', 'UNSUPPORTED_ACTION', false, 'foo.bar');
  assert.equal(only(out, 'p3').payload.status, 'success');
  assert.deepEqual(Object.keys(parseJson('{"a":1,"b":2,"a":3}', 64).value), ['a', 'b']);
});

test('an id still open is refused BUSY; the open request still gets its answer', async () => {
  const lines = [req('same', 'nfc.read'), req('same', 'capability.query'), req('same', 'camera.document.capture')];
  const { out } = await run(lines, { BRIDGE_HOST_DELAY_MS: '80' });
  const answers = byId(out, 'same');
  assert.equal(answers.length, 3);
  assertError(answers[0], 'error', 'BUSY', true, 'capability.query');
  assert.match(answers[0].payload.error.message, /in use/);
  assertError(answers[1], 'error', 'BUSY', true, 'camera.document.capture');
  assert.equal(answers[2].payload.status, 'success');
  assert.equal(answers[2].payload.action, 'nfc.read');
});

test('an id already answered is refused INVALID_REQUEST', async () => {
  const lines = [req('done', 'capability.query'), req('done', 'capability.query'), req('n', 'nfc.read'), { wait: 120 }, req('n', 'nfc.read')];
  const { out } = await run(lines);
  const done = byId(out, 'done');
  assert.equal(done.length, 2);
  assert.equal(done[0].payload.status, 'success');
  assertError(done[1], 'error', 'INVALID_REQUEST', false, 'capability.query');
  const n = byId(out, 'n');
  assert.equal(n[0].payload.status, 'success');
  assertError(n[1], 'error', 'INVALID_REQUEST', false, 'nfc.read');
});

test('capture times vary per request: a later capture on another slot can end first', async () => {
  const ids = Array.from({ length: 50 }, (_, i) => `req-${i}`);
  const delays = ids.map((id) => captureDelay(id));
  assert.ok(delays.every((d) => d >= 20 && d <= 200));
  assert.ok(new Set(delays).size > 20, 'delays differ between ids');
  const slow = ids.find((id) => captureDelay(id) >= 170);
  const fast = ids.find((id) => captureDelay(id) <= 50);
  const lines = [req(slow, 'camera.document.capture'), req(fast, 'camera.selfie.capture'), req('q', 'capability.query')];
  const { out } = await run(lines, { BRIDGE_HOST_DELAY_MS: '' });
  assert.deepEqual(responses(out).map((m) => m.correlationId), ['q', fast, slow]);
});

test('stdin closing early: answers still due are sent, then exit 0', async () => {
  const lines = [req('n1', 'nfc.read'), req('d1', 'camera.document.capture'), req('s1', 'camera.selfie.capture')];
  for (const mode of ['concurrent', 'serial']) {
    const { out, code } = await run(lines, { BRIDGE_HOST_MODE: mode, BRIDGE_HOST_DELAY_MS: '30-60' });
    assert.equal(code, 0, mode);
    for (const id of ['n1', 'd1', 's1']) assert.equal(only(out, id).payload.status, 'success', `${mode} ${id}`);
  }
});

test('bad configuration exits 2', async () => {
  for (const env of [{ BRIDGE_HOST_BUG: 'nope' }, { BRIDGE_HOST_MODE: 'parallel' }, { BRIDGE_HOST_DELAY_MS: '9-3' }]) {
    const { code, stderr, out } = await run([], env);
    assert.equal(code, 2, JSON.stringify(env));
    assert.equal(out.length, 0);
    assert.ok(stderr.length > 0);
  }
});

// ---------------------------------------------------------------------------
// Planted bugs: each one shows its misbehaviour.

test('bug no-busy: a second document capture is served, and can succeed first', async () => {
  const first = Array.from({ length: 50 }, (_, i) => `d-${i}`).find((id) => captureDelay(id) >= 150);
  const second = Array.from({ length: 50 }, (_, i) => `e-${i}`).find((id) => captureDelay(id) <= 60);
  const lines = [req(first, 'camera.document.capture'), req(second, 'camera.document.capture')];
  const { out } = await run(lines, { BRIDGE_HOST_BUG: 'no-busy', BRIDGE_HOST_DELAY_MS: '' });
  assert.deepEqual(responses(out).map((m) => [m.correlationId, m.payload.status]), [
    [second, 'success'],
    [first, 'success'],
  ]);
});

test('bug non-ascii-silent: a non-ASCII action is never answered', async () => {
  const lines = [req('na', 'caméra.capture'), req('na2', 'nfc.réad'), req('ok', 'foo.bar')];
  const correct = await run(lines);
  assertError(only(correct.out, 'na'), 'error', 'INVALID_REQUEST', false, 'caméra.capture');
  const buggy = await run(lines, { BRIDGE_HOST_BUG: 'non-ascii-silent' });
  assert.equal(buggy.code, 0);
  assert.deepEqual(responses(buggy.out).map((m) => m.correlationId), ['ok']);
});

test('bug double-final: nfc.read is answered success twice', async () => {
  const { out } = await run([req('n1', 'nfc.read'), req('q', 'capability.query')], { BRIDGE_HOST_BUG: 'double-final' });
  const answers = byId(out, 'n1');
  assert.equal(answers.length, 2);
  assert.ok(answers.every((m) => m.payload.status === 'success'));
  only(out, 'q');
});

test('bug wrong-action: the selfie success carries the document action', async () => {
  const { out } = await run([req('s1', 'camera.selfie.capture')], { BRIDGE_HOST_BUG: 'wrong-action' });
  const a = only(out, 's1');
  assert.equal(a.payload.status, 'success');
  assert.equal(a.payload.action, 'camera.document.capture');
});

test('bug crash: data.side that is not a string exits 3 after what was written', async () => {
  const lines = [req('q', 'capability.query'), req('c', 'camera.document.capture', { side: 42 }), req('after', 'capability.query')];
  const correct = await run(lines);
  assert.equal(correct.code, 0);
  assert.equal(only(correct.out, 'c').payload.status, 'success');
  const { out, code } = await run(lines, { BRIDGE_HOST_BUG: 'crash' });
  assert.equal(code, 3);
  assert.deepEqual(out.map((m) => m.payload.action), ['host.ready', 'capability.query']);
});

test('bug hang: an nfc.read whose id ends in 7 is never answered and the host never exits', async () => {
  const r = runHost([req('n-6', 'nfc.read'), req('n-17', 'nfc.read'), req('q', 'capability.query')], {
    BRIDGE_HOST_BUG: 'hang',
  });
  const exited = r.result();
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(r.child.exitCode, null, 'still running after stdin closed');
  assert.equal(r.child.signalCode, null);
  r.child.kill('SIGKILL');
  const { out, signal } = await exited;
  assert.equal(signal, 'SIGKILL');
  assert.equal(only(out, 'n-6').payload.status, 'success');
  assert.equal(byId(out, 'n-17').length, 0);
  assert.equal(byId(out, 'q').length, 0, 'stopped reading after the hang');
});
