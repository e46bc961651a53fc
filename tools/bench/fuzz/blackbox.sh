#!/usr/bin/env bash
# Black-box fuzzing speed (issue 22, docs/PERFORMANCE.md "Black-box fuzzing"): cases per
# second against stdio hosts, with many cases per host process (the default) and with a
# fresh process per case (--cases-per-process 1, the old mode), in the same run.
# Usage: tools/bench/fuzz/blackbox.sh [RUNS]   (release build; needs python3)
set -euo pipefail
cd "$(dirname "$0")/../../.."
runs="${1:-1000}"
swift build -c release --product bridgescope >/dev/null
bin="$PWD/.build/release/bridgescope"
corpus="$(mktemp -d)"; cp -r corpus "$corpus/"; trap 'rm -rf "$corpus"' EXIT
measure() {  # name, target, extra args...
  local name="$1" target="$2"; shift 2
  for mode in reuse fresh; do
    local extra=()
    [[ $mode == fresh ]] && extra=(--cases-per-process 1)
    local line
    line="$("$bin" fuzz --target "$target" --runs "$runs" --seed 1 --corpus "$corpus/corpus" --findings "$corpus/found" --format json "$@" "${extra[@]}" 2>/dev/null || true)"
    python3 - "$line" "$name" "$mode" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print("%-30s %-6s %6d execs %7.1f s %5d cases/s  host processes %s  findings %d" % (
    sys.argv[2], sys.argv[3], d["execs"], d["seconds"], d["execsPerSecond"], d["hostProcesses"], len(d["findings"])))
PY
  done
}
measure "swift host, instant scenario" "stdio:$bin host --stdio --scenario tools/bench/fuzz/instant.json" --scenario tools/bench/fuzz/instant.json
measure "swift host, default scenario" "stdio:$bin host --stdio"
measure "python host (50 ms captures)" "stdio:python3 tools/hosts/python/bridge_host.py"
# ws://: one connection per case to one `host --listen` process (no fresh-process mode).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" host --listen "127.0.0.1:$port" --scenario tools/bench/fuzz/instant.json >/dev/null 2>&1 &
hostpid=$!; trap 'kill $hostpid 2>/dev/null; rm -rf "$corpus"' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
line="$("$bin" fuzz --target "ws://127.0.0.1:$port/bridge" --scenario tools/bench/fuzz/instant.json --runs "$runs" --seed 1 --corpus "$corpus/corpus" --findings "$corpus/found" --format json 2>/dev/null || true)"
python3 - "$line" "swift host over ws://, instant" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print("%-30s %-6s %6d execs %7.1f s %5d cases/s  connections %d  findings %d" % (
    sys.argv[2], "conn", d["execs"], d["seconds"], d["execsPerSecond"], d["execs"], len(d["findings"])))
PY
for j in 4 8 16; do
  line="$("$bin" fuzz --target "stdio:$bin host --stdio --scenario tools/bench/fuzz/instant.json" --scenario tools/bench/fuzz/instant.json --runs "$runs" --jobs $j --seed 1 --corpus "$corpus/corpus" --findings "$corpus/found" --format json 2>/dev/null || true)"
  python3 - "$line" "swift host, instant, --jobs $j" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print("%-30s %6d execs %7.1f s %5d cases/s  findings %d" % (sys.argv[2], d["execs"], d["seconds"], d["execsPerSecond"], len(d["findings"])))
PY
  line="$("$bin" fuzz --target "stdio:python3 tools/hosts/python/bridge_host.py" --runs "$runs" --jobs $j --seed 1 --corpus "$corpus/corpus" --findings "$corpus/found" --format json 2>/dev/null || true)"
  python3 - "$line" "python host, --jobs $j" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print("%-30s %6d execs %7.1f s %5d cases/s  findings %d" % (sys.argv[2], d["execs"], d["seconds"], d["execsPerSecond"], len(d["findings"])))
PY
done
