"""Recording benchmarks (issue 6), each measured side by side with its baseline in one run.

1. offline: `bridgescope record --read F` vs `tshark -r F -Y websocket -T fields
   -E aggregator=@ -e websocket.payload.text -o gui.max_tree_depth:2000`, on a capture
   with permessage-deflate frames (bulk_deflate.pcap) and one with uncompressed frames
   (the same messages through `bridgescope export --pcapng`); both must extract the same
   number of messages.
2. live: loopback traffic at a fixed envelope rate (traffic.py), captured once by
   `bridgescope record --interface lo` and once by `tcpdump -w`: drops, CPU time per
   envelope, archive size against the pcap.
3. proxy: `ws-load` (tools/bench/server) against the reference host directly, through
   `bridgescope record --proxy`, and through `mitmdump -w` in reverse-proxy mode:
   round trips per second, latency percentiles, archive size against the flow file.

    python3 bench.py [--only offline,live,proxy] [--rate R] [--seconds S] [--runs N]
                     [--live-runs N] [--latency-rounds N] [--latency-seconds S] [--pin]

Prints a Markdown report on standard output; progress on standard error.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(ROOT, ".build", "release", "bridgescope")
LOAD = os.path.join(ROOT, "tools", "bench", "server", ".build", "release", "ws-load")
PCAPS = os.path.join(ROOT, "Tests", "Fixtures", "pcaps-websocket")
VENV = os.environ.get("BENCH_VENV", os.path.expanduser("~/.cache/bridgescope-bench-venv"))
TMP = tempfile.mkdtemp(prefix="bench-record-")


PIN = {"load": [], "server": []}  # taskset prefixes, set by --pin


def pinned(role, cmd):
    return PIN[role] + cmd


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def run_timed(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd to completion; returns (wall s, cpu s, maxrss kB, stdout bytes or None)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    out = p.stdout.read() if stdout == subprocess.PIPE else None
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{cmd[0]} failed ({p.returncode}): {err.decode(errors='replace')[-400:]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, out


def stop(p, sig=signal.SIGINT, timeout=30):
    """Signals a process we started and reaps it; returns (exit code, cpu s, stderr)."""
    p.send_signal(sig)
    deadline = time.time() + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            err = p.stderr.read().decode(errors="replace") if p.stderr else ""
            p.returncode = os.waitstatus_to_exitcode(status)
            return p.returncode, ru.ru_utime + ru.ru_stime, err
        if time.time() > deadline:
            p.kill()
            deadline = time.time() + 5
        time.sleep(0.05)


def trailer(archive):
    out = subprocess.run([TOOL, "cat", archive], capture_output=True).stdout.decode().splitlines()
    return json.loads(out[-1]) if out and '"trailer"' in out[-1] else {}


def median(xs):
    return statistics.median(xs)


# 1. offline ------------------------------------------------------------------------

def offline(runs):
    bulk = os.path.join(PCAPS, "bulk_deflate.pcap")
    archive = os.path.join(TMP, "bulk.bsz")
    subprocess.run([TOOL, "record", "-o", archive, "--read", bulk, "--quiet"], check=True)
    plain = os.path.join(TMP, "bulk-uncompressed.pcapng")
    subprocess.run([TOOL, "export", archive, "--pcapng", plain], check=True)
    rows = []
    for label, pcap in [("permessage-deflate (bulk_deflate.pcap)", bulk), ("uncompressed (same messages, export --pcapng)", plain)]:
        ours, theirs = [], []
        for i in range(runs):
            out = os.path.join(TMP, f"offline-{i}.bsz")
            ours.append(run_timed([TOOL, "record", "-o", out, "--read", pcap, "--quiet"]))
            n_ours = trailer(out).get("records", -1)
            theirs.append(run_timed(["tshark", "-r", pcap, "-Y", "websocket", "-T", "fields", "-E", "aggregator=@",
                                     "-e", "websocket.payload.text", "-o", "gui.max_tree_depth:2000"],
                                    stdout=subprocess.PIPE))
        text = theirs[-1][3].decode(errors="replace")
        n_tshark = sum(len(line.split("@")) for line in text.splitlines() if line.strip())
        size = os.path.getsize(pcap)
        w_ours, w_tshark = median([r[0] for r in ours]), median([r[0] for r in theirs])
        rows.append({
            "input": label, "packets_bytes": size, "messages_ours": n_ours, "messages_tshark": n_tshark,
            "ours_s": w_ours, "ours_cpu_s": median([r[1] for r in ours]), "ours_rss_mb": max(r[2] for r in ours) / 1024,
            "tshark_s": w_tshark, "tshark_cpu_s": median([r[1] for r in theirs]), "tshark_rss_mb": max(r[2] for r in theirs) / 1024,
            "ratio": w_tshark / w_ours,
        })
        log(f"offline {label}: ours {w_ours:.3f} s ({n_ours} msgs), tshark {w_tshark:.3f} s ({n_tshark} msgs)")
    return rows


# 2. live ---------------------------------------------------------------------------

def live(rate, seconds, deflate, per_message, procs, runs=1):
    """`runs` rounds of one traffic run per tool (alternating, bridgescope first), the
    same traffic each time; the figures are the medians over the rounds (CPU time on a
    shared machine varies by 2x between runs: one pair says little)."""
    rounds = [live_once(rate, seconds, deflate, per_message, procs) for _ in range(runs)]
    if runs == 1:
        return rounds[0]
    out = dict(rounds[-1])
    for tool in ("bridgescope", "tcpdump"):
        row = dict(rounds[-1][tool])
        for k in ("cpu_s", "cpu_us_per_envelope", "bytes", "rate"):
            row[k] = median([r[tool][k] for r in rounds])
        row["bytes"], row["rate"] = int(row["bytes"]), int(row["rate"])
        # The worst run counts for completeness: fewest recorded, most drops.
        row["recorded"] = min((r[tool]["recorded"] or 0) for r in rounds)
        row["drops"] = max((r[tool]["drops"] or 0) for r in rounds)
        row["cpu_us_runs"] = [round(r[tool]["cpu_us_per_envelope"], 2) for r in rounds]
        out[tool] = row
    out["cpu_ratio"] = out["bridgescope"]["cpu_s"] / max(1e-9, out["tcpdump"]["cpu_s"])
    out["cpu_ratio_runs"] = [round(r["cpu_ratio"], 1) for r in rounds]
    out["size_ratio"] = out["bridgescope"]["bytes"] / max(1, out["tcpdump"]["bytes"])
    out["runs"] = runs
    return out


def live_once(rate, seconds, deflate, per_message, procs):
    """One traffic run per tool, the same traffic: `procs` generator processes (one
    connection each) sharing `rate` envelopes per second for `seconds`."""
    pairs = int(rate * seconds / 2 / procs)
    rows = {}
    for tool in ("bridgescope", "tcpdump"):
        ports = [free_port() for _ in range(procs)]
        bpf = " or ".join(f"tcp port {p}" for p in ports)
        out = os.path.join(TMP, f"live-{tool}-{deflate}-{per_message}." + ("bsz" if tool == "bridgescope" else "pcap"))
        if tool == "bridgescope":
            cmd = [TOOL, "record", "-o", out, "--interface", "lo", "--filter", bpf, "--quiet"]
        else:
            cmd = ["tcpdump", "-i", "lo", "-B", "32768", "-s", "262144", "-n", "-w", out, bpf]
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(100):
            if os.path.exists(out):
                break
            time.sleep(0.05)
        time.sleep(0.5)
        gens = [subprocess.Popen([sys.executable, os.path.join(HERE, "traffic.py"), str(port), "--count", str(pairs),
                                  "--rate", str(rate / procs)] + (["--deflate"] if deflate else [])
                                 + (["--per-message"] if per_message else []),
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for port in ports]
        sent = [json.loads(g.communicate()[0]) for g in gens]
        envelopes = sum(x["envelopes"] for x in sent)
        achieved = envelopes / max(x["seconds"] for x in sent)
        time.sleep(1.0)
        code, cpu, err = stop(p)
        row = {"sent": envelopes, "rate": int(achieved), "cpu_s": cpu, "bytes": os.path.getsize(out)}
        if tool == "bridgescope":
            t = trailer(out)
            row.update(recorded=t.get("records"), drops=t.get("drops"), gaps=t.get("gaps"), errors=t.get("errors"))
        else:
            dropped = [l for l in err.splitlines() if "dropped by kernel" in l]
            row["drops"] = int(dropped[0].split()[0]) if dropped else None
            decoded = os.path.join(TMP, f"live-tcpdump-{deflate}-{per_message}.bsz")
            subprocess.run([TOOL, "record", "-o", decoded, "--read", out, "--quiet"])
            row["recorded"] = trailer(decoded).get("records")
        row["cpu_us_per_envelope"] = cpu / max(1, envelopes) * 1e6
        rows[tool] = row
        log(f"live {tool} deflate={deflate} per_message={per_message}: {row}")
    b, t = rows["bridgescope"], rows["tcpdump"]
    return {"deflate": deflate, "per_message": per_message, "bridgescope": b, "tcpdump": t,
            "cpu_ratio": b["cpu_s"] / max(1e-9, t["cpu_s"]), "size_ratio": b["bytes"] / max(1, t["bytes"])}


# 3. proxy --------------------------------------------------------------------------

def load(url, clients, pipeline, seconds):
    r = subprocess.run(pinned("load", [LOAD, url, "--clients", str(clients), "--pipeline", str(pipeline), "--seconds", str(seconds)]),
                       capture_output=True, check=True)
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


def mitm_messages(flows):
    py = os.path.join(VENV, "bin", "python")
    code = ("import sys\nfrom mitmproxy import io\nn=0\nwith open(sys.argv[1],'rb') as f:\n"
            "    for fl in io.FlowReader(f).stream():\n        ws=getattr(fl,'websocket',None)\n"
            "        n+=len(ws.messages) if ws else 0\nprint(n)")
    r = subprocess.run([py, "-c", code, flows], capture_output=True)
    return int(r.stdout.strip() or -1)


def start_ours(upstream):
    port = free_port()
    archive = os.path.join(TMP, f"proxy-{port}.bsz")
    p = subprocess.Popen(pinned("server", [TOOL, "record", "-o", archive, "--proxy", f"127.0.0.1:{port}", "--upstream", upstream,
                                           "--no-deflate", "--quiet"]), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert wait_port(port)
    return p, port, archive


def finish_ours(p, archive):
    _, cpu, _ = stop(p)
    t = trailer(archive)
    return dict(cpu_s=cpu, archive_bytes=os.path.getsize(archive), recorded=t.get("records"),
                drops=t.get("drops"), errors=t.get("errors"))


def start_mitm(host_port):
    mitmdump = os.path.join(VENV, "bin", "mitmdump")
    port = free_port()
    flows = os.path.join(TMP, f"flows-{port}.mitm")
    p = subprocess.Popen(pinned("server", [mitmdump, "--mode", f"reverse:http://127.0.0.1:{host_port}", "--listen-host", "127.0.0.1",
                                           "-p", str(port), "-w", flows, "-q"]), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert wait_port(port, 30)
    return p, port, flows


def finish_mitm(p, flows):
    _, cpu, _ = stop(p)
    return dict(cpu_s=cpu, flow_bytes=os.path.getsize(flows), recorded=mitm_messages(flows))


def proxy(seconds, lat_rounds, lat_seconds):
    """Throughput (16 clients x 8 in flight): direct, ours, mitmdump, one run each.
    Latency (1 client x 1 in flight): `rounds` rounds alternating direct, ours and
    mitmdump; medians of each path's p50 and p99 (p99 on a shared 2-core machine is
    mostly scheduling noise, so one run says little)."""
    have_mitm = os.path.exists(os.path.join(VENV, "bin", "mitmdump"))
    hp = free_port()
    host = subprocess.Popen(pinned("server", [TOOL, "host", "--listen", f"127.0.0.1:{hp}", "--no-deflate", "--log-level", "error"]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_port(hp)
    upstream = f"ws://127.0.0.1:{hp}/bridge"
    results = []
    try:
        row = {"shape": "throughput: 16 clients x 8 in flight", "direct": load(upstream, 16, 8, seconds)}
        p, port, archive = start_ours(upstream)
        row["ours"] = load(f"ws://127.0.0.1:{port}/bridge", 16, 8, seconds)
        row["ours"].update(finish_ours(p, archive))
        if have_mitm:
            m, mport, flows = start_mitm(hp)
            row["mitmdump"] = load(f"ws://127.0.0.1:{mport}/bridge", 16, 8, seconds)
            row["mitmdump"].update(finish_mitm(m, flows))
        log(f"proxy throughput: {row}")
        results.append(row)

        # Latency: direct and proxied runs alternate, in ABBA order (direct first in even
        # rounds, proxied first in odd ones) so slow drifts of the machine's load hit both
        # alike; each path's figure is the median over the rounds of its per-run p50/p99,
        # and "added" is the median of the per-round differences (proxied - direct).
        p, port, archive = start_ours(upstream)
        m = None
        if have_mitm:
            m, mport, flows = start_mitm(hp)
        runs = {"direct": [], "ours": [], "mitmdump": []}
        urls = {"direct": upstream, "ours": f"ws://127.0.0.1:{port}/bridge"}
        for i in range(lat_rounds):
            for key in (("direct", "ours") if i % 2 == 0 else ("ours", "direct")):
                runs[key].append(load(urls[key], 1, 1, lat_seconds))
            if m and i < max(1, lat_rounds // 2):
                runs["mitmdump"].append(load(f"ws://127.0.0.1:{mport}/bridge", 1, 1, lat_seconds))
        row = {"shape": f"latency: 1 client x 1 in flight, median of {lat_rounds} alternating runs of {lat_seconds:g} s"
                        + (" (pinned: load generator on CPU 0, host and proxy on CPU 1)" if PIN["load"] else "")}
        for key, rs in runs.items():
            if not rs:
                continue
            row[key] = {"roundTripsPerSecond": int(median([r["roundTripsPerSecond"] for r in rs])),
                        "p50ms": round(median([r["p50ms"] for r in rs]), 3),
                        "p99ms": round(median([r["p99ms"] for r in rs]), 3),
                        "p99runs": [r["p99ms"] for r in rs],
                        "samples": sum(r["roundTrips"] for r in rs)}
        row["added_p50ms"] = round(median([o["p50ms"] - d["p50ms"] for o, d in zip(runs["ours"], runs["direct"])]), 3)
        row["added_p99ms"] = round(median([o["p99ms"] - d["p99ms"] for o, d in zip(runs["ours"], runs["direct"])]), 3)
        row["ours"].update(finish_ours(p, archive))
        if m:
            row["mitmdump"].update(finish_mitm(m, flows))
        log(f"proxy latency: {row}")
        results.append(row)
    finally:
        stop(host, signal.SIGTERM)
    return results, have_mitm


# report ----------------------------------------------------------------------------

def report(a, off, lives, prox):
    print(f"Run: {time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} cores; bridgescope release build.\n")
    if off:
        print("### Offline: pcap → archive vs tshark\n")
        print("| input | bridgescope s (CPU s, max RSS) | tshark s (CPU s, max RSS) | messages (ours / tshark) | ratio |")
        print("|---|---:|---:|---:|---:|")
        for r in off:
            print(f"| {r['input']} | {r['ours_s']:.3f} ({r['ours_cpu_s']:.2f}, {r['ours_rss_mb']:.0f} MB) | "
                  f"{r['tshark_s']:.3f} ({r['tshark_cpu_s']:.2f}, {r['tshark_rss_mb']:.0f} MB) | "
                  f"{r['messages_ours']:,} / {r['messages_tshark']:,} | **{r['ratio']:.1f}x** |")
        print(f"\nMedian of {a.runs} runs each (wall time, whole process).\n")
    for l in lives:
        b, t = l["bridgescope"], l["tcpdump"]
        shape = "one TCP segment per message, 2 connections" if l["per_message"] else "batched: many messages per segment, 1 connection"
        print(f"### Live capture on lo ({'permessage-deflate' if l['deflate'] else 'uncompressed'} frames; {shape})\n")
        print("| tool | envelopes sent (rate/s) | recorded | drops | CPU s | CPU µs/envelope | output bytes |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        print(f"| bridgescope record --interface lo | {b['sent']:,} ({b['rate']:,}) | {b['recorded']:,} | {b['drops']} "
              f"(gaps {b['gaps']}, errors {b['errors']}) | {b['cpu_s']:.2f} | {b['cpu_us_per_envelope']:.2f} | {b['bytes']:,} |")
        print(f"| tcpdump -w | {t['sent']:,} ({t['rate']:,}) | {t['recorded']} (decoded after) | {t['drops']} | "
              f"{t['cpu_s']:.2f} | {t['cpu_us_per_envelope']:.2f} | {t['bytes']:,} |")
        print(f"\nCPU per envelope: **{l['cpu_ratio']:.2f}x** tcpdump's; archive **{l['size_ratio'] * 100:.1f}%** of the pcap.")
        if l.get("runs", 1) > 1:
            print(f"Medians of {l['runs']} alternating runs; µs per envelope of each run: bridgescope "
                  f"{b['cpu_us_runs']}, tcpdump {t['cpu_us_runs']}; ratio of each run {l['cpu_ratio_runs']}.")
        print()
    if prox:
        rows, have_mitm = prox
        print("### Recording proxy vs mitmdump (reverse proxy), reference host upstream\n")
        print("| load | path | round trips/s | p50 ms | p99 ms | recorded | output bytes | bytes/message |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            for key, label in [("direct", "direct"), ("ours", "bridgescope record --proxy"), ("mitmdump", "mitmdump -w")]:
                if key not in r:
                    continue
                x = r[key]
                size = x.get("archive_bytes", x.get("flow_bytes"))
                rec = x.get("recorded")
                per = f"{size / rec:.1f}" if size and rec and rec > 0 else "—"
                print(f"| {r['shape']} | {label} | {x['roundTripsPerSecond']:,} | {x['p50ms']} | {x['p99ms']} | "
                      f"{rec if rec is not None else '—'} | {size if size else '—'} | {per} |")
        lat = rows[-1]
        if "ours" in lat and "direct" in lat:
            print(f"\nAdded latency (median over rounds of proxied - direct, adjacent runs): p50 **{lat['added_p50ms']:.3f} ms**, "
                  f"p99 **{lat['added_p99ms']:.3f} ms**; difference of the median p99s {lat['ours']['p99ms'] - lat['direct']['p99ms']:.3f} ms; "
                  f"round trips measured: direct {lat['direct']['samples']:,}, proxy {lat['ours']['samples']:,}; "
                  f"p99 of each run: direct {lat['direct']['p99runs']}, proxy {lat['ours']['p99runs']}.")
        thr = rows[0]
        if "mitmdump" in thr:
            print(f"Throughput: **{thr['ours']['roundTripsPerSecond'] / max(1, thr['mitmdump']['roundTripsPerSecond']):.1f}x** "
                  f"mitmdump's round trips per second ({thr['ours']['roundTripsPerSecond'] / max(1, thr['direct']['roundTripsPerSecond']) * 100:.0f}% of direct).")
            o, mm = thr["ours"], thr["mitmdump"]
            if o.get("recorded") and mm.get("recorded"):
                print(f"Bytes per recorded message: archive {o['archive_bytes'] / o['recorded']:.1f}, flow file "
                      f"{mm['flow_bytes'] / mm['recorded']:.1f}: **{(mm['flow_bytes'] / mm['recorded']) / (o['archive_bytes'] / o['recorded']):.0f}x** smaller.")
        if not have_mitm:
            print(f"\nmitmdump was not found in {VENV}: run `make bench-record` (it installs mitmproxy there).")
        print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="offline,live,proxy")
    ap.add_argument("--rate", type=float, default=60_000)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--live-runs", type=int, default=3, help="alternating bridgescope/tcpdump runs per live load")
    ap.add_argument("--latency-rounds", type=int, default=6, help="alternating direct/proxied latency runs")
    ap.add_argument("--latency-seconds", type=float, default=4)
    ap.add_argument("--pin", action="store_true", help="taskset: load generator on CPU 0, host and proxies on CPU 1")
    a = ap.parse_args()
    if a.pin:
        PIN["load"], PIN["server"] = ["taskset", "-c", "0"], ["taskset", "-c", "1"]
    parts = a.only.split(",")
    off = offline(a.runs) if "offline" in parts else None
    lives = []
    if "live" in parts:
        if os.geteuid() != 0:
            log("live: needs root (libpcap and tcpdump on lo); skipped")
        else:
            lives = [live(a.rate, a.seconds, True, True, 2, a.live_runs), live(a.rate, a.seconds, False, True, 2, a.live_runs),
                     live(a.rate, a.seconds, True, False, 1, a.live_runs)]
    prox = proxy(a.seconds, a.latency_rounds, a.latency_seconds) if "proxy" in parts else None
    report(a, off, lives, prox)
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
