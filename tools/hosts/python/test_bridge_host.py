"""Tests of bridge_host.py through its stdio contract (a subprocess per test).

Run from any directory:
    python3 -m unittest tools/hosts/python/test_bridge_host.py     (from the repository)
    python3 -m unittest discover -s tools/hosts/python
    cd tools/hosts/python && python3 -m unittest
"""

import base64
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import unittest

HOST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bridge_host.py")
WAIT = 10.0          # generous: the machine may be loaded
STATUSES = {"success", "error", "cancelled", "unsupported", "acknowledged"}


def envelope(cid, action, kind="request", data=None, **extra):
    payload = {"action": action}
    if data is not None:
        payload["data"] = data
    message = {"version": "1.0", "correlationId": cid, "type": kind,
               "timestamp": int(time.time() * 1000), "payload": payload}
    message.update(extra)
    return json.dumps(message)


class HostProcess:
    """bridge_host.py in a subprocess; stdout lines parsed into a queue as they come."""

    def __init__(self, bug=None, delay_ms=None):
        env = dict(os.environ)
        env.pop("BRIDGE_HOST_BUG", None)
        if bug:
            env["BRIDGE_HOST_BUG"] = bug
        if delay_ms is not None:
            env["BRIDGE_HOST_DELAY_MS"] = str(delay_ms)
        self.proc = subprocess.Popen([sys.executable, HOST], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        self.raw = []
        self.stderr = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self):
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, *lines):
        for line in lines:
            self.proc.stdin.write((line if isinstance(line, bytes) else line.encode()) + b"\n")
        self.proc.stdin.flush()

    def close(self):
        self.proc.stdin.close()

    def next(self, timeout=WAIT):
        message = self.lines.get(timeout=timeout)
        if message is None:
            raise AssertionError("the host closed stdout")
        return message

    def until_response(self, cid, timeout=WAIT):
        """Messages up to and including the first response for cid."""
        seen, deadline = [], time.monotonic() + timeout
        while True:
            message = self.next(max(0.01, deadline - time.monotonic()))
            seen.append(message)
            if message["type"] == "response" and message["correlationId"] == cid:
                return seen

    def finish(self, timeout=WAIT):
        """Closes stdin, waits for exit; returns (status, every message still to come)."""
        if not self.proc.stdin.closed:
            self.close()
        status = self.proc.wait(timeout=timeout)
        rest = []
        while True:
            message = self.lines.get(timeout=timeout)
            if message is None:
                return status, rest
            rest.append(message)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=WAIT)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


class ProtocolChecks(unittest.TestCase):
    """What PROTOCOL.md fixes for every host -> web message."""

    def check_envelope(self, message):
        self.assertEqual(set(message), {"version", "correlationId", "type", "timestamp", "payload"})
        self.assertEqual(message["version"], "1.0")
        self.assertIsInstance(message["correlationId"], str)
        self.assertTrue(message["correlationId"])
        self.assertIn(message["type"], ("response", "event"))
        self.assertIsInstance(message["timestamp"], int)
        self.assertGreaterEqual(message["timestamp"], 10 ** 11)
        payload = message["payload"]
        self.assertRegex(payload["action"], r"\A[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\Z")
        if message["type"] == "event":
            self.assertNotIn("status", payload)
            self.assertNotIn("error", payload)
            self.assertTrue(message["correlationId"].startswith("android-event-"))
            return
        self.assertIn(payload["status"], STATUSES)
        if payload["status"] in ("error", "unsupported"):
            error = payload["error"]
            self.assertEqual(set(error), {"code", "message", "recoverable"})
            self.assertIsInstance(error["code"], str)
            self.assertIsInstance(error["message"], str)
            self.assertIsInstance(error["recoverable"], bool)
        else:
            self.assertNotIn("error", payload)

    def response(self, messages, cid):
        for message in messages:
            self.check_envelope(message)
        answers = [m for m in messages if m["type"] == "response" and m["correlationId"] == cid]
        self.assertEqual(len(answers), 1, f"one response for {cid}: {messages}")
        return answers[0]

    def check_one_response_each(self, host, reused=()):
        """PROTOCOL.md §2: exactly one final response per request, over the whole run
        (ids in `reused` were sent twice while open: §7 lets a host answer both)."""
        counts = {}
        for message in map(json.loads, host.raw):
            self.check_envelope(message)
            if message["type"] == "response":
                counts[message["correlationId"]] = counts.get(message["correlationId"], 0) + 1
        for cid, count in counts.items():
            self.assertEqual(count, 2 if cid in reused else 1, f"responses for {cid}")
        return counts

    def start(self, **options):
        host = HostProcess(**options)
        self.addCleanup(host.kill)
        ready = host.next()
        self.check_envelope(ready)
        self.assertEqual(ready["type"], "event")
        self.assertEqual(ready["payload"]["action"], "host.ready")
        return host


