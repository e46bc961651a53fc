#!/usr/bin/env bash
# `make bench-analyze`: bridgescope analyze on a generated archive of at least 1 GB
# (uncompressed), side by side with `zstd -dc` and a jq program that only pairs requests
# with responses, on the same file in the same run (docs/PERFORMANCE.md, "Analysis").
#
#   tools/bench/analyze/run.sh [--megabytes N | --small [MESSAGES]] [--rounds R] [--jq-rounds J] [--file F] [--keep]
#
# --small: the field session of issue 21 instead: MESSAGES (default 630,000) small,
# redacted envelopes on 8 connections (images as `record --redact` leaves them); also
# times `cat`, `export --jsonl` and `jq -c .` on the decompressed lines.
#
# The archive is generated once into /tmp/bridgescope-bench-analyze/ (never into the repo)
# and reused while it exists; --keep leaves it there at the end (default: removed).
# Builds bridgescope in release mode first. About 2-3 minutes on 2 cores once built, most
# of it jq.
set -euo pipefail
cd "$(dirname "$0")/../../.."
megabytes=1100; rounds=3; jq_rounds=1; keep=0; small=0
dir=/tmp/bridgescope-bench-analyze
file=$dir/session-${megabytes}.bsz
while (($#)); do
  case "$1" in
    --megabytes) megabytes=$2; file=$dir/session-${megabytes}.bsz; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --jq-rounds) jq_rounds=$2; shift 2 ;;
    --file) file=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --small) small=630000; if [[ ${2:-} =~ ^[0-9]+$ ]]; then small=$2; shift; fi; file=$dir/session-small-${small}.bsz; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-analyze: unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in zstd jq python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-analyze: $tool not found (tools/setup.sh installs it)" >&2; exit 2; }
done

swift build -c release --product bridgescope >&2
BIN=$(swift build -c release --show-bin-path)/bridgescope
mkdir -p "$dir"
if [[ ! -s $file ]]; then
  if ((small)); then
    echo "generating $file ($small small redacted messages)..." >&2
    python3 tools/bench/analyze/generate.py --redacted --messages "$small" --parallel 8 | "$BIN" record -o "$file.tmp" --tap - --quiet >&2
  else
    echo "generating $file ($megabytes MB of messages)..." >&2
    python3 tools/bench/analyze/generate.py --megabytes "$megabytes" | "$BIN" record -o "$file.tmp" --tap - >&2
  fi
  mv "$file.tmp" "$file"
fi

compressed=$(stat -c %s "$file")
uncompressed=$(zstd -dc "$file" | wc -c)
messages=$(zstd -dc "$file" | grep -c '"seq"' || true)

# timed LOG COMMAND...: runs COMMAND under /usr/bin/time, appends "wall user sys maxrss_kb" to LOG.
timed() { local log=$1; shift; /usr/bin/time -f '%e %U %S %M' -a -o "$log" "$@" >/dev/null || true; }
# pick LOG: median wall, its user+sys, and the largest RSS (MB) of the runs in LOG.
pick() { sort -n "$1" | awk '{w[NR]=$1; c[NR]=$2+$3; if ($4>r) r=$4} END {m=int((NR+1)/2); printf "%.2f %.2f %.0f\n", w[m], c[m], r/1024}'; }

JQ_PAIR='reduce (inputs | select(.msg) | [.conn, .msg.correlationId, .msg.type, .msg.payload.status]) as [$c, $id, $type, $status]
  ({open: {}, pairs: 0};
   ($c + " " + $id) as $k
   | if $type == "request" then .open[$k] = true
     elif $type == "response" and $status != "acknowledged" and .open[$k] then .open |= del(.[$k]) | .pairs += 1
     else . end)
  | {pairs, unanswered: (.open | length)}'

logs=$(mktemp -d)
trap 'rm -rf "$logs"; ((keep)) || rm -f "$file"' EXIT
for ((i = 0; i < rounds; i++)); do
  timed "$logs/zstd" zstd -dc "$file"
  timed "$logs/analyze" "$BIN" analyze --format json --fail-on never --accept-incomplete "$file"
  if ((small)); then
    timed "$logs/cat" "$BIN" cat "$file"
    timed "$logs/export" "$BIN" export "$file" --jsonl -
  fi
