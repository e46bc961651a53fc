#!/usr/bin/env bash
# `make bench-otlp`: spans per second that `bridgescope export --otlp` sends to a receiver
# on loopback, and its peak RSS (docs/PERFORMANCE.md, "OTLP export").
#
#   tools/bench/otlp/run.sh [--messages M] [--rounds R] [--keep]
#
# One generated session of M small redacted envelopes (default 600,000: about 250,000
# spans over 8 journeys at a time; tools/bench/analyze/generate.py --redacted) is
# exported R times (default 3) to tools/otlp/receiver.py twice over:
#   discard  the receiver reads each body and answers 200 without decoding: the figure
#            for this side (the summary's "mapping and encoding" time is the Swift work);
#   decode   the receiver decodes every request with the official opentelemetry-proto
#            classes and counts the spans: end to end, Python's decoding included.
# Baseline in the same run: `analyze --format json -o /dev/null` on the same archive (the
# analysis export --otlp does first). Medians; RSS is the largest of the runs.
set -euo pipefail
cd "$(dirname "$0")/../../.."
messages=600000; rounds=3; keep=0
dir=/tmp/bridgescope-bench-otlp
while (($#)); do
  case "$1" in
    --messages) messages=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-otlp: unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-otlp: $tool not found (tools/setup.sh installs it)" >&2; exit 2; }
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
file=$dir/session-$messages.bsz
if [[ ! -s $file ]]; then
  echo "generating $file ($messages messages)..." >&2
  python3 tools/bench/analyze/generate.py --redacted --messages "$messages" --parallel 8 | "$BIN" record -o "$file.tmp" --tap - --quiet >&2
  mv "$file.tmp" "$file"
fi

# pick LOG: median of column 1, max of column 2.
pick() { grep -E '^[0-9.]+ [0-9]+$' "$1" | sort -n | awk '{v[NR]=$1; if ($2>r) r=$2} END {printf "%s %.0f\n", v[int((NR+1)/2)], r/1024}'; }

run_mode() { # MODE -> prints "spans wall_median encoding_median rss_mb accepted"
  local mode=$1 flag=""; [[ $mode == discard ]] && flag=--discard
  local fifo=$dir/recv.in; rm -f "$fifo"; mkfifo "$fifo"
  PYTHONPATH=$packages $py tools/otlp/receiver.py --port 0 --stdin-eof-stops $flag < "$fifo" > "$dir/recv.out" &
  local rpid=$!
  exec {hold}> "$fifo"
  for _ in $(seq 50); do grep -q listening "$dir/recv.out" 2>/dev/null && break; sleep 0.1; done
  local port; port=$(awk '/listening/ {print $2}' "$dir/recv.out")
  : > "$dir/$mode.wall"; : > "$dir/$mode.enc"
  local line=""
  for _ in $(seq "$rounds"); do
    /usr/bin/time -f '%e %M' -o "$dir/time" "$BIN" export "$file" --otlp "http://127.0.0.1:$port" 2> "$dir/err" || { cat "$dir/err" >&2; exit 1; }
    line=$(grep '^otlp: sent' "$dir/err")
    cat "$dir/time" >> "$dir/$mode.wall"
    echo "$line" | sed -E 's/.*mapping and encoding ([0-9.]+) s.*/\1/' | awk '{print $1, 0}' >> "$dir/$mode.enc"
  done
  exec {hold}>&-
  wait "$rpid" || true
  local spans; spans=$(echo "$line" | sed -E 's/^otlp: sent ([0-9]+) spans.*/\1/')
  read -r wall rss < <(pick "$dir/$mode.wall")
  read -r enc _ < <(pick "$dir/$mode.enc")
  echo "$spans $wall $enc $rss $(cat "$dir/recv.out" | tail -1)"
}

: > "$dir/analyze.wall"
for _ in $(seq "$rounds"); do
  /usr/bin/time -f '%e %M' -a -o "$dir/analyze.wall" "$BIN" analyze --format json -o /dev/null "$file" 2>/dev/null || true
done
read -r awall arss < <(pick "$dir/analyze.wall")
read -r spans dwall denc drss _ < <(run_mode discard)
read -r spans2 ewall eenc erss recv < <(run_mode decode)

echo "archive: $file ($(stat -c %s "$file") bytes, $messages messages), $rounds rounds, medians"
printf "analyze --format json (baseline):   %6.2f s, peak RSS %4d MB\n" "$awall" "$arss"
printf "export --otlp, receiver discards:   %6.2f s, peak RSS %4d MB, %d spans; mapping+encoding %.2f s = %.0f spans/s; whole command %.0f spans/s\n" \
  "$dwall" "$drss" "$spans" "$denc" "$(echo "$spans / $denc" | bc -l)" "$(echo "$spans / $dwall" | bc -l)"
printf "export --otlp, receiver decodes:    %6.2f s, peak RSS %4d MB, %d spans; whole command %.0f spans/s (%s)\n" \
  "$ewall" "$erss" "$spans2" "$(echo "$spans2 / $ewall" | bc -l)" "$recv"
if ((keep == 0)); then rm -rf "$dir"; fi