class PassportJourney(ProtocolChecks):
    def test_passport_journey(self):
        host = self.start()
        host.send(envelope("q-1", "capability.query"))
        query = self.response(host.until_response("q-1"), "q-1")["payload"]
        self.assertEqual(query["status"], "success")
        self.assertEqual(query["action"], "capability.query")
        self.assertIn(query["data"]["environment"], ("ios", "android", "web"))
        self.assertIsInstance(query["data"]["hostVersion"], str)
        capabilities = query["data"]["capabilities"]
        self.assertEqual(set(capabilities), {"camera.document", "camera.selfie", "nfc.read"})
        for capability in capabilities.values():
            self.assertIs(capability["supported"], True)
            self.assertIsInstance(capability["version"], str)

        for side in ("front", "back"):
            cid = f"doc-{side}"
            host.send(envelope(cid, "camera.document.capture", data={"documentType": "passport", "side": side}))
            answer = self.response(host.until_response(cid), cid)["payload"]
            self.assertEqual((answer["status"], answer["action"]), ("success", "camera.document.capture"))
            self.assertEqual(answer["data"]["mimeType"], "image/png")
            self.assertTrue(base64.b64decode(answer["data"]["imageData"]).startswith(b"\x89PNG\r\n\x1a\n"))
            self.assertIsInstance(answer["data"]["width"], int)
            self.assertIsInstance(answer["data"]["height"], int)

        host.send(envelope("nfc-1", "nfc.read", data={"documentType": "passport"}))
        answer = self.response(host.until_response("nfc-1"), "nfc-1")["payload"]
        self.assertEqual((answer["status"], answer["action"]), ("success", "nfc.read"))
        self.assertIs(answer["data"]["chipRead"], True)

        host.send(envelope("selfie-1", "camera.selfie.capture"))
        answer = self.response(host.until_response("selfie-1"), "selfie-1")["payload"]
        self.assertEqual((answer["status"], answer["action"]), ("success", "camera.selfie.capture"))
        result = answer["data"]
        self.assertEqual(result["mimeType"], "image/jpeg")
        preview = base64.b64decode(result["previewImageData"])
        self.assertTrue(preview.startswith(b"\xff\xd8") and preview.endswith(b"\xff\xd9"))
        blobs = {base64.b64decode(result["encryptedBlob"]), base64.b64decode(result["unencryptedBlob"])}
        self.assertEqual(len(blobs | {preview}), 3, "blobs differ from the preview and each other")

        host.send(envelope("web-3", "journey.complete", kind="event", data={"status": "success"}))
        status, rest = host.finish()
        self.assertEqual(status, 0)
        self.assertEqual(rest, [], "nothing answers a web event")
        self.assertEqual(set(self.check_one_response_each(host)),
                         {"q-1", "doc-front", "doc-back", "nfc-1", "selfie-1"})

    def test_exit_waits_for_answers_in_progress(self):
        host = self.start()
        host.send(envelope("nfc-1", "nfc.read"), envelope("doc-1", "camera.document.capture"))
        status, rest = host.finish()
        self.assertEqual(status, 0)
        answered = {m["correlationId"]: m["payload"]["status"] for m in rest if m["type"] == "response"}
        self.assertEqual(answered, {"nfc-1": "success", "doc-1": "success"})
        self.check_one_response_each(host)

    def test_second_capture_on_a_busy_slot_is_busy_other_slot_is_not(self):
        host = self.start()
        host.send(envelope("doc-1", "camera.document.capture", data={"side": "front"}),
                  envelope("doc-2", "camera.document.capture", data={"side": "back"}),
                  envelope("selfie-1", "camera.selfie.capture"))
        status, rest = host.finish()
        self.assertEqual(status, 0)
        busy = self.response(rest, "doc-2")["payload"]
        self.assertEqual((busy["status"], busy["error"]["code"], busy["error"]["recoverable"]),
                         ("error", "BUSY", True))
        self.assertEqual(busy["action"], "camera.document.capture")
        self.assertEqual(self.response(rest, "doc-1")["payload"]["status"], "success")
        self.assertEqual(self.response(rest, "selfie-1")["payload"]["status"], "success")
        self.check_one_response_each(host)

    def test_unknown_action_is_unsupported(self):
        host = self.start()
        host.send(envelope("x-1", "payment.card.scan"))
        answer = self.response(host.until_response("x-1"), "x-1")["payload"]
        self.assertEqual((answer["status"], answer["action"]), ("unsupported", "payment.card.scan"))
        self.assertEqual((answer["error"]["code"], answer["error"]["recoverable"]), ("UNSUPPORTED_ACTION", False))
        self.assertEqual(host.finish()[0], 0)
        self.check_one_response_each(host)

    def test_bad_input_is_answered_only_when_it_is_a_request_object(self):
        host = self.start()
        host.send(b"not json", b"[1,2]", b"\xff\xfe{}", b'{"type":"request","correlationId":"x"',
                  b'{"version":"1.0","correlationId":"s\\ud800","type":"request","timestamp":1,"payload":{"action":"a.b"}}',
                  json.dumps({"type": "request", "correlationId": ""}),
                  '{"type":"request","correlationId":' + "7" * 1500 + "}",
                  json.dumps({"type": "event", "correlationId": "e-1"}),
                  '{"version":"1.0","correlationId":"r-1","type":"response","timestamp":1700000000000,'
                  '"payload":{"action":"foo.bar","status":"success"}}',
                  json.dumps({"type": "request", "correlationId": "bad-1", "payload": {"action": "Bad Action"}}),
                  envelope("bad-2", "foo.bar", data=[1]),
                  '{"version":"1.0","correlationId":"nan","type":"request","timestamp":NaN,"payload":{"action":"a.b"}}')
        status, rest = host.finish()
        self.assertEqual(status, 0)
        self.assertEqual(sorted(m["correlationId"] for m in rest), ["bad-1", "bad-2"])
        for cid, action in (("bad-1", "invalid"), ("bad-2", "foo.bar")):
            answer = self.response(rest, cid)["payload"]
            self.assertEqual((answer["status"], answer["action"]), ("error", action))
            self.assertEqual((answer["error"]["code"], answer["error"]["recoverable"]), ("INVALID_REQUEST", False))
        self.check_one_response_each(host)


