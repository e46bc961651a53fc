#!/usr/bin/env bash
# `make bench-analyze`: bridgescope's readers against `zstd -dc` and jq on two generated
# sessions, in one run (docs/PERFORMANCE.md, "Analysis"):
#   images  the image-heavy session: journeys with 100-500 KB base64 images (--megabytes
#           of messages, default 1,100), 4 connections;
#   small   the field session of issue 21: --messages small, redacted envelopes (default
#           630,000) on 8 connections, images as `record --redact` leaves them.
# For each: `zstd -dc`, `bridgescope cat`, `export --jsonl -`, `analyze --format json`
# (and `analyze --jobs 1`, the analysis on one thread: no read-ahead),
# `jq -c .` on the decompressed lines (and, for images, a jq program pairing requests
# with responses), each timed by timed.py (wall and CPU to the microsecond; the median
# wall of the rounds, 5 by default, its CPU, the largest peak RSS; the lowest and
# highest ratio round by round for the goals); heap allocations per message of cat, export and analyze (an
# LD_PRELOAD malloc counter, tools/bench/analyze/malloc-count.c); and the ratios.
# With simdjson's headers (Debian `libsimdjson-dev`) and a C++ compiler, also a floor:
# tools/bench/analyze/floor.cpp, the same decompression and a simdjson parse of every
# line in C++ (`parse`), then pairing ids in a hash map (`pair`), no rules; without
# them those rows are skipped and the command to install them is printed.
#
#   tools/bench/analyze/run.sh [--only images|small] [--megabytes N] [--messages M]
#                              [--long M2] [--rounds R] [--keep] [--bin PATH] [--load N]
#
# --load N: keep N other processes busy (`yes > /dev/null`) during the timings, to see
# the read-ahead threads on a machine whose other core is not idle.
# --bin PATH: time that bridgescope instead of building one (before/after tables).
# --long M2: also analyze a small session of M2 messages (e.g. 6000000) once, for peak
# RSS against the session's length.
# Sessions are generated once (fixed seeds) into /tmp/bridgescope-bench-analyze/ (never
# into the repo) and reused while they exist; --keep leaves them there (default: removed).
# Builds bridgescope as `make release` does first (.build/static). About 4 minutes on 2 cores once built.
set -euo pipefail
cd "$(dirname "$0")/../../.."
megabytes=1100; messages=630000; long=0; rounds=5; keep=0; only=; bin=; load=0
dir=/tmp/bridgescope-bench-analyze
while (($#)); do
  case "$1" in
    --megabytes) megabytes=$2; shift 2 ;;
    --messages|--small) messages=$2; shift 2 ;;
    --long) long=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --bin) bin=$2; shift 2 ;;
    --load) load=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-analyze: unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in zstd jq python3 cc /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-analyze: $tool not found (tools/setup.sh installs it)" >&2; exit 2; }
done

if [[ -n $bin ]]; then
  BIN=$bin
else
  # The release binary `make release` builds (the Swift runtime linked in).
  swift build -c release --static-swift-stdlib --scratch-path .build/static --product bridgescope >&2
  BIN=$(swift build -c release --static-swift-stdlib --scratch-path .build/static --show-bin-path)/bridgescope
fi
mkdir -p "$dir"
logs=$(mktemp -d)
made=()
hogs=()
trap '((${#hogs[@]} == 0)) || kill "${hogs[@]}" 2>/dev/null || true; rm -rf "$logs"; ((keep)) || rm -f "${made[@]}"' EXIT
cc -O2 -shared -fPIC -o "$logs/malloc-count.so" tools/bench/analyze/malloc-count.c
floor=
if command -v c++ >/dev/null && [[ -f /usr/include/simdjson.h ]] \
   && c++ -O3 -std=c++17 -o "$logs/floor" tools/bench/analyze/floor.cpp -lsimdjson -lzstd; then
  floor=$logs/floor
else
  echo "bench-analyze: no simdjson floor rows (apt-get install -y libsimdjson-dev g++ adds them)" >&2
fi

