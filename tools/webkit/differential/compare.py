#!/usr/bin/env python3
"""Compares what the host side received from tools/journey/differential.html on two engines.

  compare.py NATIVE.jsonl TRANSCRIPT.jsonl [--table]

NATIVE.jsonl: the lines a stdio host behind bridgescope-webkit received (one envelope per
line). TRANSCRIPT.jsonl: `bridgescope host --transcript` of the Chromium run (records with
"dir" and "msg"). Each probe (correlationId "probe-*") must have the same JSON on both
sides, member order ignored, or be absent on both. Exit 0 when they agree, 1 otherwise,
printing one line per probe. --table prints docs/WEBKIT.md's Markdown table instead.
Python's json keeps lone surrogates (\\udXXX), which strict parsers refuse.
"""
import json
import sys


MISSING = object()
# The probe names the page announced in journey.complete's data (probe-end).
announced = set()


def note_end(m):
    names = m.get("payload", {}).get("data", {}).get("probes")
    if isinstance(names, list):
        announced.update(n for n in names if isinstance(n, str))


def read_probes(path, message_of):
    """Each probe's `data.v` from a JSON Lines file, `message_of(line object)` giving the envelope."""
    out = {}
    with open(path, encoding="utf-8", errors="surrogatepass") as f:
        for line in f:
            line = line.strip()
            m = message_of(json.loads(line)) if line else None
            if not isinstance(m, dict):
                continue
            cid = m.get("correlationId", "")
            if cid == "probe-end":
                note_end(m)
            elif cid.startswith("probe-"):
                out[cid[6:]] = m["payload"]["data"]["v"]
    return out


def native_message(line):
    """A line a stdio host received: the envelope itself."""
    return line


def transcript_message(record):
    """A `bridgescope host --transcript` record: the envelope of a web-to-host one."""
    if record.get("dir") != "w2h":
        return None
    if "msg" in record:
        return record["msg"]
    return json.loads(record["text"]) if "text" in record else None


def canonical(v):
    return json.dumps(v, sort_keys=True, ensure_ascii=True)


def short(v):
    if v is MISSING:
        return "not delivered"
    text = canonical(v)
    return text if len(text) <= 60 else text[:40] + "... (%d characters)" % len(text)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    webkit, chromium = read_probes(args[0], native_message), read_probes(args[1], transcript_message)
    names = sorted(set(webkit) | set(chromium) | announced)
    if "--table" in sys.argv:
        print("| probe | WebKit's native side | Chromium through the shim |")
        print("|---|---|---|")
    bad = 0
    for name in names:
        a, b = webkit.get(name, MISSING), chromium.get(name, MISSING)
        same = (a is MISSING and b is MISSING) or (a is not MISSING and b is not MISSING and canonical(a) == canonical(b))
        bad += 0 if same else 1
        if "--table" in sys.argv:
            print("| %s | `%s` | %s |" % (name, short(a).replace("|", "\\|"), "same" if same else "`%s`" % short(b)))
        else:
            print("%-20s %s  webkit=%s  chromium=%s" % (name, "same" if same else "DIFFERENT", short(a), short(b)))
    if not names:
        print("no probes on either side", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
