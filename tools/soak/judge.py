#!/usr/bin/env python3
"""Judges a soak's samples (tools/soak/run.sh): draws them and fails on an upward trend.

    judge.py SAMPLES.csv --svg OUT.svg [--warmup 0.2]

For each process and each of rss_kb, fds, threads and cpu_percent, after the warm-up
(the first 20% of the run): a least-squares line through the samples gives the rise over
the run (slope times duration); the noise is the spread of the samples around that line
(1.4826 times the median absolute residual, a robust standard deviation). An upward
trend is a rise of more than 6 times the noise and more than a floor (RSS 4 MB or 5%,
whichever is more, 2 fds, 2 threads, 10 points of CPU), with the median of the last third
above the median of the first third by more than the floor too (a single step is not a
trend unless it is large). Prints one line per process and metric; exit 1 when any
trends upward, 2 when there are too few samples to judge (fewer than 9 after warm-up).
"""
import argparse, csv, statistics, sys

METRICS = [("rss_kb", "RSS (MB)", lambda v: v / 1024, lambda base: max(4096, 0.05 * base)),
           ("fds", "open fds", lambda v: v, lambda base: 2),
           ("threads", "threads", lambda v: v, lambda base: 2),
           ("cpu_percent", "CPU (% of a core)", lambda v: v, lambda base: 10)]
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]

def load(path):
    series = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            s = series.setdefault(row["name"], [])
            s.append(row)
    return series

def values(rows, key):
    return [(float(r["t"]), float(r[key])) for r in rows if r[key] != ""]

def judge(series, warmup):
    verdicts, bad, thin = [], False, False
    for name, rows in series.items():
        for key, label, _, floor in METRICS:
            pts = values(rows, key)
            if not pts:
                continue
            t_end = pts[-1][0]
            pts = [p for p in pts if p[0] >= warmup * t_end]
            if len(pts) < 9:
                thin = True
                verdicts.append(f"{name} {key}: too few samples after warm-up ({len(pts)})")
                continue
            t = [p[0] for p in pts]
            v = [p[1] for p in pts]
            third = len(v) // 3
            first, last = statistics.median(v[:third]), statistics.median(v[-third:])
            tm, vm = statistics.fmean(t), statistics.fmean(v)
            sxx = sum((x - tm) ** 2 for x in t) or 1.0
            slope = sum((x - tm) * (y - vm) for x, y in zip(t, v)) / sxx
            residuals = [y - (vm + slope * (x - tm)) for x, y in zip(t, v)]
            noise = 1.4826 * statistics.median([abs(r) for r in residuals])
            rise = slope * (t[-1] - t[0])
            allowed = max(6 * noise, floor(first))
            up = rise > allowed and last - first > floor(first)
            bad |= up
            per_min = slope * 60
            verdicts.append(f"{name} {key}: {first:.1f} -> {last:.1f} (medians of the first and last third), trend {per_min:+.2f}/min = {rise:+.1f} over {t[-1] - t[0]:.0f} s, noise {noise:.1f}, allowed {allowed:.1f}: {'UPWARD TREND' if up else 'flat'}")
    return verdicts, bad, thin

def svg(series, path):
    w, h, pad = 900, 180, 50
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h * len(METRICS) + 30}" font-family="sans-serif" font-size="11">',
             '<rect width="100%" height="100%" fill="white"/>']
    names = list(series)
    for i, name in enumerate(names):
        parts.append(f'<text x="{pad + 150 * i}" y="18" fill="{COLORS[i % len(COLORS)]}">&#9632; {name}</text>')
    t_max = max((float(r["t"]) for rows in series.values() for r in rows), default=1) or 1
    for m, (key, label, scale, _) in enumerate(METRICS):
        top = 30 + m * h
        all_v = [scale(v) for rows in series.values() for _, v in values(rows, key)]
        if not all_v:
            continue
        lo, hi = 0, max(all_v) * 1.1 or 1
        parts.append(f'<text x="{pad}" y="{top + 12}">{label}</text>')
        parts.append(f'<line x1="{pad}" y1="{top + h - 25}" x2="{w - 10}" y2="{top + h - 25}" stroke="#999"/>')
        parts.append(f'<line x1="{pad}" y1="{top + 18}" x2="{pad}" y2="{top + h - 25}" stroke="#999"/>')
        parts.append(f'<text x="{pad - 4}" y="{top + 22}" text-anchor="end">{hi:.0f}</text>')
        parts.append(f'<text x="{pad - 4}" y="{top + h - 25}" text-anchor="end">0</text>')
        parts.append(f'<text x="{w - 10}" y="{top + h - 10}" text-anchor="end">{t_max:.0f} s</text>')
        for i, name in enumerate(names):
            pts = values(series[name], key)
            xy = " ".join(f"{pad + (w - pad - 10) * t / t_max:.1f},{top + h - 25 - (h - 43) * (scale(v) - lo) / (hi - lo):.1f}" for t, v in pts)
            parts.append(f'<polyline fill="none" stroke="{COLORS[i % len(COLORS)]}" stroke-width="1.5" points="{xy}"/>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("samples")
    ap.add_argument("--svg", required=True)
    ap.add_argument("--warmup", type=float, default=0.2)
    a = ap.parse_args()
    series = load(a.samples)
    svg(series, a.svg)
    verdicts, bad, thin = judge(series, a.warmup)
    print("\n".join(verdicts))
    sys.exit(1 if bad else 2 if thin else 0)

if __name__ == "__main__":
    main()
