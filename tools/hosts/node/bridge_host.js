#!/usr/bin/env node
// A third bridge host, in JavaScript (node 20, standard library only), written from
// docs/PROTOCOL.md alone. It speaks the `bridgescope host --stdio` contract: envelopes
// from the web side on stdin, one per line; every host-to-web envelope on stdout as one
// compact JSON line; logs on stderr. See README.md beside this file.
//
// Environment:
//   BRIDGE_HOST_MODE      concurrent (default) | serial
//   BRIDGE_HOST_DELAY_MS  MIN-MAX or N: capture / nfc.read delay range (default 20-200)
//   BRIDGE_HOST_BUG       a planted bug (see PLANTED_BUGS), unset or empty: none
//   BRIDGE_HOST_LOG       notice (default) | debug
'use strict';

const crypto = require('node:crypto');

const PROTOCOL_VERSION = '1.0';
const HOST_VERSION = '0.1.0-node';
const ENVIRONMENT = 'web';
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024; // PROTOCOL.md §6
const MAX_DEPTH = 64; // PROTOCOL.md §6
const SECONDS_LOOKING = 1e11; // §1: a timestamp below this looks like seconds (warning only)
const DEFAULT_DELAY = { min: 20, max: 200 };

const PLANTED_BUGS = ['no-busy', 'non-ascii-silent', 'double-final', 'wrong-action', 'crash', 'hang'];
const MODES = ['concurrent', 'serial'];

// Typed capture slots (§2) by the action that uses them.
const CAPTURE_SLOTS = new Map([
  ['camera.document.capture', 'camera.document'],
  ['camera.selfie.capture', 'camera.selfie'],
]);

// Real images: a 24x16 RGB gradient PNG and a 16x24 baseline JPEG (made once with Pillow).
const DOCUMENT_IMAGE = {
  imageData:
    'iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAAAbklEQVR42q3TQRKAIAgFUBK+5+lIHbWb0aJEqp2fnTLOG5kP236cUIc6zNNBZuWpy/uBd5N8bSXKgGgF5q1EgUorUXJrlBKtscr9owIFllMjFGikxikjNVrJc0QpsSKsMlKjlf+KLCrf7V9WuskFdG9Q0OcM28QAAAAASUVORK5CYII=',
  width: 24,
  height: 16,
  mimeType: 'image/png',
};
const SELFIE_PREVIEW = {
  previewImageData:
    '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCAAYABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwCC3t+nFalvb9OKLe36cVq29v04rjO8Le36cVqW9v04oooA/9k=',
  width: 16,
  height: 24,
  mimeType: 'image/jpeg',
};

// ---------------------------------------------------------------------------
// JSON: a strict RFC 8259 parser whose objects keep the FIRST of duplicate keys
// (JSON.parse keeps the last). Iterative, so deep nesting cannot overflow the
// stack; nesting beyond maxDepth is reported (tooDeep), not thrown, so that a
// too-deep request object can still be answered INVALID_REQUEST (§4, §6).
// Objects have no prototype, so a "__proto__" key is an ordinary member.

class JsonError extends Error {}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function parseJson(text, maxDepth) {
  let i = 0;
  let tooDeep = false;
  const stack = []; // open containers: { value, isObject, key }