class LegalChoices(ProtocolChecks):
    """Where PROTOCOL.md §7 leaves the answer open, this host's choices (README.md)."""

    def codes(self, *lines):
        host = self.start()
        host.send(*lines)
        status, rest = host.finish()
        self.assertEqual(status, 0)
        self.check_one_response_each(host, reused={"nfc"})
        return {m["correlationId"]: m["payload"].get("error", {}).get("code", m["payload"]["status"])
                for m in rest if m["type"] == "response"}

    def test_choices(self):
        codes = self.codes(
            '{"version":"1.0","correlationId":"first","correlationId":"last","type":"request",'
            '"timestamp":1700000000000,"payload":{"action":"a.b"}}',
            '{"version":"1.0","correlationId":"big","type":"request","timestamp":'
            + "9" * 2000 + ',"payload":{"action":"a.b"}}',
            envelope("v11", "a.b", version="1.1"),
            envelope("v2", "a.b", version="2.0"),
            envelope("extra", "a.b", extra=1),
            envelope("nfc", "nfc.read"), envelope("nfc", "a.b"))
        self.assertEqual(codes, {"last": "UNSUPPORTED_ACTION", "big": "UNSUPPORTED_ACTION",
                                 "v11": "VERSION_MISMATCH", "v2": "VERSION_MISMATCH",
                                 "extra": "INVALID_REQUEST", "nfc": "success"})


