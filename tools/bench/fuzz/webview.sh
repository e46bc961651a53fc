#!/usr/bin/env bash
# Fuzzing through a WebView (issue 41, docs/WEBVIEW-TARGETS.md, docs/PERFORMANCE.md
# "Fuzzing through a WebView"): cases per second through webkit: (bridgescope-webkit, its
# in-process reference host, and the same host over stdio) and through cdp: (headless
# Chromium with the shim in front of `host --listen`, both shapes), against the stdio
# target on the same host in the same run: the baseline the ratios are taken against.
# Usage: tools/bench/fuzz/webview.sh [RUNS]   (make bench-fuzz-webview; needs chromium,
# python3 and the WebKit shell's packages, which `make setup` installs)
set -euo pipefail
cd "$(dirname "$0")/../../.."
runs="${1:-300}"
# BRIDGESCOPE_BIN: a release binary built elsewhere (e.g. --scratch-path), else built here.
if [[ -z "${BRIDGESCOPE_BIN:-}" ]]; then swift build -c release --product bridgescope; fi
swift build --package-path tools/webkit
bin="${BRIDGESCOPE_BIN:-$PWD/.build/release/bridgescope}"
shell="$PWD/tools/webkit/.build/debug/bridgescope-webkit"
work="$(mktemp -d)"; cp -r corpus "$work/"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done; sleep 1; rm -rf "$work"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing on port $1" >&2; return 1; }
baseline=""
measure() {  # name, target
  local line
  line="$("$bin" fuzz --target "$2" --runs "$runs" --seed 1 --no-generated --corpus "$work/corpus" --findings "$work/found" --format json 2>"$work/err" || true)"
  if [[ -z "$line" ]]; then echo "$1: the run failed: $(tail -3 "$work/err")" >&2; return 0; fi
  python3 - "$line" "$1" "${baseline:-}" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
rate = d["execs"] / d["seconds"]
base = float(sys.argv[3]) if sys.argv[3] else rate
print("%-44s %5d execs %6.1f s %7.1f cases/s  %5.1f%% of stdio  findings %d" % (
    sys.argv[2], d["execs"], d["seconds"], rate, 100 * rate / base, len(d["findings"])))
PY
  if [[ -z "$baseline" ]]; then baseline="$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["execs"] / d["seconds"])' "$line")"; fi
}
measure "stdio: reference host (baseline)" "stdio:$bin host --stdio"

# bridgescope-webkit: the real iOS bridge, its host in the process, then over stdio.
target="$PWD/tools/journey/target.html"
for host in inproc "stdio:$bin host --stdio"; do
  p=$(port)
  setsid "$shell" "$target" --keep-open --inspector "127.0.0.1:$p" --quiet --timeout 3600 --host "$host" >/dev/null 2>&1 &
  pids+=($!)
  wait_port "$p"
  measure "webkit: bridgescope-webkit --host ${host%% *}" "webkit:http://127.0.0.1:$p"
done

# Chromium with the shim in front of host --listen, a tab per shape.
hp=$(port); cp=$(port)
setsid "$bin" host --listen "127.0.0.1:$hp" >/dev/null 2>&1 &
pids+=($!)
wait_port "$hp"
page="http://127.0.0.1:$hp/journeys/target.html"
setsid chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage \
  --remote-debugging-port="$cp" --user-data-dir="$work/chromium" "$page?env=android" >/dev/null 2>&1 &
pids+=($!)
wait_port "$cp"
python3 -c 'import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="PUT"), timeout=10).read()' \
  "http://127.0.0.1:$cp/json/new?$page?env=ios" >/dev/null
measure "cdp: Chromium + shim, android shape" "cdp:http://127.0.0.1:$cp#env=android"
measure "cdp: Chromium + shim, ios shape" "cdp:http://127.0.0.1:$cp#env=ios"
