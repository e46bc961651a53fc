#!/usr/bin/env python3
"""Writes a large, realistic bridge session as a tap log (docs/FORMAT.md §9) on standard
output, for `bridgescope record -o FILE.bsz --tap -` (tools/bench/analyze/run.sh).

    generate.py [--megabytes N] [--seed S] [--parallel K] [--redacted] [--messages M]

Journeys as the sample pages run them, K at a time on their own connections,
interleaved in time: host.ready, journey.started, capability.query, progress and
orientation events, a document capture (front, and back for ID cards; sometimes
acknowledged first, sometimes a double tap answered BUSY, sometimes a retake), an NFC
read with a chip photo, a selfie with preview and blobs, journey.complete. Images are
base64 strings of 100-500 KB (random bytes, as incompressible as JPEG data); NFC photos
15-30 KB. A few anomalies are planted per 100 journeys (an unanswered NFC read, a late
selfie, a BUSY storm), so the report has findings of several rules. Stops after the
first journey that takes the message bytes past N megabytes (10^6 bytes; default 1100).
Deterministic for a seed, except that image bytes come from os.urandom (faster).

With --redacted, every image and blob is what `record --redact` and the field taps leave
of it: {"redacted":true,"sha256":"<hex>","bytes":N} (the field session of issue 21:
hundreds of thousands of small envelopes); with --messages M it stops after M messages
instead of N megabytes. Fully deterministic then.
"""
import argparse, base64, json, os, random, sys

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--megabytes", type=int, default=1100)
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--redacted", action="store_true")
    ap.add_argument("--messages", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    out = sys.stdout.buffer
    limit = a.megabytes * 1_000_000
    total = [0, 0]  # bytes, messages
    t0 = 1_795_000_000_000  # ms

    def image(lo=100_000, hi=500_000):
        n = rng.randrange(lo, hi) // 4 * 3
        if a.redacted:
            return {"redacted": True, "sha256": "%064x" % rng.getrandbits(256), "bytes": n // 3 * 4}
        return base64.b64encode(os.urandom(n)).decode()

    def env(cid, typ, action, ts, data=None, status=None, error=None):
        p = {"action": action}
        if data is not None: p["data"] = data
        if status is not None: p["status"] = status
        if error is not None: p["error"] = error
        return {"version": "1.0", "correlationId": cid, "type": typ, "timestamp": ts, "payload": p}

    def journey(n, first=True):
        """Yields (delay_ms, dir, envelope) for journey n (host.ready only when it is the
        first journey on its connection)."""
        uid = lambda k: "%08x-%04x-4%03x-a%03x-%012x" % (rng.getrandbits(32), n & 0xFFFF, k, rng.getrandbits(12), rng.getrandbits(48))
        k = [0]
        def nid():
            k[0] += 1
            return uid(k[0])
        anomaly = n % 100
        if first:
            yield 0, "h2w", env("ios-event-" + nid(), "event", "host.ready", 0, {"hostVersion": "1.4.2"})
        yield 40, "w2h", env(nid(), "event", "journey.started", 0, {"journey": "passport" if n % 2 else "id-card"})
        q = nid()
        yield 5, "w2h", env(q, "request", "capability.query", 0)
        caps = {"camera.document": {"supported": True, "version": "1.0", "permissionState": "granted"},
                "camera.selfie": {"supported": True, "version": "1.0", "permissionState": "granted"},
                "nfc.read": {"supported": True, "version": "1.0"}}
        yield rng.randrange(3, 40), "h2w", env(q, "response", "capability.query", 0,
                                                {"environment": "ios", "hostVersion": "1.4.2", "capabilities": caps}, "success")
        for p in range(rng.randrange(3, 8)):
            yield rng.randrange(50, 400), "w2h", env(nid(), "event", "journey.progress", 0, {"step": "intro", "percent": p * 3})
        sides = ["front"] if n % 2 else ["front", "back"]
        if n % 7 == 3: sides.append(sides[-1])  # a retake
        for side in sides:
            d = nid()
            data = {"documentType": "passport" if n % 2 else "id_card", "side": side}
            yield rng.randrange(500, 3000), "w2h", env(d, "request", "camera.document.capture", 0, data)
            if n % 5 == 0:
                yield 20, "h2w", env(d, "response", "camera.document.capture", 0, status="acknowledged")
            busy = 5 if anomaly == 42 else (1 if n % 9 == 0 else 0)
            for _ in range(busy):
                b = nid()
                yield 150, "w2h", env(b, "request", "camera.document.capture", 0, data)
                yield 1, "h2w", env(b, "response", "camera.document.capture", 0, status="error",
                                    error={"code": "BUSY", "message": "A camera.document capture request is already in progress", "recoverable": True})
            for _ in range(rng.randrange(2, 6)):
                yield rng.randrange(100, 600), "h2w", env("ios-event-" + nid(), "event", "host.orientation", 0, {"orientation": rng.choice(["portrait", "landscape"])})
            img = image()
            yield rng.randrange(800, 4000), "h2w", env(d, "response", "camera.document.capture", 0,
                                                      {"imageData": img, "width": 1280, "height": 900, "mimeType": "image/jpeg"}, "success")
            yield 30, "w2h", env(nid(), "event", "journey.progress", 0, {"step": "document-" + side, "percent": 40})
        r = nid()
        yield rng.randrange(300, 900), "w2h", env(r, "request", "nfc.read", 0, {"documentType": "passport"})
        if anomaly != 17:
            yield rng.randrange(2000, 9000), "h2w", env(r, "response", "nfc.read", 0,
                                                        {"chipRead": True, "dataGroups": ["DG1", "DG2"], "mrz": "P<GBRDOE<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
                                                         "photo": image(15_000, 30_000)}, "success")
        else:
            yield 30_500, "w2h", env(nid(), "event", "journey.progress", 0, {"step": "nfc-timeout"})
        s = nid()
        yield rng.randrange(500, 2000), "w2h", env(s, "request", "camera.selfie.capture", 0, {})
        preview = image()
        size = preview["bytes"] if a.redacted else len(preview)
        blob = image(size, size + 64) if a.redacted else base64.b64encode(os.urandom(len(preview) // 4 * 3 + 48)).decode()
        raw = image(size - 1000, size + 1000)
        yield (31_000 if anomaly == 63 else rng.randrange(1500, 5000)), "h2w", env(s, "response", "camera.selfie.capture", 0,
            {"previewImageData": preview, "width": 480, "height": 640, "mimeType": "image/jpeg", "encryptedBlob": blob, "unencryptedBlob": raw}, "success")
        yield rng.randrange(200, 800), "w2h", env(nid(), "event", "journey.complete", 0, {"status": "success", "referenceId": "bench-%d" % n})

    # Each live journey: [time of its next message, connection, generator, (dir, envelope)].
    live = []
    started = 0
    def advance(j, base):
        try:
            delay, d, e = next(j[2])
        except StopIteration:
            return False
        j[0] = base + delay * 1_000_000 + rng.randrange(0, 1_000_000)
        j[3] = (d, e)
        return True
    def start(at, conn=None):
        nonlocal started
        # Image-heavy sessions: a connection per journey. Small sessions (--messages): the
        # journeys of each of the K slots follow each other on one connection, as in a
        # WebView that runs journey after journey (the field session of issue 21).
        j = [at, conn or "c%d" % started, journey(started, conn is None), None]
        started += 1
        if advance(j, at): live.append(j)
    for _ in range(a.parallel): start(t0 * 1_000_000)
    while live:
        j = min(live, key=lambda x: x[0])
        d, e = j[3]
        e["timestamp"] = j[0] // 1_000_000
        msg = json.dumps(e, separators=(",", ":")).encode()
        out.write(b'{"t":%d,"dir":"%s","conn":"%s","msg":' % (j[0], d.encode(), j[1].encode()) + msg + b"}\n")
        total[0] += len(msg)
        total[1] += 1
        if not advance(j, j[0]):
            live.remove(j)
            if (total[1] < a.messages) if a.messages else (total[0] < limit):
                start(j[0], j[1] if a.messages else None)
    print("generated %d journeys, %d messages, %d message bytes" % (started, total[1], total[0]), file=sys.stderr)

if __name__ == "__main__":
    main()
