#!/usr/bin/env bash
# bridgescope-webkit benchmark (issue 40): lockstep round trips per second through the
# shell (the real iOS bridge in front of the in-process reference host) against
# webkit-echo (the same WebKit and handler answering in the page: the floor), measured
# in the same run, alternating; and the time from start to the page's first message.
#   tools/bench/webkit/run.sh [--n N] [--rounds R] [--debug]
# Goals (docs/PERFORMANCE.md): at least 90% of the floor; at most 0.5 s to the first message.
# Report in Markdown on standard output. Needs `make webkit`'s packages.
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=3000; rounds=7; config=release
while (($#)); do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --debug) config=debug; shift ;;
    *) sed -n '2,8p' "$0" >&2; exit 2 ;;
  esac
done
swift build --product bridgescope >/dev/null
swift build -c "$config" --package-path tools/webkit >/dev/null
WK=tools/webkit/.build/$config
work=$(mktemp -d /tmp/bridgescope-webkit-bench.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
.build/debug/bridgescope host --listen "127.0.0.1:$port" --journeys tools/journey 2>"$work/pages.log" &
pages=$!
trap 'kill $pages 2>/dev/null; wait $pages 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
url="http://127.0.0.1:$port/journeys/rtt.html?n=$n"

shell_rates=(); echo_rates=(); shell_first=(); echo_first=()
for r in $(seq 1 "$rounds"); do
  BRIDGESCOPE_LOG_LEVEL=info "$WK/bridgescope-webkit" "$url" --quiet >"$work/shell.out" 2>"$work/shell.err"
  shell_rates+=("$(grep -oE '"perSecond":[0-9]+' "$work/shell.out" | cut -d: -f2)")
  shell_first+=("$(grep -oE 'first message from the page [0-9]+ ms' "$work/shell.err" | grep -oE '[0-9]+')")
  "$WK/webkit-echo" "$url" >"$work/echo.out" 2>"$work/echo.err"
  echo_rates+=("$(grep -oE '"perSecond":[0-9]+' "$work/echo.out" | cut -d: -f2)")
  echo_first+=("$(grep -oE 'first message [0-9]+ ms' "$work/echo.err" | grep -oE '[0-9]+')")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
sr=$(median "${shell_rates[@]}"); er=$(median "${echo_rates[@]}")
sf=$(median "${shell_first[@]}"); ef=$(median "${echo_first[@]}")
echo "## bridgescope-webkit: lockstep round trips (rtt.html, capability.query)"
echo
echo "$(nproc) cores, load $(uptime | sed 's/.*load average: //'); $n round trips per run, $rounds runs each, alternating; $config build."
echo
echo "| | round trips/s (median) | runs | first message after start (ms, median) |"
echo "|---|---|---|---|"
echo "| webkit-echo (floor) | $er | ${echo_rates[*]} | $ef |"
echo "| bridgescope-webkit --host inproc | $sr | ${shell_rates[*]} | $sf |"
echo
awk -v s="$sr" -v e="$er" -v f="$sf" 'BEGIN { printf "shell / floor: %.0f%% (goal: at least 90%%); first message: %d ms (goal: at most 500 ms)\n", 100 * s / e, f }'
