"""Summarises tools/bench/server/run.sh: reads `ROUND WHICH JSON` lines on stdin."""
import json
import statistics
import sys

runs = {"host": {}, "echo": {}}
for line in sys.stdin:
    r, which, js = line.split(" ", 2)
    runs[which][int(r)] = json.loads(js)


def med(which, key):
    return statistics.median(v[key] for v in runs[which].values())


def rng(which, key):
    values = [v[key] for v in runs[which].values()]
    return f"{min(values)}–{max(values)}"


for which, name in (("host", "reference host"), ("echo", "python echo   ")):
    print(f"{name}: median {med(which, 'roundTripsPerSecond'):.0f} rt/s (range {rng(which, 'roundTripsPerSecond')}), "
          f"p50 {med(which, 'p50ms'):.3f} ms, p99 {med(which, 'p99ms'):.3f} ms (range {rng(which, 'p99ms')})")
for which in runs:
    for v in runs[which].values():
        v["cpuUsPerRoundTrip"] = round(v["serverCpuMs"] * 1000 / max(1, v["roundTrips"]), 1)
for which, name in (("host", "reference host"), ("echo", "python echo   ")):
    print(f"{name}: server CPU per round trip: median {med(which, 'cpuUsPerRoundTrip'):.1f} µs "
          f"(range {rng(which, 'cpuUsPerRoundTrip')})")
ratios = [runs["host"][r]["roundTripsPerSecond"] / max(1, runs["echo"][r]["roundTripsPerSecond"]) for r in sorted(runs["host"])]
print(f"ratio (host / echo round trips per second): median {statistics.median(ratios):.2f}x, "
      f"per round {', '.join(f'{x:.2f}x' for x in ratios)}")
print(f"CPU per round trip (echo / host): {med('echo', 'cpuUsPerRoundTrip') / max(0.001, med('host', 'cpuUsPerRoundTrip')):.2f}x")