done
if ((small)); then
  zstd -dc "$file" > "$logs/lines.jsonl"
  timed "$logs/jqc" jq -c . "$logs/lines.jsonl"
  rm -f "$logs/lines.jsonl"
fi
# The jq pairing slows down with the number of open ids (minutes on 600,000 small
# messages): the small session compares with `jq -c .` instead.
((small)) && jq_rounds=0
for ((i = 0; i < jq_rounds; i++)); do
  # The pipeline's wall time; jq's own CPU time and RSS (zstd is the same as above).
  timed "$logs/pipe" bash -c 'zstd -dc "$1" | /usr/bin/time -f "%e %U %S %M" -a -o "$2" jq -n -c "$3"' _ "$file" "$logs/jq" "$JQ_PAIR"
done
pairs=skipped
((small)) || pairs=$(zstd -dc "$file" | jq -n -c "$JQ_PAIR")
summary=$("$BIN" analyze --format json --fail-on never --accept-incomplete "$file" | jq -c '.sessions[0].summary | {messages, requests, unanswered, errors, warnings}')

read -r zw zc zr < <(pick "$logs/zstd")
read -r aw ac ar < <(pick "$logs/analyze")
pw=0; jc=0; jr=0
if ((!small)); then
  read -r pw _ _ < <(pick "$logs/pipe")
  read -r _ jc jr < <(pick "$logs/jq")
fi
mbs() { awk -v b="$uncompressed" -v s="$1" 'BEGIN {printf "%.0f", b / s / 1e6}'; }
echo
echo "archive: $file"
echo "  $compressed bytes compressed, $uncompressed bytes uncompressed, $messages records"
echo "  analyzer: $summary"
echo "  jq pairing: $pairs"
echo "runs: $rounds (jq: $jq_rounds); median wall time and its CPU time; largest peak RSS of the runs"
printf '%-44s %9s %9s %7s %9s\n' command "wall (s)" "CPU (s)" "MB/s" "RSS (MB)"
printf '%-44s %9s %9s %7s %9s\n' "zstd -dc FILE >/dev/null" "$zw" "$zc" "$(mbs "$zw")" "$zr"
printf '%-44s %9s %9s %7s %9s\n' "bridgescope analyze --format json FILE" "$aw" "$ac" "$(mbs "$aw")" "$ar"
((small)) || printf '%-44s %9s %9s %7s %9s\n' "zstd -dc FILE | jq (pairing only)" "$pw" "$jc (jq)" "$(mbs "$pw")" "$jr (jq)"
if ((small)); then
  read -r cw cc cr < <(pick "$logs/cat")
  read -r ew ec er < <(pick "$logs/export")
  read -r qw qc qr < <(pick "$logs/jqc")
  printf '%-44s %9s %9s %7s %9s\n' "bridgescope cat FILE" "$cw" "$cc" "$(mbs "$cw")" "$cr"
  printf '%-44s %9s %9s %7s %9s\n' "bridgescope export FILE --jsonl -" "$ew" "$ec" "$(mbs "$ew")" "$er"
  printf '%-44s %9s %9s %7s %9s\n' "jq -c . (decompressed lines)" "$qw" "$qc" "$(mbs "$qw")" "$qr"
  awk -v c="$cw" -v e="$ew" -v a="$aw" -v q="$qw" -v z="$zw" -v n="$messages" -v ac="$ac" 'BEGIN {
    printf "cat / zstd -dc: %.1fx   export / zstd -dc: %.1fx   target <= 1.5x\n", c / z, e / z
    printf "jq -c . / analyze: %.1fx wall   target >= 5x\n", q / a
    printf "analyze: %.2f us CPU per message\n", ac / n * 1e6 }'
fi
((small)) || awk -v a="$aw" -v ac="$ac" -v z="$zw" -v j="$pw" -v jc="$jc" -v zc="$zc" -v r="$ar" 'BEGIN {
  printf "analyze / zstd -dc: %.2fx wall   target <= 3x\n", a / z
  printf "jq pipeline / analyze: %.1fx wall, %.1fx CPU (jq + zstd against analyze)   target >= 5x\n", j / a, (jc + zc) / ac
  printf "analyze peak RSS: %d MB   target < 200 MB\n", r }'
