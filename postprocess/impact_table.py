#!/usr/bin/env python3
"""Peak and impulse of every pressure column, and the range of every level, of one or more
runs' gauges.csv over a time window: the convergence table of an impact (README, Validation).

    python3 postprocess/impact_table.py RUN_DIR|gauges.csv [...] [--t0 0.35] [--t1 1.0]
        [--label NAME ...] [--noise 0.44 0.50]

A pressure column is one whose unit line says Pa (wall sensors `S1`, probes `P1.pressure`);
a level one whose unit is m and whose name has no dot (height gauges). For each run and column:
peak = the largest value in [t0, t1] (Pa), impulse = the trapezoidal integral of p over
[t0, t1] (Pa·s); for levels, the lowest and highest value in the window (m). Prints one
Markdown table, a row per column, a column pair per run. Plain Python (no numpy needed).

With --noise A B a second table gives, per pressure column, the rise (s from the first sample
at or above 10 % of the peak to the peak, both in [t0, t1]) and the noise over [A, B]: the RMS
deviation of the samples from their own centred running mean over 5 ms, as a percentage of the
mean over [A, B] (issue 38's figure; the experiment's own record: 0.2-1.4 %).
"""

import argparse
import os
import sys


def read_gauges(path):
    """Units by column, the header's column names and the rows (floats; None when empty)."""
    if os.path.isdir(path):
        path = os.path.join(path, "gauges.csv")
    units, header, rows = {}, None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                name, sep, unit = line[1:].partition(":")
                if sep:
                    units[name.strip()] = unit.strip()
                continue
            cells = line.split(",")
            if header is None:
                header = cells
                continue
            rows.append([float(c) if c.strip() else None for c in cells])
    if header is None:
        sys.exit(f"impact_table.py: {path}: no header line")
    return units, header, rows


def summarise(units, header, rows, t0, t1):
    """{column: (kind, a, b)}: ('pressure', peak, impulse) or ('level', low, high)."""
    out = {}
    window = [r for r in rows if r[0] is not None and t0 <= r[0] <= t1]
    for k, name in enumerate(header[1:], start=1):
        unit = units.get(name, "")
        samples = [(r[0], r[k]) for r in window if k < len(r) and r[k] is not None]
        if not samples:
            continue
        if unit == "Pa":
            impulse = sum(0.5 * (a[1] + b[1]) * (b[0] - a[0]) for a, b in zip(samples, samples[1:]))
            out[name] = ("pressure", max(v for _, v in samples), impulse)
        elif unit == "m" and "." not in name:
            out[name] = ("level", min(v for _, v in samples), max(v for _, v in samples))
    return out


def rise_time(samples):
    """s from the first sample >= 10 % of the peak to the peak's sample; None if no peak > 0."""
    if not samples:
        return None
    t_peak, peak = max(samples, key=lambda s: s[1])
    if peak <= 0:
        return None
    t_start = next(t for t, v in samples if v >= 0.1 * peak)
    return t_peak - t_start


def noise_percent(samples, a, b, window=0.005):
    """RMS of p − (its centred running mean over `window` s) over [a, b], as % of the mean of p
    over [a, b]; the running mean takes every sample within window/2 (the record's own rate)."""
    inside = [(t, v) for t, v in samples if a <= t <= b]
    if len(inside) < 3:
        return None
    mean = sum(v for _, v in inside) / len(inside)
    if mean == 0:
        return None
    half = 0.5 * window
    squares = 0.0
    for t, v in inside:
        near = [w for s, w in samples if abs(s - t) <= half + 1e-12]
        squares += (v - sum(near) / len(near)) ** 2
    return 100.0 * (squares / len(inside)) ** 0.5 / abs(mean)


def impact_figures(units, header, rows, t0, t1, a, b):
    """{pressure column: (rise s or None, noise % or None)}."""
    out = {}
    for k, name in enumerate(header[1:], start=1):
        if units.get(name, "") != "Pa":
            continue
        samples = [(r[0], r[k]) for r in rows if r[0] is not None and k < len(r) and
                   r[k] is not None]
        window = [(t, v) for t, v in samples if t0 <= t <= t1]
        out[name] = (rise_time(window), noise_percent(samples, a, b))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", help="run folders or gauges.csv files")
    p.add_argument("--t0", type=float, default=0.35, help="window start, s (default 0.35)")
    p.add_argument("--t1", type=float, default=1.0, help="window end, s (default 1.0)")
    p.add_argument("--label", nargs="*", help="a name per run for the table's head")
    p.add_argument("--noise", nargs=2, type=float, metavar=("A", "B"),
                   help="also the rise and the noise over [A, B] s of every pressure column")
    a = p.parse_args()
    labels = a.label or [os.path.basename(os.path.normpath(r)) for r in a.runs]
    if len(labels) != len(a.runs):
        sys.exit("impact_table.py: give one --label per run")
    tables = [summarise(*read_gauges(r), a.t0, a.t1) for r in a.runs]
    columns = []
    for t in tables:
        columns += [c for c in t if c not in columns]
    head = "| gauge |" + "".join(f" {l} |" for l in labels)
    print(f"Window {a.t0}–{a.t1} s: pressures as peak (kPa) / impulse (Pa·s); levels as "
          "lowest–highest (m).\n")
    print(head)
    print("|---|" + "---|" * len(labels))
    for c in columns:
        cells = []
        for t in tables:
            if c not in t:
                cells.append(" – |")
            elif t[c][0] == "pressure":
                cells.append(f" {t[c][1] / 1000:.2f} / {t[c][2]:.1f} |")
            else:
                cells.append(f" {t[c][1]:.3f}–{t[c][2]:.3f} |")
        print(f"| {c} |" + "".join(cells))
    if not a.noise:
        return
    figures = [impact_figures(*read_gauges(r), a.t0, a.t1, *a.noise) for r in a.runs]
    print(f"\nRise (ms, 10 % of the peak to the peak) / noise over {a.noise[0]}–{a.noise[1]} s "
          "(RMS about the 5 ms running mean, % of the mean).\n")
    print(head)
    print("|---|" + "---|" * len(labels))
    for c in columns:
        if not any(c in f for f in figures):
            continue
        cells = []
        for f in figures:
            rise, noise = f.get(c, (None, None))
            r = "–" if rise is None else f"{rise * 1000:.1f}"
            n = "–" if noise is None else f"{noise:.0f} %"
            cells.append(f" {r} / {n} |")
        print(f"| {c} |" + "".join(cells))


if __name__ == "__main__":
    main()