  const fail = (what) => {
    throw new JsonError(`${what} at offset ${i}`);
  };
  const skipSpace = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      i++;
    }
  };
  const hex4 = () => {
    const digits = text.slice(i, i + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) fail('bad \\u escape');
    i += 4;
    return parseInt(digits, 16);
  };
  const readString = () => {
    i++; // opening quote
    let out = '';
    let runStart = i;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail('control character in string');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(runStart, i);
      const e = text[i + 1];
      i += 2;
      if (e === 'u') {
        const unit = hex4();
        if (unit >= 0xdc00 && unit <= 0xdfff) fail('lone low surrogate');
        if (unit >= 0xd800 && unit <= 0xdbff) {
          if (text[i] !== '\\' || text[i + 1] !== 'u') fail('lone high surrogate');
          i += 2;
          const low = hex4();
          if (low < 0xdc00 || low > 0xdfff) fail('lone high surrogate');
          out += String.fromCharCode(unit, low);
        } else {
          out += String.fromCharCode(unit);
        }
      } else if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
        out += ESCAPES[e];
      } else {
        fail('bad escape');
      }
      runStart = i;
    }
    out += text.slice(runStart, i);
    i++; // closing quote
    return out;
  };
  const readKey = (frame) => {
    skipSpace();
    if (text[i] !== '"') fail('expected a member name');
    frame.key = readString();
    skipSpace();
    if (text[i] !== ':') fail("expected ':'");
    i++;
  };
  const readScalar = () => {
    const c = text[i];
    if (c === '"') return readString();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail('expected a value');
    i += m[0].length;
    return Number(m[0]); // beyond 2^53: rounded; beyond ~1.8e308: Infinity
  };

  for (;;) {
    // Expecting a value.
    skipSpace();
    let value;
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      const frame = { value: c === '{' ? Object.create(null) : [], isObject: c === '{', key: null };
      stack.push(frame);
      if (stack.length > maxDepth) tooDeep = true;
      skipSpace();
      if (text[i] !== (frame.isObject ? '}' : ']')) {
        if (frame.isObject) readKey(frame);
        continue; // now expecting the first member's value
      }
      i++;
      stack.pop();
      value = frame.value;
    } else {
      value = readScalar();
    }
    // A complete value: store it, then close every container that ends here.
    for (;;) {
      if (stack.length === 0) {
        skipSpace();
        if (i !== text.length) fail('trailing characters');
        return { value, tooDeep };
      }
      const top = stack[stack.length - 1];
      if (!top.isObject) top.value.push(value);
      else if (!Object.hasOwn(top.value, top.key)) top.value[top.key] = value; // first wins
      skipSpace();
      if (text[i] === ',') {
        i++;
        if (top.isObject) readKey(top);
        break; // expecting the next value
      }
      if (text[i] !== (top.isObject ? '}' : ']')) fail("expected ',' or the container's end");
      i++;
      stack.pop();
      value = top.value;
    }
  }
}

// ---------------------------------------------------------------------------
// Envelope rules (§1).

// A member's value as quoted in logs and error messages, cut to a readable length.
const quote = (s) => JSON.stringify(s.length > 80 ? s.slice(0, 80) + '...' : s);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const ACTION_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+$/; // a dot-separated name
const VERSION = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;

const invalid = (message) => ({ code: 'INVALID_REQUEST', message: `Invalid request: ${message}` });

// Checks a message already known to be an object with "type":"request" and a non-empty
// string correlationId. Returns null when it is a valid request, else { code, message }.
function checkRequest(msg) {
  const { version, timestamp, payload } = msg;
  if (!Object.hasOwn(msg, 'version')) return invalid('version is missing');
  if (typeof version !== 'string') return invalid('version must be a string');
  const v = VERSION.exec(version);
  if (!v) return invalid(`version ${quote(version)} is not MAJOR.MINOR`);
  if (v[1] !== '1') {
    return { code: 'VERSION_MISMATCH', message: `Protocol version ${version} is not supported (this host speaks 1.x)` };
  }
  if (!Object.hasOwn(msg, 'timestamp')) return invalid('timestamp is missing');
  if (typeof timestamp !== 'number') return invalid('timestamp must be a number');
  if (!Number.isInteger(timestamp) || timestamp < 0) return invalid('timestamp must be a whole number >= 0');
  if (!Object.hasOwn(msg, 'payload')) return invalid('payload is missing');
  if (!isObject(payload)) return invalid('payload must be an object');
  if (!Object.hasOwn(payload, 'action')) return invalid('payload.action is missing');
  if (typeof payload.action !== 'string') return invalid('payload.action must be a string');
  if (!ACTION_NAME.test(payload.action)) return invalid('payload.action must be a dot-separated name');
  if (Object.hasOwn(payload, 'data') && !isObject(payload.data)) return invalid('payload.data must be an object');
  if (Object.hasOwn(payload, 'status')) return invalid('payload.status must not appear on a request');
  if (Object.hasOwn(payload, 'error')) return invalid('payload.error must not appear on a request');
  return null;
}

// The action an answer carries: the request's when it is a non-empty string (§4).
function answerAction(msg) {
  const action = isObject(msg.payload) ? msg.payload.action : undefined;
  return typeof action === 'string' && action !== '' ? action : 'invalid';
}

