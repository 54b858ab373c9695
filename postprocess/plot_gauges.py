#!/usr/bin/env python3
"""Plots a run's gauges over time, optionally against an experiment, with error metrics.

    python3 postprocess/plot_gauges.py RUN_DIR [--exp CSV] [--out DIR]

RUN_DIR is a sluice output folder holding gauges.csv (written by `sluice run` for a case with
<gauges>). Gauges are grouped by kind and name into one PNG each:
  heights.png    columns in m named like H1, H2, ... (height and front gauges)
  pressures.png  columns NAME.pressure (Pa) and wall sensors, plain names in Pa (S1, ...)
  velocities.png columns NAME.velocity_x/_y/_z (m/s)
  densities.png  columns NAME.density (kg/m3)
and, in general, one PNG per unit for whatever else is there.

--exp CSV: an experiment with a `t` column (s) and columns named like the gauges (e.g. H2,
P1.pressure; '#' comment lines allowed). Each matching gauge is drawn with the measurement and
compared on the experiment's times (the simulation interpolated linearly, only where it has
values). Metrics per gauge, printed and written to DIR/gauge_errors.csv:
  mae          mean absolute error (gauge units)
  nmae         mae divided by the measurement's range (max - min)
  peak_sim, t_peak_sim, peak_exp, t_peak_exp   the largest value and its time in each

Empty cells (a gauge without a reading, e.g. a probe in air) are gaps in the curves.
Needs numpy and matplotlib (Debian: python3-numpy python3-matplotlib).
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read_series(path):
    """Columns of a '#'-commented CSV with a header row: ({name: array}, {name: unit})."""
    units = {}
    rows = []
    header = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                # sluice writes "# NAME: unit" lines for its columns.
                text = line[1:].strip()
                if ": " in text and " " not in text.split(": ", 1)[0]:
                    name, unit = text.split(": ", 1)
                    units[name] = unit
                continue
            cells = next(csv.reader([line]))
            if header is None:
                header = [c.strip() for c in cells]
                continue
            rows.append([float(c) if c.strip() else np.nan for c in cells])
    if header is None or not rows:
        raise ValueError(f"{path}: no header or no rows")
    if header[0] != "t":
        raise ValueError(f"{path}: the first column must be t (s), got {header[0]!r}")
    data = np.array(rows, dtype=float)
    return {name: data[:, k] for k, name in enumerate(header)}, units


def group_of(name, unit):
    if name.endswith(".pressure") or unit == "Pa":  # probes, and wall sensors (plain names)
        return "pressures", "pressure (Pa)"
    if ".velocity_" in name:
        return "velocities", "velocity (m/s)"
    if name.endswith(".density"):
        return "densities", "density (kg/m3)"
    if unit == "m":
        return "heights", "height / position (m)"
    return f"unit_{unit.replace('/', '_per_')}", unit


def metrics(t_sim, y_sim, t_exp, y_exp):
    """Errors on the experiment's times where both have values."""
    ok_sim = np.isfinite(y_sim)
    if ok_sim.sum() < 2:
        return None
    inside = (t_exp >= t_sim[ok_sim][0]) & (t_exp <= t_sim[ok_sim][-1]) & np.isfinite(y_exp)
    if not inside.any():
        return None
    y_at = np.interp(t_exp[inside], t_sim[ok_sim], y_sim[ok_sim])
    err = np.abs(y_at - y_exp[inside])
    span = np.nanmax(y_exp[inside]) - np.nanmin(y_exp[inside])
    k_sim = int(np.nanargmax(np.where(ok_sim, y_sim, -np.inf)))
    k_exp = int(np.nanargmax(np.where(inside, y_exp, -np.inf)))
    return {
        "mae": float(err.mean()),
        "nmae": float(err.mean() / span) if span > 0 else float("nan"),
        "peak_sim": float(y_sim[k_sim]),
        "t_peak_sim": float(t_sim[k_sim]),
        "peak_exp": float(y_exp[k_exp]),
        "t_peak_exp": float(t_exp[k_exp]),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Plot gauges.csv of a sluice run (optionally against an experiment).",
        epilog="Writes one PNG per gauge group into --out (default RUN_DIR/plots).",
    )
    parser.add_argument("run_dir", help="sluice output folder holding gauges.csv")
    parser.add_argument("--exp", help="experiment CSV: a t column and columns named as gauges")
    parser.add_argument("--out", help="folder for the PNGs and gauge_errors.csv")
    args = parser.parse_args(argv)

    path = os.path.join(args.run_dir, "gauges.csv")
    if not os.path.exists(path):
        print(f"plot_gauges: {path} not found (run a case with <gauges>)", file=sys.stderr)
        return 2
    try:
        sim, units = read_series(path)
        exp = read_series(args.exp)[0] if args.exp else {}
    except (OSError, ValueError) as e:
        print(f"plot_gauges: {e}", file=sys.stderr)
        return 2
    out = args.out or os.path.join(args.run_dir, "plots")
    os.makedirs(out, exist_ok=True)

    groups = {}
    for name in sim:
        if name != "t":
            groups.setdefault(group_of(name, units.get(name, "")), []).append(name)

    results = []
    for (group, label), names in sorted(groups.items()):
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for name in names:
            (line,) = ax.plot(sim["t"], sim[name], lw=1.2, label=name)
            if name in exp:
                ax.plot(exp["t"], exp[name], ls="none", marker="o", ms=2.5,
                        color=line.get_color(), label=f"{name} (experiment)")
                m = metrics(sim["t"], sim[name], exp["t"], exp[name])
                if m:
                    results.append((name, m))
        ax.set_xlabel("t (s)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        ax.set_title(f"{os.path.basename(os.path.normpath(args.run_dir))}: {group}")
        fig.tight_layout()
        png = os.path.join(out, f"{group}.png")
        fig.savefig(png, dpi=120)
        plt.close(fig)
        print(f"plot_gauges: wrote {png}")

    if args.exp:
        if not results:
            print("plot_gauges: no gauge of the run has a matching experiment column",
                  file=sys.stderr)
        table = os.path.join(out, "gauge_errors.csv")
        with open(table, "w", encoding="utf-8") as f:
            keys = ["mae", "nmae", "peak_sim", "t_peak_sim", "peak_exp", "t_peak_exp"]
            f.write("gauge," + ",".join(keys) + "\n")
            print(f"{'gauge':16s}" + "".join(f"{k:>12s}" for k in keys))
            for name, m in results:
                f.write(name + "," + ",".join(f"{m[k]:.6g}" for k in keys) + "\n")
                print(f"{name:16s}" + "".join(f"{m[k]:12.4g}" for k in keys))
        print(f"plot_gauges: wrote {table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
