#!/usr/bin/env bash
# WebKit recording benchmark (issue 41): `record --webkit` (the JavaScript tap, its lines
# out through console.debug, read over WebKit's inspector protocol) on a page in
# bridgescope-webkit posting envelopes at a fixed rate; baseline in the same run: the
# shell's own `--record` of the same page (the tap's lines through a script-message handler).
#   tools/bench/record/webkit.sh [--n N] [--size B] [--burst K] [--rates "5000 10000 20000 max"] [--debug]
# Report in Markdown on standard output. Needs `make webkit`'s packages (WebKitGTK, Xvfb).
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=20000; size=300; burst=200; rates="5000 10000 20000 max"; config=release
while (($#)); do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --burst) burst=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --debug) config=debug; shift ;;
    *) sed -n '2,7p' "$0" >&2; exit 2 ;;
  esac
done
swift build -c "$config" --product bridgescope >/dev/null
swift build -c "$config" --package-path tools/webkit >/dev/null
BIN=.build/$config/bridgescope
WK=tools/webkit/.build/$config/bridgescope-webkit
work=$(mktemp -d /tmp/bridgescope-webkit-record-bench.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# The page, served after a delay (/slow/MS/PATH) so that the recorder attaches while the view is still blank.
cat >"$work/serve.py" <<'PY'
import http.server, os, sys, time
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        parts = self.path.split("/", 3)
        if len(parts) == 4 and parts[1] == "slow" and parts[2].isdigit():
            time.sleep(int(parts[2]) / 1000); self.path = "/" + parts[3]
        return super().do_GET()
    def log_message(self, *a): pass
os.chdir(sys.argv[2])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
sport=$(free_port)
python3 "$work/serve.py" "$sport" tools/bench/record &
server=$!
shell=""
cleanup() { [[ -n "$shell" ]] && kill "$shell" 2>/dev/null; kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$sport/webkit-load.html" >/dev/null 2>&1 && break; sleep 0.1; done

# report KIND ARCHIVE RATE: one table row. KIND webkit: records of the recorder's connection,
# rate from the first record's page time to the recorder's close event (its clock when --count
# was reached); KIND shell: records of the view's web side, rate from the first to the time the
# shell's recorder wrote the last one (the archive's last record or event).
report() {
  "$BIN" cat "$2" --format jsonl | python3 -c '
import json, sys
kind, n, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3]
first = end = None; ticks = 0; sent = secs = None; seen = set(); dup = 0
for line in sys.stdin:
    o = json.loads(line)
    if "seq" in o and "dir" in o:
        if kind == "shell" and not str(o.get("conn", "")).endswith("@web"):
            continue
        m = o.get("msg") or {}
        action = (m.get("payload") or {}).get("action")
        if action == "load.tick":
            i = m["payload"]["data"]["i"]
            dup += i in seen; seen.add(i); ticks += 1
            first = o["t"] if first is None else min(first, o["t"])
            if kind == "shell": end = o["t"] if end is None else max(end, o["t"])
        elif action == "load.done":
            sent, secs = m["payload"]["data"]["sent"], m["payload"]["data"]["seconds"]
            if kind == "shell": end = o["t"] if end is None else max(end, o["t"])
    if kind == "webkit" and o.get("event") == "close":
        end = o["t"] if end is None else max(end, o["t"])
lost = n - len(seen)
page = f"{sent / secs:,.0f}" if sent else "-"
rec = f"{len(seen) / ((end - first) / 1e9):,.0f}" if first and end and end > first else "-"
label = {"webkit": "record --webkit", "shell": "shell --record (baseline)"}[kind]
twice = f" ({dup} twice)" if dup else ""
print(f"| {rate} | {label} | {page} | {len(seen):,} | {lost}{twice} | {rec} |")
' "$1" "$n" "$3"
}

echo "## WebKit recording (record --webkit, tap over the inspector's console)"
echo
echo "$(nproc) cores, $(uptime | sed 's/.*load average: //') load; ${n} envelopes of ~${size} B per run, at most ${burst} per page task; bridgescope-webkit (WebKitGTK $(pkg-config --modversion webkitgtk-6.0 2>/dev/null || pkg-config --modversion webkit2gtk-4.1 2>/dev/null || echo '?'), --host inproc); $config build."
echo
echo "| offered rate (msg/s) | recorded by | page sent (msg/s) | recorded | lost | recorded rate (msg/s, page's first message to the recorder's last write) |"
echo "|---|---|---|---|---|---|"
for rate in $rates; do
  r=$rate; [[ "$rate" == max ]] && r=1000000000
  q="n=$n&size=$size&rate=$r&burst=$burst"
  # Baseline: the shell's own page tap (script-message handler), no inspector.
  timeout 300 "$WK" "http://127.0.0.1:$sport/webkit-load.html?$q&complete=300" --quiet --timeout 240 \
    --record "$work/shell-$rate.bsz" >"$work/shell.out" 2>"$work/shell.err" || true
  report shell "$work/shell-$rate.bsz" "$rate"
  # record --webkit: the recorder attaches while the page is still blank (served 2.5 s late).
  iport=$(free_port)
  "$WK" "http://127.0.0.1:$sport/slow/2500/webkit-load.html?$q" --quiet --timeout 240 --inspector "127.0.0.1:$iport" \
    >"$work/wk.out" 2>"$work/wk.err" &
  shell=$!
  for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$iport/" 2>/dev/null | grep -q '/socket/' && break; sleep 0.05
  done
  # --count: the host's host.ready, the N envelopes and load.done.
  timeout 300 "$BIN" record -o "$work/wk-$rate.bsz" --quiet --webkit "http://127.0.0.1:$iport" --count $((n + 2)) \
    2>"$work/rec.log" || true
  kill "$shell" 2>/dev/null || true; wait "$shell" 2>/dev/null || true; shell=""
  report webkit "$work/wk-$rate.bsz" "$rate"
done
