#!/usr/bin/env python3
"""Drives `bridgescope host --stdio` as a scripted web side and writes the exchange as a
tap log (docs/FORMAT.md §9) that `bridgescope record --tap` imports.

    captures/scripts/stdio-session.py SCRIPT OUT.jsonl [--bin B] [--scenario F] [--pace S]

SCRIPT holds the web side's messages, one per line, sent as they are (byte for byte,
even when malformed); in a line, `@NOW` is replaced by the current epoch milliseconds
and `\\xHH` by the byte HH (for invalid UTF-8); lines starting with `#` and blank lines
are skipped. Every message in both directions is stamped with the wall clock when this
script wrote or read it, on connection `stdio`.
"""
import argparse, base64, json, re, subprocess, sys, threading, time

def is_verbatim_json(b):
    if b[:1].isspace() or b[-1:].isspace() or b"\n" in b or b"\r" in b:
        return False
    try:
        def bad(x): raise ValueError(x)
        json.loads(b.decode("utf-8"), parse_constant=bad)
        return True
    except Exception:
        return False

def tap_line(t, direction, payload):
    head = '{"t":%d,"dir":"%s","conn":"stdio",' % (t, direction)
    if is_verbatim_json(payload):
        return head.encode() + b'"msg":' + payload + b"}\n"
    try:
        return (head + '"text":' + json.dumps(payload.decode("utf-8"), ensure_ascii=False) + "}\n").encode()
    except UnicodeDecodeError:
        return (head + '"b64":"' + base64.b64encode(payload).decode() + '"}\n').encode()

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("script")
    ap.add_argument("out")
    ap.add_argument("--bin", default=".build/debug/bridgescope")
    ap.add_argument("--scenario")
    ap.add_argument("--pace", type=float, default=0.15)
    ap.add_argument("--seed", default="7")
    a = ap.parse_args()
    args = [a.bin, "host", "--stdio", "--seed", a.seed, "--log-level", "warning"]
    if a.scenario:
        args += ["--scenario", a.scenario]
    host = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    records, lock = [], threading.Lock()

    def read():
        for line in host.stdout:
            t = time.time_ns()
            with lock:
                records.append((t, "h2w", line.rstrip(b"\n")))
    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.3)  # host.ready first, as a real page would wait for it
    for raw in open(a.script, "rb").read().split(b"\n"):
        if not raw.strip() or raw.startswith(b"#"):
            continue
        msg = raw.replace(b"@NOW", str(time.time_ns() // 1_000_000).encode())
        msg = re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), msg)
        t = time.time_ns()
        with lock:
            records.append((t, "w2h", msg))
        host.stdin.write(msg + b"\n")
        host.stdin.flush()
        time.sleep(a.pace)
    host.stdin.close()
    try:
        host.wait(timeout=30)
    except subprocess.TimeoutExpired:
        host.kill()
        host.wait()
    reader.join()
    with open(a.out, "wb") as f:
        for t, d, p in sorted(records, key=lambda r: r[0]):
            f.write(tap_line(t, d, p))
    print("%s: %d messages, host exit status %d" % (a.out, len(records), host.returncode), file=sys.stderr)

if __name__ == "__main__":
    main()
