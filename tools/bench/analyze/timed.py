#!/usr/bin/env python3
"""timed.py LOG COMMAND...: runs COMMAND (standard output to /dev/null) and appends
"wall user sys maxrss_kb" to LOG: the wall time from a monotonic clock and the CPU times
from wait4's rusage, in seconds to the microsecond (GNU time's %e, %U and %S move in
10 ms steps, a twelfth of `zstd -dc` on the small session); the peak RSS in KiB from
GNU time's %M, which runs the command (a child forked from Python would count the
interpreter's pages as its own)."""
import os, subprocess, sys, tempfile, time

log, cmd = sys.argv[1], sys.argv[2:]
with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss, open(os.devnull, "wb") as null:
    start = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd, stdout=null)
    # The rusage of /usr/bin/time includes the command's, which it waited for.
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    wall = time.perf_counter() - start
    maxrss = (rss.read().strip().splitlines() or ["0"])[-1]
with open(log, "a") as f:
    f.write(f"{wall:.6f} {usage.ru_utime:.6f} {usage.ru_stime:.6f} {maxrss}\n")
