#!/usr/bin/env bash
# WebSocket host benchmark (issue 5): capability.query round trips per second from N
# concurrent clients on loopback, against the reference host (release build) and a
# minimal Python `websockets` echo server, same load generator, same run.
#   tools/bench/server/run.sh [--clients N] [--seconds S] [--pipeline K]
set -euo pipefail
cd "$(dirname "$0")/../../.."
clients=16; seconds=5; pipeline=1
while (($#)); do case "$1" in --clients) clients=$2; shift 2;; --seconds) seconds=$2; shift 2;; --pipeline) pipeline=$2; shift 2;; *) echo "unknown $1" >&2; exit 2;; esac; done
python3 -c "import websockets" 2>/dev/null || pip install -q websockets
swift build -c release --product bridgescope >/dev/null
swift build -c release --package-path tools/bench/server >/dev/null
LOAD=tools/bench/server/.build/release/ws-load
HOST=.build/release/bridgescope
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),1)" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

p1=$(port); "$HOST" host --listen "127.0.0.1:$p1" --no-deflate --log-level error 2>/dev/null & h=$!
wait_port "$p1"
ours=$("$LOAD" "ws://127.0.0.1:$p1/bridge" --clients "$clients" --seconds "$seconds" --pipeline "$pipeline")
kill "$h"; wait "$h" 2>/dev/null || true

p2=$(port); python3 tools/bench/server/echo_server.py "$p2" >/dev/null 2>&1 & e=$!
wait_port "$p2"
echo_=$("$LOAD" "ws://127.0.0.1:$p2/bridge" --clients "$clients" --seconds "$seconds" --pipeline "$pipeline")
kill "$e"; wait "$e" 2>/dev/null || true

echo "reference host: $ours"
echo "python echo:    $echo_"
python3 - "$ours" "$echo_" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"ratio (host / echo round trips per second): {a['roundTripsPerSecond'] / max(1, b['roundTripsPerSecond']):.2f}x")
PY
