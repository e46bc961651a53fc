#!/usr/bin/env python3
"""A second bridge host, written apart from the Swift reference host (BridgeHost).

It speaks the `bridgescope host --stdio` contract (docs/HOST.md): one JSON envelope per
line on stdin (web -> host), one per line on stdout (host -> web), logs on stderr, exit 0
when stdin closes and every request in progress is answered. It follows docs/PROTOCOL.md
and, wherever section 7 leaves a choice open, deliberately chooses differently from the
Swift host, so that a black-box fuzzer that judges hosts by our own choices shows up.
README.md next to this file lists every choice and every planted bug.

Python 3 standard library only. Environment:
  BRIDGE_HOST_BUG       planted bug (README.md); unset or empty = the correct host
  BRIDGE_HOST_DELAY_MS  delay before a capture or nfc.read answer (default 50)
  BRIDGE_HOST_LOG       "debug" logs every message on stderr (default: problems only)
"""

import base64
import heapq
import json
import os
import re
import signal
import struct
import sys
import threading
import time
import uuid
import zlib

PROTOCOL_VERSION = "1.0"
ENVIRONMENT = "android"          # PROTOCOL.md §3 allows ios | android | web; Swift says ios
HOST_VERSION = "0.9.0-python"
MAX_LINE_BYTES = 16 * 1024 * 1024  # PROTOCOL.md §6 (project rule: 16 MiB)
MAX_DEPTH = 64                     # PROTOCOL.md §6 (project rule: 64)
MAX_IN_PROGRESS = 4096             # our own limit; beyond it requests are answered BUSY
BIG_INT_DIGITS = 1000              # longer integers are kept as text (no int() cost)

BUGS = {
    "crash-on-long-id": "exit with status 3 on a correlationId longer than 64 characters",
    "double-response": "answer capability.query twice",
    "no-busy": "accept a second capture on a busy slot instead of answering BUSY",
    "success-and-error": "answer capability.query with a success, then an error",
    "hang-on-nfc": "never answer nfc.read; ignore SIGTERM from then on",
    "wrong-id": "answer with another correlationId when the action contains 'document'",
}

ENVELOPE_MEMBERS = {"version", "correlationId", "type", "timestamp", "payload"}
ACTION_RE = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\Z")
VERSION_RE = re.compile(r"([0-9]+)\.([0-9]+)\Z")
SLOTS = {"camera.document.capture": "camera.document", "camera.selfie.capture": "camera.selfie"}


def log(level, message):
    if level == "debug" and os.environ.get("BRIDGE_HOST_LOG") != "debug":
        return
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    try:
        sys.stderr.write(f"{stamp} {level} bridge_host.py: {message}\n")
        sys.stderr.flush()
    except OSError:
        pass


def now_ms():
    return time.time_ns() // 1_000_000


# ---------------------------------------------------------------- fake images