# path KIND SIZE: where the session of that kind and size is kept.
path() { if [[ $1 == images ]]; then echo "$dir/session-$2.bsz"; else echo "$dir/session-small-$2.bsz"; fi; }
# ensure KIND SIZE: generates the session when missing (fixed seeds).
ensure() {
  local kind=$1 size=$2 file
  file=$(path "$kind" "$size")
  made+=("$file")
  [[ -s $file ]] && return
  echo "generating $file..." >&2
  if [[ $kind == images ]]; then
    python3 tools/bench/analyze/generate.py --megabytes "$size" | "$BIN" record -o "$file.tmp" --tap - --quiet >&2
  else
    python3 tools/bench/analyze/generate.py --redacted --messages "$size" --parallel 8 | "$BIN" record -o "$file.tmp" --tap - --quiet >&2
  fi
  mv "$file.tmp" "$file"
}

# timed LOG COMMAND...: runs COMMAND (timed.py: wall and CPU to the microsecond; GNU
# time's 10 ms steps are a twelfth of `zstd -dc` here), appends "wall user sys maxrss_kb" to LOG.
timed() { local log=$1; shift; python3 tools/bench/analyze/timed.py "$log" "$@" || true; }
# pick LOG: median wall, its user+sys, and the largest RSS (MB) of the runs in LOG.
pick() { sort -n "$1" | awk '{w[NR]=$1; c[NR]=$2+$3; if ($4>r) r=$4} END {m=int((NR+1)/2); printf "%.3f %.3f %.0f\n", w[m], c[m], r/1024}'; }
# ratios A B: the lowest and highest ratio of A's runs to B's, round by round (each
# round runs them back to back), in wall and in CPU time: how much a ratio moves with
# the machine's load.
ratios() { paste -d' ' "$1" "$2" | awk '{w=$1/$5; c=($2+$3)/($6+$7); if (NR==1||w<wl) wl=w; if (NR==1||w>wh) wh=w; if (NR==1||c<cl) cl=c; if (NR==1||c>ch) ch=c}
  END {printf "%.2f-%.2fx wall, %.2f-%.2fx CPU\n", wl, wh, cl, ch}'; }
# allocs COMMAND...: heap allocations of one run.
allocs() { rm -f "$logs/mc"; MALLOC_COUNT_OUT="$logs/mc" LD_PRELOAD="$logs/malloc-count.so" "$@" >/dev/null 2>&1 || true; awk '{print $2}' "$logs/mc" | tail -1; }

JQ_PAIR='reduce (inputs | select(.msg) | [.conn, .msg.correlationId, .msg.type, .msg.payload.status]) as [$c, $id, $type, $status]
  ({open: {}, pairs: 0};
   ($c + " " + $id) as $k
   | if $type == "request" then .open[$k] = true
     elif $type == "response" and $status != "acknowledged" and .open[$k] then .open |= del(.[$k]) | .pairs += 1
     else . end)
  | {pairs, unanswered: (.open | length)}'

# bench KIND FILE: the table of one session.
bench() {
  local kind=$1 file=$2 l=$logs/$1
  mkdir -p "$l"
  local compressed uncompressed records
  compressed=$(stat -c %s "$file")
  uncompressed=$(zstd -dc "$file" | wc -c)
  records=$(zstd -dc "$file" | grep -c '"seq"' || true)
  for ((i = 0; i < rounds; i++)); do
    timed "$l/zstd" zstd -dc "$file"
    timed "$l/cat" "$BIN" cat "$file"
    timed "$l/export" "$BIN" export "$file" --jsonl -
    timed "$l/analyze" "$BIN" analyze --format json --fail-on never --accept-incomplete "$file"
    timed "$l/analyze1" "$BIN" analyze --jobs 1 --format json --fail-on never --accept-incomplete "$file"
    if [[ -n $floor ]]; then
      timed "$l/floorparse" "$floor" "$file" parse
      timed "$l/floorpair" "$floor" "$file" pair
    fi
  done
  zstd -dc "$file" > "$l/lines.jsonl"
  timed "$l/jqc" jq -c . "$l/lines.jsonl"
  if [[ $kind == images ]]; then
    timed "$l/jqpair" jq -n -c "$JQ_PAIR" "$l/lines.jsonl"
  fi
  rm -f "$l/lines.jsonl"
  local ac cc ec
  cc=$(allocs "$BIN" cat "$file"); ec=$(allocs "$BIN" export "$file" --jsonl -)
  ac=$(allocs "$BIN" analyze --format json --fail-on never --accept-incomplete "$file")
  local summary
  summary=$("$BIN" analyze --format json --fail-on never --accept-incomplete "$file" | jq -c '.sessions[0].summary | {messages, requests, unanswered, errors, warnings}')
  read -r zw zc zr < <(pick "$l/zstd")
  echo
  echo "== $kind: $file"
  echo "   $compressed bytes compressed, $uncompressed uncompressed, $records records; analyzer: $summary"
  echo "   $rounds rounds (jq: 1): median wall time and its CPU time, largest peak RSS; allocations of one run per record"
  printf '   %-40s %8s %8s %8s %8s %11s %11s\n' command "wall s" "CPU s" "MB/s" "RSS MB" "x zstd wall" "allocs/rec"
  row() {
    local name=$1 log=$2 al=${3:-}
    read -r w c r < <(pick "$log")
    local per=""
    [[ -n $al ]] && per=$(awk -v a="$al" -v n="$records" 'BEGIN {printf "%.2f", a / n}')
    printf '   %-40s %8s %8s %8s %8s %11s %11s\n' "$name" "$w" "$c" "$(awk -v b="$uncompressed" -v s="$w" 'BEGIN {printf "%.0f", (s > 0 ? b / s / 1e6 : 0)}')" "$r" \
      "$(awk -v a="$w" -v z="$zw" 'BEGIN {printf "%.2fx", a / z}')" "$per"
  }
  row "zstd -dc FILE" "$l/zstd"
  row "bridgescope cat FILE" "$l/cat" "$cc"
  row "bridgescope export FILE --jsonl -" "$l/export" "$ec"
  row "bridgescope analyze --format json FILE" "$l/analyze" "$ac"
  row "  the same, --jobs 1 (one thread)" "$l/analyze1"
  row "jq -c . (decompressed lines)" "$l/jqc"
  [[ $kind == images ]] && row "jq pairing (decompressed lines)" "$l/jqpair"
  if [[ -n $floor ]]; then
    row "floor: C++ simdjson parse (1 thread)" "$l/floorparse"
    row "floor: + pair ids, no rules" "$l/floorpair"
  fi
  read -r aw ac2 _ < <(pick "$l/analyze")
  read -r cw cc2 _ < <(pick "$l/cat")
  read -r ew ec2 _ < <(pick "$l/export")
  read -r qw qc _ < <(pick "$l/jqc")
  awk -v a="$aw" -v ac="$ac2" -v z="$zw" -v zc="$zc" -v c="$cw" -v e="$ew" -v q="$qw" -v qc="$qc" -v n="$records" 'BEGIN {
    printf "   analyze / zstd -dc: %.2fx wall, %.2fx CPU (target <= 3x)   jq -c . / analyze: %.1fx wall, %.1fx CPU (target >= 5x)\n", a / z, ac / zc, q / a, qc / ac
    printf "   cat / zstd -dc: %.2fx wall   export / zstd -dc: %.2fx wall (target <= 1.5x)   analyze: %.2f us CPU per record\n", c / z, e / z, ac / n * 1e6 }'
  echo "   round by round: analyze / zstd -dc $(ratios "$l/analyze" "$l/zstd"); export / zstd -dc $(ratios "$l/export" "$l/zstd")"
  if [[ -n $floor ]]; then
    read -r _ fc _ < <(pick "$l/floorpair")
    awk -v ac="$ac2" -v fc="$fc" -v zc="$zc" 'BEGIN { printf "   floor (pair) / zstd -dc: %.2fx CPU   analyze / floor (pair): %.2fx CPU\n", fc / zc, ac / fc }'
  fi
  if [[ $kind == images ]]; then
    read -r pw pc _ < <(pick "$l/jqpair")
    awk -v a="$aw" -v p="$pw" 'BEGIN { printf "   jq pairing / analyze: %.1fx wall\n", p / a }'
  fi
}

if ((load)); then
  for ((i = 0; i < load; i++)); do yes > /dev/null & hogs+=($!); done
  echo "(the machine is kept busy by $load other processes during the timings)"
fi
if [[ $only != small ]]; then ensure images "$megabytes"; bench images "$(path images "$megabytes")"; fi
if [[ $only != images ]]; then ensure small "$messages"; bench small "$(path small "$messages")"; fi
if ((long)); then
  ensure small "$long"
  file=$(path small "$long")
  timed "$logs/long" "$BIN" analyze --format json --fail-on never --accept-incomplete "$file"
  read -r w c r < <(pick "$logs/long")
  echo
  echo "== long small session, $long messages: analyze $w s wall, $c s CPU, peak RSS $r MB"
fi