// ---------------------------------------------------------------------------
// Configuration and capture delays.

class ConfigError extends Error {}

function readConfig(env) {
  const bug = env.BRIDGE_HOST_BUG || '';
  if (bug !== '' && !PLANTED_BUGS.includes(bug)) {
    throw new ConfigError(`unknown BRIDGE_HOST_BUG "${bug}" (known: ${PLANTED_BUGS.join(', ')})`);
  }
  const mode = env.BRIDGE_HOST_MODE || 'concurrent';
  if (!MODES.includes(mode)) throw new ConfigError(`unknown BRIDGE_HOST_MODE "${mode}" (concurrent or serial)`);
  const logLevel = env.BRIDGE_HOST_LOG || 'notice';
  if (logLevel !== 'notice' && logLevel !== 'debug') {
    throw new ConfigError(`unknown BRIDGE_HOST_LOG "${logLevel}" (notice or debug)`);
  }
  let delay = DEFAULT_DELAY;
  if (env.BRIDGE_HOST_DELAY_MS) {
    const m = /^([0-9]{1,7})(?:-([0-9]{1,7}))?$/.exec(env.BRIDGE_HOST_DELAY_MS);
    delay = m && { min: Number(m[1]), max: Number(m[2] ?? m[1]) };
    if (!delay || delay.min > delay.max) {
      throw new ConfigError(`bad BRIDGE_HOST_DELAY_MS "${env.BRIDGE_HOST_DELAY_MS}" (MIN-MAX or N, in ms)`);
    }
  }
  return { bug, mode, debug: logLevel === 'debug', delay };
}

