#!/usr/bin/env bash
# Re-records the sample sessions in captures/ (see captures/README.md). Real runs: ids,
# times and image bytes change on every run; the findings that
# Tests/BridgeAnalysisTests/CapturesTests.swift expects do not.
#
#   captures/make-captures.sh [NAME...]     NAME: happy-passport nfc-never-answered
#                                           busy-storm dual-picture-retake malformed-traffic
# Needs a debug build (swift build), chromium and jq (tools/setup.sh --with-browser).
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${BRIDGESCOPE_BIN:-.build/debug/bridgescope}
[[ -x $BIN ]] || { echo "make-captures: $BIN not built: run 'swift build'" >&2; exit 2; }
work=$(mktemp -d /tmp/bridgescope-captures.XXXXXX)
trap 'rm -rf "$work"' EXIT

record() { # name: $work/name.jsonl -> captures/name.bsz
  rm -f "captures/$1.bsz"
  "$BIN" record -o "captures/$1.bsz" --tap "$work/$1.jsonl" || return 1
  printf '%s: %s bytes\n' "captures/$1.bsz" "$(wc -c <"captures/$1.bsz")"
}

happy-passport() {
  tools/run-journey passport --quiet --transcript "$work/happy-passport.jsonl" && record happy-passport
}

nfc-never-answered() {
  # nfc.read takes an hour: the page times out after 30 s and sends journey.error. The
  # host still waits for its pending read, so it is ended (by pid) once the journey
  # error is in the transcript; the session ends with the read unanswered.
  local t=$work/nfc-never-answered.jsonl
  tools/run-journey passport --quiet --timeout 60 --scenario tools/scenarios/nfc-silent.json --transcript "$t" &
  local rj=$!
  for _ in $(seq 1 600); do
    grep -q '"journey.error"' "$t" 2>/dev/null && break
    sleep 0.1
  done
  sleep 0.5
  local host
  host=$(ps -o pid=,args= --ppid "$rj" | awk '/bridgescope host/ {print $1}')
  [[ -n $host ]] && kill -KILL "$host"
  wait "$rj"
  grep -q '"journey.error"' "$t" && record nfc-never-answered
}

busy-storm() {
  tools/run-journey degradation --quiet --scenario tools/scenarios/busy-storm.json \
    --transcript "$work/busy-storm.jsonl" && record busy-storm
}

dual-picture-retake() {
  tools/run-journey document-dual --quiet --transcript "$work/dual-picture-retake.jsonl" && record dual-picture-retake
}

malformed-traffic() {
  captures/scripts/stdio-session.py --bin "$BIN" captures/scripts/malformed-web.txt "$work/malformed-traffic.jsonl" \
    && record malformed-traffic
}

names=("$@")
((${#names[@]})) || names=(happy-passport nfc-never-answered busy-storm dual-picture-retake malformed-traffic)
status=0
for n in "${names[@]}"; do
  echo "== $n"
  "$n" || { echo "make-captures: $n failed" >&2; status=1; }
done
exit $status
