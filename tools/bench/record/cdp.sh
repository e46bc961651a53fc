#!/usr/bin/env bash
# DevTools recording benchmark (issue 18): `record --launch` (the JavaScript tap over a
# CDP binding) on a page posting envelopes at a fixed rate, and the added round-trip
# latency of a journey with the tap vs without, measured in the same run.
#   tools/bench/record/cdp.sh [--n N] [--size B] [--rates "10000 20000 40000 max"]
#                             [--rtt-n N] [--rounds R] [--debug]
# Report in Markdown on standard output. Needs chromium (tools/setup.sh --with-browser).
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=100000; size=300; rates="10000 20000 40000 max"; rtt_n=500; rounds=5; config=release
while (($#)); do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --rtt-n) rtt_n=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --debug) config=debug; shift ;;
    *) sed -n '2,7p' "$0" >&2; exit 2 ;;
  esac
done
swift build -c "$config" --product bridgescope >/dev/null
BIN=.build/$config/bridgescope
export BRIDGESCOPE_BIN=$BIN
work=$(mktemp -d /tmp/bridgescope-cdp-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
page="file://$PWD/tools/bench/record/cdp-load.html"

echo "## DevTools recording (record --launch, tap over a CDP binding)"
echo
echo "$(nproc) cores, $(uptime | sed 's/.*load average: //') load; ${n} envelopes of ~${size} B per run, $config build."
echo
echo "| offered rate (msg/s) | page sent (msg/s) | recorded | lost | recorded rate (msg/s, page's first message to the recorder's last write) |"
echo "|---|---|---|---|---|"
for rate in $rates; do
  r=$rate; [[ "$rate" == max ]] && r=1000000000
  out=$work/load-$rate.bsz
  timeout 300 "$BIN" record -o "$out" --quiet --launch "$page?n=$n&size=$size&rate=$r" --count $((n + 1)) 2>"$work/rec.log" || true
  "$BIN" cat "$out" --format jsonl | python3 -c '
import json, sys
n, rate = int(sys.argv[1]), sys.argv[2]
first = last = end = None; records = 0; sent = secs = None
for line in sys.stdin:
    o = json.loads(line)
    if "seq" in o and "dir" in o:
        records += 1
        first = o["t"] if first is None else first
        m = o.get("msg") or {}
        if m.get("payload", {}).get("action") == "load.done":
            sent, secs = m["payload"]["data"]["sent"], m["payload"]["data"]["seconds"]
    if o.get("event") == "close":
        end = o["t"] if end is None else max(end, o["t"])   # recorder clock when --count was reached, before it stops the browser
ticks = records - (1 if sent is not None else 0)
lost = n - ticks
page = f"{sent / secs:,.0f}" if sent else "-"
rec = f"{ticks / ((end - first) / 1e9):,.0f}" if first and end else "-"
print(f"| {rate} | {page} | {ticks:,} | {lost} | {rec} |")
' "$n" "$rate"
done
echo

echo "### Cost of the tap on the page's own call (postMessage), in one page"
echo
timeout 300 "$BIN" record -o "$work/cost.bsz" --quiet --launch "$page?mode=cost&n=2000&size=$size" --count $((2000 * 100 + 1)) 2>/dev/null || true
"$BIN" cat "$work/cost.bsz" --format jsonl | python3 -c '
import json, sys
for line in sys.stdin:
    o = json.loads(line)
    d = ((o.get("msg") or {}).get("payload") or {})
    if d.get("action") == "load.done":
        d = d["data"]; pp, p9, tp, t9 = d["plainP50us"], d["plainP99us"], d["tappedP50us"], d["tappedP99us"]
        print("| per call (µs, batches of 100 calls, 2000 batches) | p50 | p99 |")
        print("|---|---|---|")
        print(f"| handler not wrapped (baseline) | {pp} | {p9} |")
        print(f"| tapped bridge (recorded over DevTools) | {tp} | {t9} |")
        print(f"| added by the tap | {tp - pp:.2f} | {t9 - p9:.2f} |")
'
echo

p99s() { grep -o '"p50us":[0-9]*,"p90us":[0-9]*,"p99us":[0-9]*' "$1" | head -1 | sed 's/[^0-9,]//g; s/^,//'; }
echo "### Journey round trips (capability.query through the bridge to the reference host, ${rtt_n} per run, timed in the page)"
echo
echo "| round | without tap p50 / p99 (µs) | with tap p50 / p99 (µs) |"
echo "|---|---|---|"
plain=(); tapped=()
for i in $(seq 1 "$rounds"); do
  tools/run-journey rtt --page-args "n=$rtt_n" --quiet --transcript "$work/a.jsonl" --timeout 300 >/dev/null 2>&1 || true
  tools/run-journey rtt --page-args "n=$rtt_n" --quiet --transcript "$work/b.jsonl" --record "$work/rtt.bsz" --timeout 300 >/dev/null 2>&1 || true
  a=$(p99s "$work/a.jsonl"); b=$(p99s "$work/b.jsonl")
  echo "| $i | $(echo "$a" | cut -d, -f1) / $(echo "$a" | cut -d, -f3) | $(echo "$b" | cut -d, -f1) / $(echo "$b" | cut -d, -f3) |"
  plain+=("$a"); tapped+=("$b")
done
python3 - "${plain[@]}" -- "${tapped[@]}" <<'PY'
import statistics, sys
args = sys.argv[1:]; cut = args.index("--")
def col(xs, i): return [int(x.split(",")[i]) for x in xs if x]
a, b = args[:cut], args[cut + 1:]
if a and b:
    pa, pb = statistics.median(col(a, 2)), statistics.median(col(b, 2))
    ma, mb = statistics.median(col(a, 0)), statistics.median(col(b, 0))
    print(f"\nMedian over rounds: p50 {ma:.0f} → {mb:.0f} µs (added {mb - ma:+.0f} µs), p99 {pa:.0f} → {pb:.0f} µs (added {pb - pa:+.0f} µs).")
PY
