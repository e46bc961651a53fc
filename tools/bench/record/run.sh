#!/usr/bin/env bash
# Recording benchmarks (issue 6): offline pcap → archive vs tshark, live capture vs
# tcpdump -w, recording proxy vs mitmdump. Report in Markdown on standard output.
#   tools/bench/record/run.sh [--only offline,live,proxy] [--rate R] [--seconds S] [--runs N]
#                             [--live-runs N] [--latency-rounds N] [--latency-seconds S] [--pin]
# Needs tshark and tcpdump (live part: root); installs mitmproxy into a virtualenv
# (~/.cache/bridgescope-bench-venv, or $BENCH_VENV) on first use.
set -euo pipefail
cd "$(dirname "$0")/../../.."
venv="${BENCH_VENV:-$HOME/.cache/bridgescope-bench-venv}"
if [ ! -x "$venv/bin/mitmdump" ]; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q mitmproxy || echo "mitmproxy could not be installed: the proxy comparison will lack it" >&2
fi
swift build -c release --product bridgescope >/dev/null
swift build -c release --package-path tools/bench/server >/dev/null   # ws-load, the load generator
exec python3 tools/bench/record/bench.py "$@"
