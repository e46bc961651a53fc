#!/usr/bin/env python3
"""Canonical form of what tools/otlp/receiver.py --out wrote, to compare two exports.

    canonical.py SPANS.jsonl OUT.jsonl [--merge]

Writes the spans sorted by (trace id, span id), keys sorted, the request headers left
out: two exports of the same sessions compare equal with `cmp` whatever their batching.
--merge folds `journey.events` continuation spans back into their root (events appended
in part order) and drops the root's `bridgescope.journey.events` and `.event_spans`, to
compare with an export made before continuation spans existed (docs/OTLP.md, Mapping).
"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    spans = [json.loads(line) for line in open(sys.argv[1])]
    for s in spans:
        s.pop("headers", None)
    if "--merge" in sys.argv[3:]:
        parts = [s for s in spans if s["name"] == "journey.events"]
        spans = [s for s in spans if s["name"] != "journey.events"]
        roots = {(s["traceId"], s["spanId"]): s for s in spans if s["name"] == "journey"}
        parts.sort(key=lambda s: (s["traceId"], s["attributes"]["bridgescope.journey.event_part"]))
        for p in parts:
            roots[(p["traceId"], p["parentSpanId"])]["events"].extend(p["events"])
        for r in roots.values():
            r["attributes"].pop("bridgescope.journey.events", None)
            r["attributes"].pop("bridgescope.journey.event_spans", None)
        print(f"merged {len(parts)} continuation spans", file=sys.stderr)
    spans.sort(key=lambda s: (s["traceId"], s["spanId"]))
    with open(sys.argv[2], "w") as f:
        for s in spans:
            f.write(json.dumps(s, sort_keys=True) + "\n")
    print(f"{len(spans)} spans", file=sys.stderr)


if __name__ == "__main__":
    main()
