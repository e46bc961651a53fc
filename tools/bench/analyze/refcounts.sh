#!/usr/bin/env bash
# Reference-count calls per message of `bridgescope analyze` (docs/PERFORMANCE.md,
# "Reference counts counted"): uprobes on the Swift runtime's swift_retain and
# swift_release count every call (a sampled profile says how long they take, not who
# makes them). Two sessions from the bench's generator, N and 2N messages, are analysed
# on one thread; the difference of the counts over the difference of the messages is
# the steady state per message (start-up and the report cancel out). With --sites K,
# also the K call sites that call most in the longer session (`perf record -g` on the
# probes, `addr2line -i`: the source lines, inlined ones included).
#
#   tools/bench/analyze/refcounts.sh [--bin PATH] [--messages N] [--sites K]
#
# Needs root (uprobes), perf and the Swift runtime's libswiftCore.so; --sites also
# binutils' addr2line. swift_bridgeObjectRetain/Release call these two for a heap
# object, so they are not counted again; calls on immortal objects (string literals)
# are counted but cost little. A site named after a function that has nothing to do
# with it (e.g. `Stopwatch.now()`) is code the linker folded with that function's
# (identical instructions, one copy): its source line is the one to read.
# Sessions go to a temporary folder, removed at the end.
# About a minute for the counts with N = 63,000; --sites 30 takes a few minutes more.
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=; messages=63000; sites=0; args=("$@")
while (($#)); do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --messages) messages=$2; shift 2 ;;
    --sites) sites=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "refcounts.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ $(id -u) != 0 ]]; then
  echo "refcounts.sh: uprobes need root; run it as root (sudo $0 ${args[*]})" >&2; exit 2
fi
command -v perf >/dev/null || { echo "refcounts.sh: perf is missing: apt-get install -y linux-perf" >&2; exit 2; }
if [[ -z $bin ]]; then
  swift build -c release --product bridgescope >&2
  bin=$(swift build -c release --show-bin-path)/bridgescope
fi
core=$(ldd "$bin" | awk '/libswiftCore.so/ {print $3}')
[[ -n $core ]] || { echo "refcounts.sh: $bin does not load libswiftCore.so (a static build?)" >&2; exit 2; }
# The probes this run adds are taken away at the end; ones that were there stay.
added=()
for f in swift_retain swift_release; do
  if ! perf probe -l 2>/dev/null | grep -q "probe_libswiftCore:$f "; then
    perf probe -q -x "$core" "$f" && added+=("probe_libswiftCore:$f")
  fi
done
events=probe_libswiftCore:swift_retain,probe_libswiftCore:swift_release
work=$(mktemp -d)
cleanup() {
  rm -rf "$work"
  for p in "${added[@]}"; do perf probe -q -d "$p" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
counts=()
for n in "$messages" $((2 * messages)); do
  python3 tools/bench/analyze/generate.py --redacted --messages "$n" --parallel 8 2>/dev/null \
    | "$bin" record -o "$work/s$n.bsz" --tap - --quiet
  got=$("$bin" analyze "$work/s$n.bsz" --format json --jobs 1 --fail-on never 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"][0]["summary"]["messages"])')
  calls=$(perf stat -x, -e "$events" "$bin" analyze "$work/s$n.bsz" --format json --jobs 1 --fail-on never 2>&1 >/dev/null | awk -F, '{s += $1} END {print s}')
  echo "$got messages: $calls retain and release calls"
  counts+=("$got $calls")
done
read -r m1 c1 <<<"${counts[0]}"
read -r m2 c2 <<<"${counts[1]}"
python3 -c "print(f'steady state: {($c2 - $c1) / ($m2 - $m1):.1f} calls per message')"
if ((sites > 0)); then
  perf record -q -o "$work/rc.data" -e "$events" -g "$bin" analyze "$work/s$((2 * messages)).bsz" --format json --jobs 1 --fail-on never >/dev/null 2>&1
  perf script -i "$work/rc.data" -F event,ip,sym 2>/dev/null | python3 -c "
import collections, subprocess, sys
counts = collections.Counter(); frame = []
def done():
    if len(frame) > 2: counts[(frame[2].split()[0], frame[1].split()[1])] += 1
for line in sys.stdin:
    if line.strip(): frame.append(line.strip())
    else: done(); frame.clear()
done()
def demangled(symbol):
    try:
        out = subprocess.run(['swift', 'demangle', '--simplified', '--compact', symbol], capture_output=True, text=True).stdout.strip()
        return out or symbol
    except OSError:
        return symbol
print(f'call sites of {sum(counts.values())} calls ({$m2} messages):')
for (address, what), n in counts.most_common($sites):
    lines = subprocess.run(['addr2line', '-i', '-f', '-e', '$bin', address], capture_output=True, text=True).stdout.split()
    where = ' <- '.join(p.split('/')[-1] for p in lines[1::2])
    print(f'{n:9d} {what:14s} {demangled(lines[0])[:90] if lines else address}')
    print(f'{\"\":25s}at {where[:150]}')
"
fi
