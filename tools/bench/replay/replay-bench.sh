#!/usr/bin/env bash
# Replay benchmark (docs/PERFORMANCE.md, "Replay"):
#  1. `--pace asap` in-process replay throughput (messages/s) on a generated session of
#     at least 100,000 messages, read from an archive (target: >= 50,000/s);
#  2. recorded-pacing send-time error (p50, p99) over 10,000 messages on the real clock
#     (target: p99 < 2 ms).
# Usage: tools/bench/replay/replay-bench.sh [--journeys N] [--paced N] [--gap-us US] [--spin-us US] [--rounds R]
# About 30 s once built (the first release build takes a few minutes).
set -euo pipefail
cd "$(dirname "$0")/../../.."
exec swift run -c release --package-path tools/bench/replay replay-bench "$@"