// The delay of one capture or nfc.read: min + FNV-1a(correlationId) mod (max - min + 1).
// Deterministic per id, and different between ids, so a later capture can end first.
function captureDelay(correlationId, range = DEFAULT_DELAY) {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(correlationId, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return range.min + (h % (range.max - range.min + 1));
}

// ---------------------------------------------------------------------------
// The host: one instance per session. io = { write(line), log(level, text), exit(code), onHang() }.

class BridgeHost {
  constructor(config, io) {
    this.config = config;
    this.io = io;
    this.open = new Map(); // correlationId -> action, for requests still in progress
    this.answered = new Set(); // correlationIds already given their final response
    this.busySlots = new Map(); // slot -> correlationId serving it
    this.hung = false;
    this.decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  }

  log(level, text) {
    if (level !== 'debug' || this.config.debug) this.io.log(level, text);
  }

  send(envelope) {
    const line = JSON.stringify(envelope);
    this.log('debug', `-> ${line.length > 300 ? line.slice(0, 300) + '...' : line}`);
    this.io.write(line);
  }

  start() {
    this.send({
      version: PROTOCOL_VERSION,
      correlationId: `web-event-${crypto.randomUUID()}`,
      type: 'event',
      timestamp: Date.now(),
      payload: { action: 'host.ready', data: { protocolVersion: PROTOCOL_VERSION, environment: ENVIRONMENT, hostVersion: HOST_VERSION } },
    });
  }

  respond(id, action, status, body) {
    const payload = { action, status, ...body };
    this.send({ version: PROTOCOL_VERSION, correlationId: id, type: 'response', timestamp: Date.now(), payload });
  }

  // The final response to a request: the id is now answered.
  finish(id, action, status, body) {
    this.open.delete(id);
    this.answered.add(id);
    this.respond(id, action, status, body);
  }

  fail(id, action, code, message, recoverable, status = 'error') {
    this.log('notice', `${quote(id)}: ${status} ${code}: ${message}`);
    this.finish(id, action, status, { error: { code, message, recoverable } });
  }

  // One line from stdin (bytes, without its line ending). Returns a promise when the
  // request is answered later (captures, nfc.read), so a serial reader can wait for it.
  handleLine(bytes) {
    this.log('debug', `<- ${bytes.length > 300 ? bytes.subarray(0, 300) + '...' : bytes}`);
    let parsed;
    try {
      parsed = parseJson(this.decoder.decode(bytes), MAX_DEPTH);
    } catch (e) {
      this.log('notice', `not a JSON text, not answered: ${e.message}`);
      return undefined;
    }
    const msg = parsed.value;
    if (!isObject(msg)) return this.log('notice', 'not a JSON object, not answered');
    if (msg.type !== 'request') return this.noteNonRequest(msg);

    const bug = this.config.bug;
    const data = isObject(msg.payload) ? msg.payload.data : undefined;
    // A type confusion a real host could have: `side` read as a string without a check.
    if (bug === 'crash' && isObject(data) && Object.hasOwn(data, 'side') && typeof data.side !== 'string') {
      this.io.log('notice', 'planted bug crash: data.side is not a string; exiting with status 3');
      return this.io.exit(3);
    }
    const id = msg.correlationId;
    if (typeof id !== 'string' || id === '') return this.log('notice', 'request without a non-empty string correlationId, not answered');
    const action = answerAction(msg);
    if (bug === 'non-ascii-silent' && /[^\x00-\x7f]/.test(action)) {
      return this.io.log('notice', `planted bug non-ascii-silent: ${quote(id)} not answered`);
    }

    if (this.open.has(id)) {
      // Not this request's final response: the open request keeps its own (§7).
      this.log('notice', `${quote(id)}: BUSY, the correlationId belongs to a request still in progress`);
      this.respond(id, action, 'error', {
        error: { code: 'BUSY', message: `correlationId ${quote(id)} is in use by a request still in progress`, recoverable: true },
      });
      return undefined;
    }
    if (this.answered.has(id)) {
      return this.fail(id, action, 'INVALID_REQUEST', `correlationId ${quote(id)} was already answered`, false);
    }
    const problem = parsed.tooDeep ? invalid(`nesting deeper than ${MAX_DEPTH}`) : checkRequest(msg);
    if (problem) return this.fail(id, action, problem.code, problem.message, false);
    if (msg.timestamp < SECONDS_LOOKING) this.log('notice', `${quote(id)}: timestamp ${msg.timestamp} looks like seconds (accepted)`);
    return this.route(id, action);
  }

  noteNonRequest(msg) {
    const what = typeof msg.type === 'string' ? msg.type : 'message without a type';
    if (what === 'event') this.log('debug', `event ${quote(answerAction(msg))} from the web side, not answered`);
    else if (what === 'response') this.log('notice', 'a response from the web side is the wrong direction, not answered');
    else this.log('notice', `${quote(what)}: not a request, not answered`);
  }

  route(id, action) {
    if (action === 'capability.query') {
      const capability = { supported: true, version: '1.0' };
      return this.finish(id, action, 'success', {
        data: {
          environment: ENVIRONMENT,
          hostVersion: HOST_VERSION,
          capabilities: { 'camera.document': capability, 'camera.selfie': capability, 'nfc.read': capability },
        },
      });
    }
    if (CAPTURE_SLOTS.has(action)) return this.capture(id, action, CAPTURE_SLOTS.get(action));
    if (action === 'nfc.read') return this.readNfc(id, action);
    return this.fail(id, action, 'UNSUPPORTED_ACTION', `Action ${quote(action)} is not supported by this host`, false, 'unsupported');
  }

  capture(id, action, slot) {
    if (this.busySlots.has(slot) && this.config.bug !== 'no-busy') {
      return this.fail(id, action, 'BUSY', `A ${slot} capture request is already in progress`, true);
    }
    this.busySlots.set(slot, id);
    return this.later(id, action, () => {
      if (this.busySlots.get(slot) === id) this.busySlots.delete(slot);
      if (action === 'camera.document.capture') {
        return this.finish(id, action, 'success', { data: { ...DOCUMENT_IMAGE } });
      }
      const replyAction = this.config.bug === 'wrong-action' ? 'camera.document.capture' : action;
      return this.finish(id, replyAction, 'success', { data: { ...SELFIE_PREVIEW, ...selfieBlobs(id) } });
    });
  }

  readNfc(id, action) {
    if (this.config.bug === 'hang' && id.endsWith('7')) {
      this.open.set(id, action);
      this.hung = true;
      this.io.log('notice', `planted bug hang: ${quote(id)} never answered; no longer reading stdin`);
      this.io.onHang();
      return new Promise(() => {});
    }
    const data = { chipRead: true, dataGroups: ['DG1', 'DG2'] };
    return this.later(id, action, () => {
      this.finish(id, action, 'success', { data });
      if (this.config.bug !== 'double-final') return undefined;
      return new Promise((resolve) => setTimeout(() => resolve(this.respond(id, action, 'success', { data })), 10));
    });
  }

  // Opens the request and runs answer() after its delay; resolves when it has run.
  later(id, action, answer) {
    this.open.set(id, action);
    const ms = captureDelay(id, this.config.delay);
    this.log('debug', `${quote(id)}: ${action} answered in ${ms} ms`);
    return new Promise((resolve) => setTimeout(() => resolve(answer()), ms));
  }
}

// Two distinct placeholder blobs for a selfie, base64 (§3 fixes only their type).
function selfieBlobs(id) {
  const digest = crypto.createHash('sha256').update(`selfie:${id}`).digest();
  return {
    encryptedBlob: Buffer.concat([Buffer.from('ENC1'), digest]).toString('base64'),
    unencryptedBlob: Buffer.from(JSON.stringify({ liveness: 'passed', frames: 1 })).toString('base64'),
  };
}

// ---------------------------------------------------------------------------
// stdio: split stdin into lines (LF or CRLF), drop lines over the size limit unread.

class LineSplitter {
  constructor(limit, onLine, onDrop) {
    Object.assign(this, { limit, onLine, onDrop, parts: [], size: 0, dropping: false });
  }

  push(chunk) {
    let start = 0;
    for (let nl; (nl = chunk.indexOf(0x0a, start)) !== -1; start = nl + 1) {
      this.append(chunk.subarray(start, nl));
      this.emit();
    }
    this.append(chunk.subarray(start));
  }

  end() {
    if (this.size > 0 || this.dropping) this.emit();
  }

  append(part) {
    if (this.dropping || part.length === 0) return;
    if (this.size + part.length > this.limit + 1) {
      this.dropping = true; // + 1: room for a CR before the LF
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  emit() {
    let line = Buffer.concat(this.parts, this.size);
    const dropped = this.dropping;
    this.parts = [];
    this.size = 0;
    this.dropping = false;
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (dropped || line.length > this.limit) this.onDrop();
    else if (line.length > 0) this.onLine(line);
  }
}

function main() {
  const stderr = (level, text) => process.stderr.write(`bridge_host.js ${level}: ${text}\n`);
  let config;
  try {
    config = readConfig(process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    stderr('error', e.message);
    process.exit(2);
  }
  process.stdout.on('error', (e) => {
    stderr('error', `stdout: ${e.message}`);
    process.exit(e.code === 'EPIPE' ? 0 : 1);
  });

  const host = new BridgeHost(config, {
    write: (line) => process.stdout.write(line + '\n'), // synchronous for pipes and files on Linux
    log: stderr,
    exit: (code) => process.exit(code),
    onHang: () => {
      process.stdin.pause();
      process.stdin.removeAllListeners('data');
      setInterval(() => {}, 1 << 30); // never exits on its own
    },
  });
  const handle = (bytes) => {
    try {
      return host.handleLine(bytes);
    } catch (e) {
      stderr('error', `internal error, line not answered: ${e.stack}`);
      return undefined;
    }
  };

  // serial: one message at a time, each fully answered before the next is handled.
  const queue = [];
  let draining = false;
  const drain = async () => {
    draining = true;
    while (queue.length > 0 && !host.hung) await handle(queue.shift());
    draining = false;
  };
  const onLine = (bytes) => {
    if (host.hung) return;
    if (config.mode === 'concurrent') return void handle(bytes);
    queue.push(bytes);
    if (!draining) drain();
  };
  const splitter = new LineSplitter(MAX_MESSAGE_BYTES, onLine, () =>
    stderr('notice', `a line over ${MAX_MESSAGE_BYTES} bytes, dropped unread and not answered`),
  );

  host.start();
  process.stdin.on('data', (chunk) => splitter.push(chunk));
  process.stdin.on('end', () => splitter.end());
  // Nothing else holds the event loop: once stdin has ended and the last answer's timer
  // has fired (serial: the queue is empty), node exits with status 0.
}

if (require.main === module) main();

module.exports = { parseJson, JsonError, checkRequest, captureDelay, readConfig, BridgeHost, LineSplitter, MAX_DEPTH };
