#!/usr/bin/env bash
# WebSocket host benchmark (issue 5): capability.query round trips per second from N
# concurrent clients on loopback, against the reference host (release build) and a
# minimal Python `websockets` echo server, same load generator, same run.
#   tools/bench/server/run.sh [--clients N] [--seconds S] [--pipeline K] [--rounds R] [--no-pin]
#
# Method (docs/PERFORMANCE.md, "WebSocket host"):
# - R rounds (default 3); each round runs both servers, alternating which goes first, each
#   freshly started; the summary gives every run, the medians and the per-round ratios.
# - Unless --no-pin (or without taskset / with one CPU), the server under test runs on
#   CPU 0 and the load generator on CPU 1: both servers get exactly one core (the Python
#   server is single-threaded; the host's event loops share that one core), and neither
#   competes with the load generator.
# - Each run also reports the CPU time the server used while under load (utime+stime from
#   /proc), so the summary gives server CPU microseconds per round trip: a figure that a
#   busy shared machine disturbs much less than round trips per second.
set -euo pipefail
cd "$(dirname "$0")/../../.."
clients=16; seconds=5; pipeline=1; rounds=3; pin=1
while (($#)); do case "$1" in
    --clients) clients=$2; shift 2;;
    --seconds) seconds=$2; shift 2;;
    --pipeline) pipeline=$2; shift 2;;
    --rounds) rounds=$2; shift 2;;
    --no-pin) pin=0; shift;;
    *) echo "unknown $1" >&2; exit 2;;
esac; done
python3 -c "import websockets" 2>/dev/null || pip install -q websockets
swift build -c release --product bridgescope >/dev/null
swift build -c release --package-path tools/bench/server >/dev/null
LOAD=tools/bench/server/.build/release/ws-load
HOST=.build/release/bridgescope
server_cpu=(); load_cpu=()
if ((pin)) && command -v taskset >/dev/null && (($(nproc) >= 2)); then
    server_cpu=(taskset -c 0); load_cpu=(taskset -c 1)
fi
ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),1)" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# run_one host|echo -> prints the load generator's JSON line
run_one() {
    local p pid out
    p=$(port)
    if [[ $1 == host ]]; then
        "${server_cpu[@]}" "$HOST" host --listen "127.0.0.1:$p" --no-deflate --log-level error 2>/dev/null & pid=$!
    else
        "${server_cpu[@]}" python3 tools/bench/server/echo_server.py "$p" >/dev/null 2>&1 & pid=$!
    fi
    wait_port "$p"
    local t0 t1
    t0=$(cpu_ticks "$pid")
    out=$("${load_cpu[@]}" "$LOAD" "ws://127.0.0.1:$p/bridge" --clients "$clients" --seconds "$seconds" --pipeline "$pipeline")
    t1=$(cpu_ticks "$pid")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "${out%\}},\"serverCpuMs\":$(( (t1 - t0) * 1000 / ticks ))}"
}

echo "clients=$clients pipeline=$pipeline seconds=$seconds rounds=$rounds pinned=$( ((pin)) && command -v taskset >/dev/null && echo yes || echo no) load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results=()
for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then order=(host echo); else order=(echo host); fi
    for which in "${order[@]}"; do
        line=$(run_one "$which")
        echo "round $r $which: $line"
        results+=("$r $which $line")
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}" | python3 tools/bench/server/summary.py