class PlantedBugs(ProtocolChecks):
    def test_unknown_bug_name_is_a_usage_error(self):
        host = HostProcess(bug="no-such-bug")
        self.addCleanup(host.kill)
        self.assertEqual(host.proc.wait(timeout=WAIT), 2)

    def test_crash_on_long_id(self):
        long_id = "x" * 65
        host = self.start()                       # the correct host answers it
        host.send(envelope(long_id, "capability.query"))
        self.response(host.until_response(long_id), long_id)
        self.assertEqual(host.finish()[0], 0)
        host = self.start(bug="crash-on-long-id")
        host.send(envelope("x" * 64, "capability.query"))
        self.response(host.until_response("x" * 64), "x" * 64)
        host.send(envelope(long_id, "capability.query"))
        self.assertEqual(host.proc.wait(timeout=WAIT), 3)

    def test_double_response(self):
        host = self.start(bug="double-response")
        host.send(envelope("q-1", "capability.query"))
        _, rest = host.finish()
        self.assertEqual([m["payload"]["status"] for m in rest if m["correlationId"] == "q-1"],
                         ["success", "success"])

    def test_success_and_error(self):
        host = self.start(bug="success-and-error")
        host.send(envelope("q-1", "capability.query"))
        _, rest = host.finish()
        self.assertEqual([m["payload"]["status"] for m in rest if m["correlationId"] == "q-1"],
                         ["success", "error"])

    def test_no_busy(self):
        host = self.start(bug="no-busy")
        host.send(envelope("doc-1", "camera.document.capture"), envelope("doc-2", "camera.document.capture"))
        status, rest = host.finish()
        self.assertEqual(status, 0)
        self.assertEqual({m["correlationId"]: m["payload"]["status"] for m in rest if m["type"] == "response"},
                         {"doc-1": "success", "doc-2": "success"})

    def test_wrong_id(self):
        host = self.start(bug="wrong-id")
        host.send(envelope("doc-1", "camera.document.capture"), envelope("selfie-1", "camera.selfie.capture"))
        _, rest = host.finish()
        ids = sorted(m["correlationId"] for m in rest if m["type"] == "response")
        self.assertIn("selfie-1", ids)
        self.assertNotIn("doc-1", ids)
        self.assertEqual(len(ids), 2)

    def test_hang_on_nfc(self):
        host = self.start(bug="hang-on-nfc")
        host.send(envelope("nfc-1", "nfc.read"))
        deadline = time.monotonic() + WAIT
        while not any("never answering" in line for line in host.stderr):
            self.assertLess(time.monotonic(), deadline, "the host never logged the hang")
            time.sleep(0.02)
        host.close()
        with self.assertRaises(subprocess.TimeoutExpired):
            host.proc.wait(timeout=0.5)          # stdin closed: still there
        host.proc.send_signal(signal.SIGTERM)
        with self.assertRaises(subprocess.TimeoutExpired):
            host.proc.wait(timeout=0.5)          # SIGTERM ignored
        host.proc.kill()
        self.assertEqual(host.proc.wait(timeout=WAIT), -signal.SIGKILL)
        self.assertTrue(host.lines.empty() or host.lines.get() is None, "nfc.read never answered")


if __name__ == "__main__":
    unittest.main()
