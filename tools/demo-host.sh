#!/usr/bin/env bash
# A scripted passport journey through the reference host over stdio: the web side's
# messages are piped into `bridgescope host --stdio` one per line, and the exchange is
# printed as it happens (long base64 strings shortened when jq is installed).
#
# Usage: tools/demo-host.sh [SCENARIO.json]      (e.g. tools/scenarios/nfc-unavailable.json)
# Environment: BRIDGESCOPE (binary, default .build/debug/bridgescope), PACE (seconds
# between web messages, default 0.3), LOG_LEVEL (host log level on stderr, default notice).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BRIDGESCOPE:-.build/debug/bridgescope}
if [[ ! -x $BIN ]]; then swift build --product bridgescope >&2; fi
args=(host --stdio --log-level "${LOG_LEVEL:-notice}")
if [[ -n "${1:-}" ]]; then args+=(--scenario "$1"); fi

now() { date +%s%3N; }
request() { # id action [data-json]
  printf '{"version":"1.0","correlationId":"%s","type":"request","timestamp":%s,"payload":{"action":"%s"%s}}' \
    "$1" "$(now)" "$2" "${3:+,\"data\":$3}"
}
event() { # id action [data-json]
  printf '{"version":"1.0","correlationId":"%s","type":"event","timestamp":%s,"payload":{"action":"%s"%s}}' \
    "$1" "$(now)" "$2" "${3:+,\"data\":$3}"
}
short() {
  if command -v jq >/dev/null 2>&1; then
    jq -c 'walk(if type == "string" and length > 48 then .[0:20] + "…(\(length) chars)" else . end)' 2>/dev/null || cat
  else
    cut -c1-220
  fi
}

journey() {
  local pace=${PACE:-0.3}
  step() { printf 'web  → host  %s\n' "$(printf '%s' "$1" | short)" >&3; printf '%s\n' "$1"; sleep "$pace"; }
  step "$(event web-1 journey.started '{}')"
  step "$(request query-1 capability.query)"
  step "$(request doc-front camera.document.capture '{"documentType":"passport","side":"front"}')"
  step "$(request nfc-1 nfc.read '{"documentType":"passport"}')"
  step "$(request selfie-1 camera.selfie.capture)"
  step "$(event web-2 journey.progress '{"step":"review"}')"
  step "$(event web-3 journey.complete '{"status":"success","referenceId":"DEMO-0001"}')"
}

echo "== scripted passport journey through: $BIN ${args[*]}"
exec 3>&1
journey | "$BIN" "${args[@]}" | while IFS= read -r line; do
  printf 'host → web   %s\n' "$(printf '%s' "$line" | short)"
done
echo "== journey finished; the host exited after answering every request"
