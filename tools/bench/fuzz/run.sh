#!/usr/bin/env bash
# Fuzzer benchmarks (docs/PERFORMANCE.md, "Fuzzing"). Usage:
#   tools/bench/fuzz/run.sh speed [SECONDS]         in-process single-envelope execs/s (default 3 s per line)
#   tools/bench/fuzz/run.sh libfuzzer [SECONDS]     each libFuzzer target under ASan, execs/s and coverage (default 20 s each)
#   tools/bench/fuzz/run.sh variants [BUDGET] [RUNS] bug-finding: structure-aware vs plain bytes on broken hosts (default 60 s, 5 runs)
#   tools/bench/fuzz/run.sh checker [MUTANTS]       the protocol model's checker time against black-box case time (stdio hosts)
#   tools/bench/fuzz/run.sh all
# One job at a time (the machine is shared). Release builds; the first build takes minutes.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
what=${1:-all}
shift || true
export SWIFT_BACKTRACE=enable=no SWIFT_DETERMINISTIC_HASHING=1 ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

bench() {
    swift build -c release --package-path tools/bench/fuzz >/dev/null
    tools/bench/fuzz/.build/release/fuzz-bench "$@"
}

# cputime FILE CMD...: runs CMD, writes its user and system CPU seconds to FILE.
cputime() {
    python3 -c 'import resource, subprocess, sys
subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{r.ru_utime} {r.ru_stime}\n")' "$@"
}

libfuzzer() {
    local secs=${1:-20}
    touch tools/fuzz/Package.swift
    (cd tools/fuzz && BRIDGESCOPE_LIBFUZZER=1 swift build -c release) >/dev/null
    swift build -c release --product bridgescope >/dev/null
    local work
    work=$(mktemp -d)
    "$(swift build -c release --show-bin-path)/bridgescope" fuzz --export-libfuzzer-seeds "$work/seeds" >/dev/null
    # execs/s is libFuzzer's (wall clock); per CPU s divides the executions by the
    # process's user + system time, i.e. the speed on one core of its own, which a shared
    # machine's wall clock does not show.
    printf '%-16s %12s %10s %14s %16s\n' target execs "execs/s" "per CPU s" "coverage"
    for t in ${FUZZ_TARGETS:-json envelope host websocket archive}; do
        mkdir -p "$work/$t"
        local env=()
        [[ $t == websocket ]] && compgen -G "corpus/known-bugs/websocket/*.bin" >/dev/null && env=(BRIDGESCOPE_FUZZ_SKIP_INFLATE=1)
        local maxlen=65536  # the nightly's limits (tools/nightly-fuzz.sh)
        case $t in json|envelope) maxlen=16384 ;; websocket) maxlen=4096 ;; esac
        cputime "$work/$t.time" env "${env[@]}" tools/fuzz/.build/release/fuzz-$t -max_total_time="$secs" -dict=tools/fuzz/bridge.dict -max_len=$maxlen \
            -timeout=5 -print_final_stats=1 "$work/$t" "$work/seeds/$t" >"$work/$t.log" 2>&1 || true
        local execs speed c0 c1
        execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$' | tail -1)
        speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$' | tail -1)
        c0=$(grep -m1 -o 'INITED cov: [0-9]*' "$work/$t.log" | grep -o '[0-9]*$')
        c1=$(grep -o 'cov: [0-9]*' "$work/$t.log" | tail -1 | grep -o '[0-9]*')
        local cpu
        cpu=$(awk -v n="${execs:-0}" '{ t = $1 + $2 } END { printf "%d", (t > 0 ? n / t : 0) }' "$work/$t.time" 2>/dev/null || echo 0)
        printf '%-16s %12s %10s %14s %16s\n' "fuzz-$t" "${execs:-0}" "${speed:-0}" "${cpu:-0}" "${c0:-?} -> ${c1:-?}"
    done
    rm -rf "$work"
}

case $what in
    speed) bench speed "${1:-3}" ;;
    libfuzzer) libfuzzer "${1:-20}" ;;
    variants) bench variants "${1:-60}" "${2:-5}" ;;
    checker) swift build -c release --product bridgescope >/dev/null; bench checker "${1:-200}" 20 ;;
    all) bench speed 3; libfuzzer 20; bench variants 60 5 ;;
    *) sed -n '2,8p' "$0"; exit 2 ;;
esac