def tiny_png(width, height, rgb):
    """A real PNG, one flat colour, built with zlib."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    row = b"\x00" + bytes(rgb) * width
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height))
            + chunk(b"IEND", b""))


def tiny_jpeg():
    """A real baseline JPEG, 8x16 grey, one component: every block has DC 0 and no AC.

    Both Huffman tables hold one code of length 1 ("0") for symbol 0, so each block is the
    two bits "00" (DC category 0, then EOB)."""
    def segment(marker, body):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body
    dqt = b"\x00" + b"\x01" * 64
    sof = struct.pack(">BHHB", 8, 16, 8, 1) + b"\x01\x11\x00"  # 8 bits, h 16, w 8, 1 comp
    one_code = b"\x01" + b"\x00" * 15 + b"\x00"
    dht = b"\x00" + one_code + b"\x10" + one_code                # DC 0, AC 0
    sos = b"\x01\x01\x00\x00\x3f\x00"
    jfif = b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    return (b"\xff\xd8" + segment(0xE0, jfif) + segment(0xDB, dqt) + segment(0xC0, sof)
            + segment(0xC4, dht) + segment(0xDA, sos) + b"\x0f" + b"\xff\xd9")


def b64(data):
    return base64.b64encode(data).decode("ascii")


DOCUMENT_IMAGES = {
    "front": (54, 38, b64(tiny_png(54, 38, (30, 60, 140)))),
    "back": (54, 38, b64(tiny_png(54, 38, (140, 60, 30)))),
    "single": (54, 76, b64(tiny_png(54, 76, (60, 140, 30)))),
}
SELFIE_JPEG = b64(tiny_jpeg())
ENCRYPTED_BLOB = b64(b"PYTHON-HOST-FAKE-ENCRYPTED-BLOB " + bytes(range(96)))
UNENCRYPTED_BLOB = b64(b"PYTHON-HOST-FAKE-UNENCRYPTED-BLOB " + bytes(range(96, 192)))


# ---------------------------------------------------------------- decoding

class BigInt:
    """An integer literal too long to convert cheaply; kept as its text (not a str, so it
    can never pass for a string member)."""

    def __init__(self, text):
        self.text = text


class Invalid(Exception):
    """The line is not a valid envelope; `code` is what a request gets (if anything)."""

    def __init__(self, message, code="INVALID_REQUEST"):
        super().__init__(message)
        self.code = code


def reject_constant(name):
    raise ValueError(f"{name} is not JSON (RFC 8259)")


def parse_int(text):
    return BigInt(text) if len(text) > BIG_INT_DIGITS else int(text)


def scan(value):
    """Depth of a decoded value, and whether every string is valid Unicode (no lone
    surrogate from a \\uD800-style escape). Iterative: no recursion on hostile input."""
    depth, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return depth, False
        elif isinstance(item, (dict, list)):
            depth = max(depth, level)
            children = list(item.items()) if isinstance(item, dict) else item
            for child in children:
                if isinstance(child, tuple):
                    stack.append((child[0], level))
                    stack.append((child[1], level + 1))
                else:
                    stack.append((child, level + 1))
    return depth, True


def parse_line(raw):
    """The JSON object of a line, or None when the bytes are not JSON at all (malformed,
    not UTF-8, NaN, lone surrogates, too deep for the parser). Duplicate keys: last wins
    (json.loads default; PROTOCOL.md §7 leaves it open)."""
    try:
        text = raw.decode("utf-8")
        value = json.loads(text, parse_int=parse_int, parse_constant=reject_constant)
    except (ValueError, RecursionError) as error:
        log("notice", f"event=invalid-input not JSON ({str(error)[:120]}); not answered (PROTOCOL.md §4)")
        return None
    _, unicode_ok = scan(value) if isinstance(value, (dict, list, str)) else (0, True)
    if not unicode_ok:
        log("notice", "event=invalid-input lone surrogate escape; not answered (PROTOCOL.md §4)")
        return None
    return value


def is_timestamp(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, BigInt):
        return not value.text.startswith("-")     # beyond 2^63: accepted (PROTOCOL.md §7)
    return isinstance(value, int) and value >= 0


def check_envelope(obj):
    """Raises Invalid for an object that is not a valid web -> host envelope."""
    depth, _ = scan(obj)
    if depth > MAX_DEPTH:
        raise Invalid(f"the message nests {depth} levels deep; this host takes at most {MAX_DEPTH}")
    unknown = sorted(set(obj) - ENVELOPE_MEMBERS)
    if unknown:                              # PROTOCOL.md §7: unknown members may be invalid
        raise Invalid(f"the envelope has a member the protocol does not define: {unknown[0]!r}")
    for name in ("version", "correlationId", "type", "timestamp", "payload"):
        if name not in obj:
            raise Invalid(f"the envelope has no {name!r}")
    version, cid, kind, payload = obj["version"], obj["correlationId"], obj["type"], obj["payload"]
    if not isinstance(cid, str) or not cid:
        raise Invalid("correlationId must be a non-empty string")
    if kind not in ("request", "response", "event"):
        raise Invalid("type must be request, response or event")
    if kind == "response":
        raise Invalid("a response cannot travel from the web side to the host")
    if not is_timestamp(obj["timestamp"]):
        raise Invalid("timestamp must be a whole number of epoch milliseconds, 0 or more")
    if not isinstance(payload, dict):
        raise Invalid("payload must be an object")
    action = payload.get("action")
    if not isinstance(action, str) or not ACTION_RE.match(action):
        raise Invalid("payload.action must be a dot-separated name like camera.document.capture")
    if payload.get("data") is not None and not isinstance(payload["data"], dict):
        raise Invalid("payload.data must be an object when present")
    for name in ("status", "error"):         # PROTOCOL.md §1: responses only
        if name in payload:
            raise Invalid(f"payload.{name} belongs on responses only, not on a {kind}")
    if not isinstance(version, str):
        raise Invalid("version must be a string such as \"1.0\"")
    match = VERSION_RE.match(version)
    if not match:
        raise Invalid(f"version {version[:40]!r} is not a protocol version")
    if (int(match.group(1)), int(match.group(2))) != (1, 0):   # §1; 1.x: §7
        raise Invalid(f"this host speaks protocol 1.0 only, not {version[:40]!r}", "VERSION_MISMATCH")


# ---------------------------------------------------------------- the host

class Host:
    def __init__(self, bug, delay_ms):
        self.bug = bug
        self.delay = delay_ms / 1000.0
        self.lock = threading.Condition(threading.RLock())
        self.in_progress = {}          # correlationId -> action
        self.slots = {}                # slot id -> correlationId
        self.timers = []               # heap of (deadline, serial, callback)
        self.serial = 0
        self.stdin_closed = False
        self.stdout_dead = False
        threading.Thread(target=self.run_timers, name="timers", daemon=True).start()

    # -- output
    def write(self, envelope):
        line = json.dumps(envelope, separators=(", ", ": ")) + "\n"
        with self.lock:
            if self.stdout_dead:
                return
            try:
                sys.stdout.write(line)
                sys.stdout.flush()
            except (BrokenPipeError, OSError) as error:
                self.stdout_dead = True
                log("error", f"event=stdout-closed {error}; answers from now on are dropped")
        log("debug", f"host -> web {line[:300].rstrip()}")

    def envelope(self, kind, cid, payload):
        # Key order differs from the Swift host on purpose (PROTOCOL.md §7).
        return {"type": kind, "correlationId": cid, "payload": payload,
                "timestamp": now_ms(), "version": PROTOCOL_VERSION}

    def event(self, action, data):
        self.write(self.envelope("event", f"{ENVIRONMENT}-event-{uuid.uuid4()}",
                                 {"action": action, "data": data}))

    def respond(self, cid, action, status, data=None, error=None):
        if self.bug == "wrong-id" and "document" in action:
            cid = cid + "-x"
        payload = {"status": status, "action": action}
        if error is not None:
            code, message, recoverable = error
            payload["error"] = {"recoverable": recoverable, "code": code, "message": message}
        if data is not None:
            payload["data"] = data
        self.write(self.envelope("response", cid, payload))

    # -- timers
    def schedule(self, callback):
        with self.lock:
            self.serial += 1
            heapq.heappush(self.timers, (time.monotonic() + self.delay, self.serial, callback))
            self.lock.notify_all()

    def run_timers(self):
        with self.lock:
            while True:
                if not self.timers:
                    self.lock.wait()
                    continue
                wait = self.timers[0][0] - time.monotonic()
                if wait > 0:
                    self.lock.wait(wait)
                    continue
                _, _, callback = heapq.heappop(self.timers)
                callback()
                self.lock.notify_all()

    # -- input
    def start(self):
        self.event("host.ready", {"protocolVersion": PROTOCOL_VERSION,
                                  "environment": ENVIRONMENT, "hostVersion": HOST_VERSION})

    def receive(self, raw):
        obj = parse_line(raw)
        if obj is None:
            return
        if not isinstance(obj, dict):
            log("notice", "event=invalid-input JSON but not an object; not answered (PROTOCOL.md §4)")
            return
        cid = obj.get("correlationId")
        if self.bug == "crash-on-long-id" and isinstance(cid, str) and len(cid) > 64:
            log("error", "planted bug crash-on-long-id: exiting with status 3")
            sys.stdout.flush()
            os._exit(3)
        try:
            check_envelope(obj)
        except Invalid as problem:
            self.reject(obj, problem)
            return
        action = obj["payload"]["action"]
        if obj["type"] == "event":
            log("debug", f"web event {action} ({cid})")
            return
        with self.lock:
            self.route(cid, action, obj["payload"].get("data") or {})

    def reject(self, obj, problem):
        """PROTOCOL.md §4: answered only for an object with type "request" and a non-empty
        string correlationId; the action echoed when it is a well-formed name."""
        cid, payload = obj.get("correlationId"), obj.get("payload")
        answerable = obj.get("type") == "request" and isinstance(cid, str) and cid != ""
        log("notice", f"event=invalid-input {problem}; {'answered ' + problem.code if answerable else 'not answered'}")
        if not answerable:
            return
        action = payload.get("action") if isinstance(payload, dict) else None
        if not isinstance(action, str) or not ACTION_RE.match(action):
            action = "invalid"
        with self.lock:
            self.respond(cid, action, "error", error=(problem.code, f"Rejected: {problem}", False))

    def route(self, cid, action, data):
        if cid in self.in_progress:            # PROTOCOL.md §7: ours rejects the second one
            log("notice", f"event=duplicate-id {cid!r} is already in progress; answered INVALID_REQUEST")
            self.respond(cid, action, "error", error=(
                "INVALID_REQUEST", f"correlationId {cid!r} belongs to a request still in progress", False))
            return
        if action == "capability.query":
            self.answer_query(cid)
            return
        if action in SLOTS or action == "nfc.read":
            if len(self.in_progress) >= MAX_IN_PROGRESS:
                self.respond(cid, action, "error", error=(
                    "BUSY", f"Too many requests in progress ({MAX_IN_PROGRESS}); retry later", True))
                return
        if action in SLOTS:
            slot = SLOTS[action]
            if slot in self.slots and self.bug != "no-busy":
                log("notice", f"event=busy {slot} is serving {self.slots[slot]!r}; {cid!r} answered BUSY")
                self.respond(cid, action, "error", error=(
                    "BUSY", f"A {slot} capture request is already in progress", True))
                return
            self.slots[slot] = cid
            self.in_progress[cid] = action
            # An event between a request and its answer (PROTOCOL.md §7: order is open).
            self.event("host.orientation", {"orientation": "portrait"})
            self.schedule(lambda: self.finish_capture(cid, action, slot, data))
            return
        if action == "nfc.read":
            self.in_progress[cid] = action
            if self.bug == "hang-on-nfc":
                log("notice", "planted bug hang-on-nfc: never answering; SIGTERM ignored")
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                return
            self.schedule(lambda: self.finish(cid, action, {"dataGroups": ["DG1", "DG2"], "chipRead": True}))
            return
        self.respond(cid, action, "unsupported", error=(
            "UNSUPPORTED_ACTION", f"No handler for {action!r} on this {ENVIRONMENT} host", False))

    def answer_query(self, cid):
        capabilities = {
            "nfc.read": {"version": "1.0", "supported": True},
            "camera.selfie": {"version": "1.0", "supported": True, "permissionState": "granted"},
            "camera.document": {"version": "1.0", "supported": True, "permissionState": "granted",
                                "constraints": {"sides": ["front", "back", "single"]}},
        }
        data = {"capabilities": capabilities, "hostVersion": HOST_VERSION, "environment": ENVIRONMENT}
        self.respond(cid, "capability.query", "success", data=data)
        if self.bug == "double-response":
            self.respond(cid, "capability.query", "success", data=data)
        elif self.bug == "success-and-error":
            self.respond(cid, "capability.query", "error", error=(
                "INTERNAL_ERROR", "planted bug: an error after the success", False))

    def finish_capture(self, cid, action, slot, data):
        if self.slots.get(slot) == cid:
            del self.slots[slot]
        if slot == "camera.document":
            side = data.get("side") if isinstance(data.get("side"), str) else "front"
            width, height, image = DOCUMENT_IMAGES.get(side, DOCUMENT_IMAGES["front"])
            result = {"mimeType": "image/png", "width": width, "height": height, "imageData": image}
        else:
            result = {"mimeType": "image/jpeg", "width": 8, "height": 16, "previewImageData": SELFIE_JPEG,
                      "encryptedBlob": ENCRYPTED_BLOB, "unencryptedBlob": UNENCRYPTED_BLOB}
        self.finish(cid, action, result)

    def finish(self, cid, action, result):
        self.in_progress.pop(cid, None)
        self.respond(cid, action, "success", data=result)

    def wait_until_idle(self):
        with self.lock:
            self.stdin_closed = True
            while self.in_progress:
                self.lock.wait()


def read_lines(stream):
    """Lines of stdin without their LF or CRLF; an empty line is skipped; a line over
    16 MiB is dropped whole (PROTOCOL.md §6) and logged."""
    while True:
        line = stream.readline(MAX_LINE_BYTES + 2)
        if not line:
            return
        if not line.endswith(b"\n") and len(line) > MAX_LINE_BYTES:
            dropped = len(line)
            while line and not line.endswith(b"\n"):
                line = stream.readline(MAX_LINE_BYTES)
                dropped += len(line)
            log("notice", f"event=too-large a line of {dropped} bytes is over 16 MiB; dropped, not answered")
            continue
        line = line[:-1] if line.endswith(b"\n") else line
        line = line[:-1] if line.endswith(b"\r") else line
        if line:
            yield line


def main():
    bug = os.environ.get("BRIDGE_HOST_BUG", "")
    if bug and bug not in BUGS:
        sys.stderr.write(f"bridge_host.py: unknown BRIDGE_HOST_BUG {bug!r}; known: {', '.join(BUGS)}\n")
        return 2
    try:
        delay_ms = int(os.environ.get("BRIDGE_HOST_DELAY_MS", "50"))
        if not 0 <= delay_ms <= 3_600_000:
            raise ValueError
    except ValueError:
        sys.stderr.write("bridge_host.py: BRIDGE_HOST_DELAY_MS must be a whole number of ms from 0 to 3600000\n")
        return 2
    if bug:
        log("notice", f"planted bug {bug}: {BUGS[bug]}")
    host = Host(bug, delay_ms)
    host.start()
    for line in read_lines(sys.stdin.buffer):
        log("debug", f"web -> host {line[:300]!r}")
        try:
            host.receive(line)
        except Exception as error:   # a host bug must not become a crash on input (§7)
            log("error", f"event=internal-error {type(error).__name__}: {error}; the line is dropped")
    host.wait_until_idle()
    if host.stdout_dead:             # nothing left to flush into a closed pipe at exit
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
