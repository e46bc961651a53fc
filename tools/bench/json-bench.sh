#!/usr/bin/env bash
# Parse throughput of BridgeJSON against Foundation's JSONSerialization on the same
# envelope mix, in one process (docs/PERFORMANCE.md, "JSON parsing").
# Usage: tools/bench/json-bench.sh [--envelopes N] [--rounds R] [--seed S]
# Takes well under a minute on 2 cores once built (the first release build takes longer).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec swift run -c release --package-path tools/bench/json json-bench "$@"
