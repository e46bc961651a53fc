#!/usr/bin/env bash
# `make bench-otlp-memory`: peak RSS of `bridgescope export --otlp` as the session grows
# (issue 42 part 4; docs/PERFORMANCE.md, "OTLP export", and docs/OTLP.md, "Memory").
#
#   tools/bench/otlp/memory.sh [--sizes "600000 6000000"] [--keep]
#
# For each size M: one generated session of M small redacted envelopes on 8 connections
# (tools/bench/analyze/generate.py --redacted --parallel 8, recorded with `record --tap`,
# as make bench-otlp does), then, one after the other, each once:
#   baseline  `analyze --format json -o /dev/null` of the same archive (the analysis
#             alone, with its 2,000-step cap per connection);
#   export    `export --otlp` to tools/otlp/receiver.py --discard on loopback.
# Peak RSS is /usr/bin/time's maximum resident set size. Prints absolute MB, wall time,
# spans, and the export/baseline ratio; the last line says whether export stayed within
# 100 MB at every size (exit 1 if not).
set -euo pipefail
cd "$(dirname "$0")/../../.."
sizes="600000 6000000"; keep=0
dir=/tmp/bridgescope-bench-otlp-memory
while (($#)); do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-otlp-memory: unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-otlp-memory: $tool not found (tools/setup.sh installs it)" >&2; exit 2; }
done
py=/usr/bin/python3
packages=.build/otlp-python
if ! PYTHONPATH=$packages $py -c 'import opentelemetry.proto.collector.trace.v1.trace_service_pb2' 2>/dev/null; then
  echo "installing opentelemetry-proto into $packages..." >&2
  $py -m pip install --quiet --disable-pip-version-check --target "$packages" 'opentelemetry-proto>=1.20' >&2
fi
swift build -c release --product bridgescope >&2
BIN=$(swift build -c release --show-bin-path)/bridgescope
mkdir -p "$dir"

fifo=$dir/recv.in; rm -f "$fifo"; mkfifo "$fifo"
PYTHONPATH=$packages $py tools/otlp/receiver.py --port 0 --stdin-eof-stops --discard < "$fifo" > "$dir/recv.out" &
rpid=$!
exec {hold}> "$fifo"
for _ in $(seq 50); do grep -q listening "$dir/recv.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/listening/ {print $2}' "$dir/recv.out")

results=()
within=1
for messages in $sizes; do
  file=$dir/session-$messages.bsz
  if [[ ! -s $file ]]; then
    echo "generating $file ($messages messages)..." >&2
    python3 tools/bench/analyze/generate.py --redacted --messages "$messages" --parallel 8 | "$BIN" record -o "$file.tmp" --tap - --quiet >&2
    mv "$file.tmp" "$file"
  fi
  /usr/bin/time -f '%e %M' -o "$dir/analyze.time" "$BIN" analyze --format json -o /dev/null "$file" 2>/dev/null || true
  /usr/bin/time -f '%e %M' -o "$dir/export.time" "$BIN" export "$file" --otlp "http://127.0.0.1:$port" 2> "$dir/export.err" || { cat "$dir/export.err" >&2; exit 1; }
  read -r awall arss < <(tail -1 "$dir/analyze.time")
  read -r ewall erss < <(tail -1 "$dir/export.time")
  line=$(grep '^otlp: sent' "$dir/export.err")
  spans=$(echo "$line" | sed -E 's/^otlp: sent ([0-9]+) spans.*/\1/')
  amb=$((arss / 1024)); emb=$((erss / 1024))
  ((emb <= 100)) || within=0
  results+=("$(printf "%9d messages (%5d MB archive): analyze --format json %4d MB %7.1f s | export --otlp %4d MB %7.1f s, %8d spans | RSS ratio export/analyze %.2f" \
    "$messages" "$(( $(stat -c %s "$file") / 1000000 ))" "$amb" "$awall" "$emb" "$ewall" "$spans" "$(echo "$erss / $arss" | bc -l)")")
  echo "${results[-1]}" >&2
  echo "  $line" >&2
done
exec {hold}>&-
wait "$rpid" || true

echo "bench-otlp-memory: peak RSS (/usr/bin/time maximum resident set size), one run each, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "${results[@]}"
if ((within)); then echo "export --otlp within 100 MB at every size: yes"; else echo "export --otlp within 100 MB at every size: NO"; fi
if ((keep == 0)); then rm -rf "$dir"; fi
((within))
