#!/usr/bin/env python3
"""Samples processes every INTERVAL seconds into a CSV (tools/soak/run.sh).

    sample.py --out FILE.csv --interval 10 NAME=PID [NAME=PID ...]

Columns: t (seconds since the start), name, pid, rss_kb (VmRSS), fds (entries of
/proc/PID/fd), threads (Threads), cpu_percent (user+system CPU over the last interval,
100 = one core). Runs until every process has exited or it is sent SIGTERM.
"""
import argparse, os, signal, sys, time

def read(pid):
    status = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            status[k] = v.strip()
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime + stime (fields 14, 15)
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return int(status["VmRSS"].split()[0]), fds, int(status["Threads"]), ticks

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("procs", nargs="+")
    a = ap.parse_args()
    procs = [(p.split("=")[0], int(p.split("=")[1])) for p in a.procs]
    hz = os.sysconf("SC_CLK_TCK")
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    last = {}
    start = time.monotonic()
    with open(a.out, "w") as out:
        out.write("t,name,pid,rss_kb,fds,threads,cpu_percent\n")
        while not stop:
            now = time.monotonic()
            alive = 0
            for name, pid in procs:
                try:
                    rss, fds, threads, ticks = read(pid)
                except (FileNotFoundError, ProcessLookupError, IndexError):
                    continue
                alive += 1
                prev = last.get(pid)
                cpu = "" if prev is None else f"{100.0 * (ticks - prev[1]) / hz / max(now - prev[0], 1e-3):.1f}"
                last[pid] = (now, ticks)
                out.write(f"{now - start:.1f},{name},{pid},{rss},{fds},{threads},{cpu}\n")
            out.flush()
            if not alive:
                break
            end = now + a.interval
            while not stop and time.monotonic() < end:
                time.sleep(0.2)

if __name__ == "__main__":
    main()
