#!/usr/bin/env bash
# Field tap benchmark (docs/PERFORMANCE.md, "Field taps"): the Swift and the Java tap's
# cost on the caller's thread per 1 KB message, against baselines measured in the same
# run, and messages per second with no drops. Usage: tools/bench/tap/run.sh [MESSAGES]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../../.."
count="${1:-200000}"
swift build -c release --package-path "$here" --product tap-bench >/dev/null
"$here/.build/release/tap-bench" "$count"
out="$(mktemp -d)"
javac --release 8 -Xlint:-options -d "$out" $(find "$root/tools/taps/android/src/main" -name '*.java') "$here/TapBench.java"
java -cp "$out" TapBench "$count"
rm -rf "$out"
