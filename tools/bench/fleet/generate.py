#!/usr/bin/env python3
"""Writes N small session archives (docs/FORMAT.md) for the fleet benchmark.

    generate.py DIR [--sessions N] [--messages M] [--seed S]

Each archive is one journey of about M messages (default 200) on one connection, as a
field tap records it (redacted, small envelopes): journey.started, capability.query
(with one of 4 host versions and 2 environments), host.ready, then rounds of progress
events, document captures (sometimes answered BUSY first), NFC reads and selfies, then
journey.complete. A few sessions per 100 carry planted defects: an unanswered nfc.read
and no journey end, a late selfie, a BUSY storm. Session start times spread over 7 days;
sources vary (tap, proxy, cdp). Lines are written as JSON Lines and compressed with the
zstd command line tool in batches (level 1, checksums), which is a valid archive:
one zstd frame, header, records, trailer with exact counts. Deterministic for a seed.
"""
import argparse, json, os, random, subprocess, sys

VERSIONS = ["4.1.0", "4.2.0", "4.2.1", "5.0.0-beta"]
ENVS = ["production", "sandbox"]
SOURCES = ["tap:app.ndjson", "proxy:127.0.0.1:8788", "cdp:http://127.0.0.1:9222"]


def session(rng, index, messages, start_ms):
    lines = []
    t = start_ms * 1_000_000
    seq = 0
    total_bytes = 0
    ids = 0
    version = VERSIONS[index % len(VERSIONS)] if rng.random() > 0.02 else rng.choice(VERSIONS)
    env = ENVS[0] if rng.random() < 0.8 else ENVS[1]
    defect = rng.random()

    def rec(direction, env_obj, dt_ms):
        nonlocal t, seq, total_bytes
        t += int(dt_ms * 1_000_000) + rng.randrange(0, 999_999)
        seq += 1
        env_obj["timestamp"] = t // 1_000_000
        msg = json.dumps(env_obj, separators=(",", ":"))
        total_bytes += len(msg.encode())
        lines.append('{"seq":%d,"t":%d,"dir":"%s","conn":"c1","msg":%s}' % (seq, t, direction, msg))

    def cid():
        nonlocal ids
        ids += 1
        return "%08x-%04d" % (index, ids)

    def request(action, data, latency_ms, status="success", error=None, rdata=None, answer=True):
        c = cid()
        p = {"action": action}
        if data is not None:
            p["data"] = data
        rec("w2h", {"version": "1.0", "correlationId": c, "type": "request", "payload": p}, rng.uniform(5, 40))
        if not answer:
            return
        rp = {"action": action, "status": status}
        if error:
            rp["error"] = error
        if rdata is not None:
            rp["data"] = rdata
        rec("h2w", {"version": "1.0", "correlationId": c, "type": "response", "payload": rp}, latency_ms)

    def event(direction, action, data=None):
        p = {"action": action}
        if data is not None:
            p["data"] = data
        rec(direction, {"version": "1.0", "correlationId": cid(), "type": "event", "payload": p}, rng.uniform(1, 20))

    event("h2w", "host.ready", {"hostVersion": version, "environment": env, "protocolVersion": "1.0"})
    event("w2h", "journey.started", {"journey": "passport"})
    caps = {k: {"supported": True, "version": "1.0", "permissionState": "granted"} for k in ("camera.document", "camera.selfie", "nfc")}
    request("capability.query", None, rng.uniform(1, 8), rdata={"environment": env, "hostVersion": version, "capabilities": caps})
    redacted = {"redacted": True, "sha256": "ab" * 32, "bytes": 123456}
    while seq < messages - 8:
        event("w2h", "journey.progress", {"step": seq})
        if defect < 0.02 and seq > messages // 2:
            for _ in range(4):
                request("camera.document.capture", {"documentType": "passport", "side": "front"}, rng.uniform(1, 3), status="error",
                        error={"code": "BUSY", "message": "busy", "recoverable": True})
        request("camera.document.capture", {"documentType": "passport", "side": "front"}, rng.lognormvariate(7.2, 0.5),
                rdata={"image": redacted, "documentType": "passport"})
        request("nfc.read", {"documentType": "passport"}, rng.lognormvariate(8.0, 0.4), rdata={"photo": redacted})
        late = defect > 0.98 and seq > messages // 2
        request("camera.selfie.capture", None, 31_000 if late else rng.lognormvariate(7.5, 0.5),
                rdata={"encryptedBlob": redacted, "unencryptedBlob": redacted, "previewImageData": redacted})
    if 0.02 <= defect < 0.04:
        request("nfc.read", {"documentType": "passport"}, 0, answer=False)
    else:
        event("w2h", "journey.complete", {"status": "success"})
    start_ns = start_ms * 1_000_000 - 5_000_000
    header = '{"bridgescope":"session","formatVersion":1,"source":"%s","host":"bench","filter":null,"startTime":%d,"toolVersion":"0.1.0"}' % (
        SOURCES[index % len(SOURCES)], start_ns)
    trailer = '{"bridgescope":"trailer","records":%d,"events":0,"bytes":%d,"drops":0,"gaps":0,"gapBytes":0,"errors":0,"endTime":%d}' % (
        seq, total_bytes, t + 1_000_000)
    return header + "\n" + "\n".join(lines) + "\n" + trailer + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--sessions", type=int, default=10000)
    ap.add_argument("--messages", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20261125)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.dir, exist_ok=True)
    week_ms = 7 * 24 * 3600 * 1000
    base_ms = 1_795_000_000_000
    batch = []
    for i in range(a.sessions):
        path = os.path.join(a.dir, "s%05d.bsz" % i)
        with open(path + ".jsonl", "w") as f:
            f.write(session(rng, i, a.messages, base_ms + rng.randrange(0, week_ms)))
        batch.append(path)
        if len(batch) == 500 or i == a.sessions - 1:
            subprocess.run(["zstd", "-q", "-1", "--rm", "-f"] + [p + ".jsonl" for p in batch], check=True)
            for p in batch:
                os.replace(p + ".jsonl.zst", p)
            batch = []


if __name__ == "__main__":
    main()
