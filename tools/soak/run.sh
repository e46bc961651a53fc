#!/usr/bin/env bash
# Soak test (issue 42 part 5; outside make test): `make soak DURATION=30m`.
#
#   tools/soak/run.sh [--duration 30m|300s|1h] [--interval 10] [--out DIR]
#
# Runs the reference host (`bridgescope host --listen`) and the recording proxy
# (`bridgescope record --proxy`, upstream the host) for DURATION, and through both, in a
# loop: a sample journey in headless Chromium (passport, then document-dual, ...; each
# must reach journey.complete at the host within 60 s), then connection churn against
# the proxy (tools/soak/churn.py: clean closes, clients reset mid-message, resets right
# after the upgrade). Every INTERVAL seconds tools/soak/sample.py writes each server's
# RSS, open fds, threads and CPU into DIR/samples.csv; at the end tools/soak/judge.py
# draws DIR/soak.svg and judges the trend. Exit 0: every journey completed and nothing
# trends upward beyond the noise; 1 otherwise; 2 set-up error.
# BRIDGESCOPE_BIN picks the binary (default: the release build, built first).
set -uo pipefail
cd "$(dirname "$0")/../.."
duration=30m; interval=10; out=""
while (($#)); do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "soak: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$duration" in
  *h) seconds=$(( ${duration%h} * 3600 )) ;;
  *m) seconds=$(( ${duration%m} * 60 )) ;;
  *s) seconds=${duration%s} ;;
  *) seconds=$duration ;;
esac
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[[ -n "$CHROME" ]] || { echo "soak: chromium not found: run 'tools/setup.sh --with-browser'" >&2; exit 2; }
if [[ -z "${BRIDGESCOPE_BIN:-}" ]]; then
  swift build -c release --product bridgescope >&2 || exit 2
  BIN=$(swift build -c release --show-bin-path)/bridgescope
else
  BIN=$BRIDGESCOPE_BIN
fi
out=${out:-/tmp/bridgescope-soak-$(date +%s)}
mkdir -p "$out"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(freeport); pport=$(freeport)
host_pid=""; proxy_pid=""; sampler_pid=""; chrome_pid=""
cleanup() {
  [[ -n "$chrome_pid" ]] && kill -TERM "$chrome_pid" 2>/dev/null && wait "$chrome_pid" 2>/dev/null
  [[ -n "$sampler_pid" ]] && kill -TERM "$sampler_pid" 2>/dev/null && wait "$sampler_pid" 2>/dev/null
  [[ -n "$proxy_pid" ]] && kill -TERM "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null
  [[ -n "$host_pid" ]] && kill -TERM "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null
  chrome_pid=""; sampler_pid=""; proxy_pid=""; host_pid=""
}
trap cleanup EXIT

"$BIN" host --listen "127.0.0.1:$port" --journeys tools/journey --transcript "$out/host.jsonl" 2>"$out/host.log" &
host_pid=$!
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
"$BIN" record -o "$out/proxy.bsz" --quiet --proxy "127.0.0.1:$pport" --upstream "ws://127.0.0.1:$port/bridge" \
  --journeys tools/journey 2>"$out/proxy.log" &
proxy_pid=$!
for _ in $(seq 1 100); do grep -q "proxy listening" "$out/proxy.log" 2>/dev/null && break; sleep 0.1; done
grep -q "proxy listening" "$out/proxy.log" || { echo "soak: the proxy did not start" >&2; cat "$out/proxy.log" >&2; exit 2; }
python3 tools/soak/sample.py --out "$out/samples.csv" --interval "$interval" host="$host_pid" proxy="$proxy_pid" &
sampler_pid=$!
echo "soak: host $host_pid on $port, proxy $proxy_pid on $pport, $seconds s, samples every $interval s into $out" >&2

journeys=(passport document-dual)
runs=0; failed=0; churned=0
completes() { grep -c '"action":"journey.complete"' "$out/host.jsonl" 2>/dev/null || true; }
errors() { grep -c '"action":"journey.error"' "$out/host.jsonl" 2>/dev/null || true; }
end=$((SECONDS + seconds))
while ((SECONDS < end)); do
  journey=${journeys[$((runs % ${#journeys[@]}))]}
  before=$(completes); errors_before=$(errors)
  rm -rf "$out/profile" "$out/tmp"; mkdir -p "$out/tmp"
  url="http://127.0.0.1:$port/journeys/$journey.html?env=ios&ws=ws://127.0.0.1:$pport/bridge"
  TMPDIR="$out/tmp" "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage \
    --disable-background-timer-throttling --disable-renderer-backgrounding \
    --remote-debugging-port=0 --user-data-dir="$out/profile" "$url" >"$out/chrome.log" 2>&1 &
  chrome_pid=$!
  ok=0
  for _ in $(seq 1 600); do
    (( $(completes) > before )) && { ok=1; break; }
    (( $(errors) > errors_before )) && break
    sleep 0.1
  done
  kill -TERM "$chrome_pid" 2>/dev/null; { wait "$chrome_pid"; } 2>/dev/null; chrome_pid=""
  runs=$((runs + 1))
  if ((!ok)); then
    failed=$((failed + 1))
    echo "soak: journey $runs ($journey) did not complete at $((SECONDS)) s" >&2
  fi
  python3 tools/soak/churn.py "ws://127.0.0.1:$pport/bridge" --clients 6 --start $((runs * 6)) --origin "http://127.0.0.1:$port" >>"$out/churn.log" 2>&1
  churned=$((churned + 6))
  if ! kill -0 "$host_pid" 2>/dev/null; then
    wait "$host_pid"; echo "soak: the host exited with status $? at $SECONDS s (log: $out/host.log)" >&2; host_pid=""
    failed=$((failed + 1)); break
  fi
  if ! kill -0 "$proxy_pid" 2>/dev/null; then
    wait "$proxy_pid"; echo "soak: the proxy exited with status $? at $SECONDS s (log: $out/proxy.log)" >&2; proxy_pid=""
    failed=$((failed + 1)); break
  fi
done
sleep "$interval"
cleanup
echo "soak: $runs journeys ($failed failed), $churned churn connections, $(($(wc -l < "$out/samples.csv") - 1)) samples" >&2
python3 tools/soak/judge.py "$out/samples.csv" --svg "$out/soak.svg"
judged=$?
echo "soak: plot $out/soak.svg, samples $out/samples.csv" >&2
((failed == 0 && judged == 0)) || exit 1
