#!/usr/bin/env python3
"""Whether one run's gauges agree with several reference runs of the same case within the
references' own run-to-run spread, over a time window (issue 39: a case on two GPUs against
three runs on one GPU with different neighbour modules, whose sums differ in order only).

    python3 postprocess/compare_runs.py --reference A [B ...] --candidate C [--t0 0.35] [--t1 1.0]
        [--pressure-floor 0.01] [--level-floor 0.0]

A, B, C: gauges.csv files or run folders. For every pressure column (unit Pa) and level column
(unit m, no dot in its name) over [t0, t1]: the peak (largest value), the mean, and the RMS
difference between runs (sample by sample: rows matched by their sample number). The spread of a figure is the
largest distance of one reference's value from the mean of the others'; the candidate agrees on
it when it lies within twice that of the references' mean (the spread of three runs estimates
that of one roughly: twice it leaves room for the estimate's own error), and its RMS difference
from the references' mean trace is at most 1.5 times the largest between two references (one
trace against the mean of three is closer than two single traces are to each other). Runs that
differ by rounding alone can agree more closely than a reading resolves: each tolerance is at
least a floor, --pressure-floor (a fraction of the references' mean figure; default 1 %) for
pressures and --level-floor (m; default 0) for levels (a height gauge interpolates the fluid
fraction between samples dp/4 apart: dp/20 is a fair floor). Prints a Markdown table
and a verdict line; exits 1 when some figure does not agree. Plain Python (no numpy needed).
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from impact_table import read_gauges  # noqa: E402


def traces(path, t0, t1):
    """{column: {sample: value}} of the pressure and level columns over [t0, t1], each row keyed
    by its sample number (t over the rows' median spacing, rounded): two runs sample at the
    first step at or after each sample time, so their times differ by less than a step."""
    units, header, rows = read_gauges(path)
    times = [r[0] for r in rows if r[0] is not None]
    gaps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
    interval = gaps[len(gaps) // 2] if gaps else 1.0
    out = {}
    for k, name in enumerate(header[1:], start=1):
        unit = units.get(name, "")
        if unit != "Pa" and not (unit == "m" and "." not in name):
            continue
        out[name] = {round(r[0] / interval): r[k] for r in rows
                     if r[0] is not None and t0 <= r[0] <= t1 and k < len(r) and r[k] is not None}
    return out, units


def rms_difference(a, b):
    common = sorted(set(a) & set(b))
    if not common:
        return math.nan
    return math.sqrt(sum((a[t] - b[t]) ** 2 for t in common) / len(common))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reference", nargs="+", required=True)
    p.add_argument("--candidate", required=True)
    p.add_argument("--t0", type=float, default=0.35)
    p.add_argument("--t1", type=float, default=1.0)
    p.add_argument("--pressure-floor", type=float, default=0.01)
    p.add_argument("--level-floor", type=float, default=0.0)
    a = p.parse_args()
    if len(a.reference) < 2:
        sys.exit("compare_runs.py: give at least two reference runs (their spread is the tolerance)")
    refs = [traces(r, a.t0, a.t1)[0] for r in a.reference]
    cand, units = traces(a.candidate, a.t0, a.t1)
    print(f"Candidate {a.candidate} against {len(refs)} reference runs over "
          f"[{a.t0}, {a.t1}] s (peak, mean: within twice the spread of one reference run of "
          f"their mean; RMS: at most 1.5 x the largest between two references; floors: "
          f"{100 * a.pressure_floor:g} % for pressures, {a.level_floor:g} m for levels)\n")
    print("| column | unit | peak: references | peak: candidate | mean: references | "
          "mean: candidate | RMS between references (largest) | RMS candidate to their mean | "
          "agrees |")
    print("|---|---|---|---:|---|---:|---:|---:|---|")
    failures = compared = 0
    for name in sorted(cand, key=lambda n: (units.get(n) != "Pa", n)):
        if any(name not in r or not r[name] for r in refs) or not cand[name]:
            continue
        figures = []
        verdict = True
        for stat in (max, lambda v: sum(v) / len(v)):
            values = [stat(list(r[name].values())) for r in refs]
            mean = sum(values) / len(values)
            # each reference's distance from the mean of the others: the spread of one run
            spread = max(abs(v - (sum(values) - v) / (len(values) - 1)) for v in values)
            c = stat(list(cand[name].values()))
            floor = (a.pressure_floor * abs(mean) if units.get(name) == "Pa" else a.level_floor)
            ok = abs(c - mean) <= max(2.0 * spread, floor)
            verdict = verdict and ok
            figures.append((min(values), max(values), c))
        pairwise = max(rms_difference(x[name], y[name])
                       for i, x in enumerate(refs) for y in refs[i + 1:])
        times = set.intersection(*(set(r[name]) for r in refs))
        mean_trace = {t: sum(r[name][t] for r in refs) / len(refs) for t in times}
        to_mean = rms_difference(cand[name], mean_trace)
        floor = (a.pressure_floor * max(abs(v) for r in refs for v in r[name].values())
                 if units.get(name) == "Pa" else a.level_floor)
        rms_ok = to_mean <= max(1.5 * pairwise, floor)
        verdict = verdict and rms_ok
        failures += 0 if verdict else 1
        compared += 1
        unit = units.get(name, "")
        fmt = (lambda v: f"{v:.0f}") if unit == "Pa" else (lambda v: f"{v:.4f}")
        (plo, phi, pc), (mlo, mhi, mc) = figures
        print(f"| {name} | {unit} | {fmt(plo)} – {fmt(phi)} | {fmt(pc)} | {fmt(mlo)} – {fmt(mhi)} "
              f"| {fmt(mc)} | {fmt(pairwise)} | {fmt(to_mean)} | {'yes' if verdict else 'NO'} |")
    if compared == 0:
        print("\nno pressure or level column in common: nothing compared")
        return 1
    print(f"\n{'every figure agrees' if failures == 0 else f'{failures} column(s) do not agree'} "
          f"within the references' run-to-run spread ({compared} columns)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
