#!/usr/bin/env bash
# `make demo`: the main job end to end, as far as it exists. Each step says what it shows.
# BRIDGESCOPE=path runs another binary (e.g. `make release`'s, .build/static/release/bridgescope).
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${BRIDGESCOPE:-.build/debug/bridgescope}
export BRIDGESCOPE="$BIN" BRIDGESCOPE_BIN="$BIN"
step() { printf '\n\033[1m== %s\033[0m\n' "$*" 2>/dev/null || printf '\n== %s\n' "$*"; }

step "1. Validate a clean recorded passport session (expect: no findings)"
$BIN validate captures/sample-passport.jsonl

step "2. Validate a session with protocol violations (expect: findings, exit 1)"
$BIN validate captures/sample-broken.jsonl
echo "exit status: $? (1 = error-severity findings)"

if [[ -x tools/demo-host.sh ]]; then
  step "3. A scripted passport journey through the reference host (host --stdio)"
  tools/demo-host.sh
fi

step "4. The passport journey in headless Chromium against the host over WebSocket"
mkdir -p .demo
tools/run-journey passport --transcript .demo/passport.tap.jsonl
echo "transcript (tap log): .demo/passport.tap.jsonl"

step "5. Record the journey into a session archive and analyze it"
if [[ -s .demo/passport.tap.jsonl ]]; then
  $BIN record -o .demo/passport.bsz --tap .demo/passport.tap.jsonl && echo "archive: .demo/passport.bsz"
  $BIN analyze .demo/passport.bsz
  echo "analyze exit status: $? (0 = no finding at or above --fail-on error)"
  $BIN analyze --format html -o .demo/passport.html .demo/passport.bsz
  echo "HTML report: $(pwd)/.demo/passport.html"
else
  echo "no transcript from step 4: nothing to analyze"
fi

step "6. Replay the recorded passport session against the reference host in-process (expect: 0 divergences)"
# Step 5 records .demo/passport.bsz from the tap log; make it here too if it is missing or stale.
if [[ ! .demo/passport.bsz -nt .demo/passport.tap.jsonl ]]; then
  $BIN record -o .demo/passport.bsz --tap .demo/passport.tap.jsonl --quiet
fi
$BIN replay .demo/passport.bsz --target inproc
echo "exit status: $? (0 = no divergences)"

step "7. Judge hosts by the conformance suite: the reference host and the Python host side by side"
# Every case is judged by the protocol model: a failure only where no legal host could
# have answered so; the Python host's other legal choices are named (pass-with-choice).
if command -v python3 >/dev/null 2>&1; then
  $BIN conform --target inproc --target "stdio:python3 tools/hosts/python/bridge_host.py" --cases 1 --cases 2 \
    --format html -o .demo/conform.html
  echo "exit status: $? (0 = no case failed); side by side: $(pwd)/.demo/conform.html"
  $BIN conform --target "stdio:python3 tools/hosts/python/bridge_host.py" --cases 1 --cases 2 | tail -n 8
fi

step "8. The journey that hangs on every iPhone, on real WebKit: both sides recorded, what the bridge dropped named"
# bridgescope-webkit (docs/WEBKIT.md): WebKitGTK with the iOS bridge in front of the
# reference host. The page passes a callback inside a request; WebKit never delivers a
# message holding a function, and tells the page nothing: the journey waits (exit 3).
WEBKIT_BIN=tools/webkit/.build/debug/bridgescope-webkit
if [[ -x "$WEBKIT_BIN" ]]; then
  tools/run-journey unclonable --engine webkit --record .demo/unclonable.bsz --timeout 5 --quiet
  echo "exit status: $? (3 = the journey hung)"
  $BIN analyze .demo/unclonable.bsz | head -n 6
  tools/run-journey unclonable --engine webkit --page-args fixed=1 --quiet
  echo "without the callback: exit status $? (0 = the journey completed)"
else
  echo "$WEBKIT_BIN is not built (make webkit): skipped"
fi
