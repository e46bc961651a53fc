#!/usr/bin/env bash
# `make bench-fleet`: `bridgescope analyze --fleet` over 10,000 generated sessions of
# about 200 small messages each at --jobs 2: sessions per second and peak RSS
# (docs/PERFORMANCE.md, "Fleet analysis"; goal >= 1,000 sessions/s, <= 200 MB).
#
#   tools/bench/fleet/run.sh [--sessions N] [--jobs J] [--rounds R] [--keep]
#
# Baseline in the same run: `zstd -dc` over the same files (decompression alone, one
# process, the floor of any reader). The sessions are generated once into
# /tmp/bridgescope-bench-fleet/ (tools/bench/fleet/generate.py) and reused while they
# exist; --keep leaves them there (default: removed). Builds bridgescope in release mode.
set -euo pipefail
cd "$(dirname "$0")/../../.."
sessions=10000; jobs=2; rounds=3; keep=0
while (($#)); do
  case "$1" in
    --sessions) sessions=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-fleet: unknown option $1" >&2; exit 2 ;;
  esac
done
dir=/tmp/bridgescope-bench-fleet/$sessions
for tool in zstd python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-fleet: $tool not found (tools/setup.sh installs it)" >&2; exit 2; }
done
swift build -c release --product bridgescope >&2
BIN=$(swift build -c release --show-bin-path)/bridgescope
if [[ ! -d $dir ]]; then
  echo "generating $sessions sessions into $dir..." >&2
  python3 tools/bench/fleet/generate.py "$dir.tmp" --sessions "$sessions"
  mv "$dir.tmp" "$dir"
fi
messages=$(find "$dir" -name '*.bsz' -print0 | xargs -0 zstd -dc | grep -c '"seq"' || true)
: > /tmp/bench-fleet.times
for _ in $(seq "$rounds"); do
  /usr/bin/time -f '%e %M' -a -o /tmp/bench-fleet.times "$BIN" analyze --fleet --jobs "$jobs" --format json -o /tmp/bench-fleet.json "$dir" 2>/dev/null || true
done
read -r wall rss < <(grep -E '^[0-9.]+ [0-9]+$' /tmp/bench-fleet.times | sort -n | awk '{w[NR]=$1; if ($2>r) r=$2} END {print w[int((NR+1)/2)], r/1024}')
zwall=$( { /usr/bin/time -f '%e' find "$dir" -name '*.bsz' -exec zstd -qdc {} + > /dev/null; } 2>&1 | tail -1)
echo "fleet: $sessions sessions, $messages messages, --jobs $jobs, $rounds rounds (median wall, largest RSS)"
printf "analyze --fleet:  %6.2f s = %5.0f sessions/s, %7.0f messages/s, peak RSS %.0f MB\n" "$wall" "$(echo "$sessions / $wall" | bc -l)" "$(echo "$messages / $wall" | bc -l)" "$rss"
printf "zstd -dc (floor): %6.2f s\n" "$zwall"
grep -E '"(sessions|journeys|requests)"' /tmp/bench-fleet.json | head -3 | tr -d ' \n'; echo
if ((keep == 0)); then rm -rf "$dir"; fi
