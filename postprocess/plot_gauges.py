#!/usr/bin/env python3
"""Plots a run's gauges and forces over time, one panel per gauge or body, optionally against an
experiment.

    python3 postprocess/plot_gauges.py RUN_DIR [--exp CSV] [--map GAUGE=COLUMN ...]
                                       [--out DIR] [--t-range T0 T1] [--robust SECONDS]
                                       [--csv FILE ...]

RUN_DIR is a sluice output folder holding gauges.csv (written by `sluice run` for a case with
<gauges>), forces.csv (written for a case with named objects: the fluid's force and moment on
each), bodies.csv (written for a case with floating bodies: their motion), or several; each is
read with its own time column. Columns are grouped by kind into one
PNG each, a panel per gauge, or per body and component (small multiples over a shared time
axis), each titled by the case (summary.json's name, else the folder's):
  heights.png    level gauges (m), and other columns in m
  fronts.png     front gauges (m): told from the levels by the run's case (the file summary.json
                 names, or --case), without which they are drawn with the levels
  pressures.png  wall pressure sensors (plain names such as P1, unit Pa) and probe pressures
                 (NAME.pressure)
  velocities.png probe velocities (NAME.velocity_x/_y/_z: one panel per probe)
  densities.png  probe densities (NAME.density)
  fractions.png  probe fluid fractions (NAME.fraction: 1 in the water, 0 away from it)
  forces.png     forces on bodies (NAME.Fx/.Fy/.Fz: a panel per component, whose scales differ;
                 N in 3D, N/m in 2D)
  moments.png    moments on bodies (NAME.Mx/.My/.Mz: a panel per component; N*m, or N*m/m in 2D)
bodies.csv's columns go to PNGs of their own, a panel per body:
  bodies_position.png          the centre of mass's displacement from its first row (NAME.x/.y/.z,
                               m: surge, sway, heave; so a motion of centimetres shows at a
                               position of metres, and compares with an experiment's motions)
  bodies_rotation.png          roll, pitch, yaw (NAME.roll/.pitch/.yaw, degrees; not the quaternion)
  bodies_velocity.png          NAME.vx/.vy/.vz (m/s)
  bodies_angular_velocity.png  NAME.wx/.wy/.wz (rad/s)
  bodies_forces.png, bodies_moments.png   the fluid's force and moment on each body, a panel
                               per component
  bodies_springs_contacts.png  NAME.spring_F* and NAME.contact_F*
and, in general, one PNG per unit for whatever else is there.
--csv FILE (repeatable): draw FILE instead of RUN_DIR's series: any CSV in gauges.csv's format,
such as `sluice measure`'s NAME.csv (its points, lines and levels, measured after the run).

--exp CSV (or --experiment CSV): an experiment with a `t` column (s) and columns named like the
gauges (e.g. H2, P1, P1.pressure, box.Fx; '#' comment lines allowed). --map GAUGE=COLUMN pairs
a gauge with an experiment column of another name (repeatable, e.g. --map P1.pressure=sensor1).
Each matched gauge's panel shows the measurement (a line where it has more than 200 samples in
the shown time range, else markers), and the gauge is compared on the experiment's times (the
simulation interpolated linearly, only where it has values). Metrics per gauge, printed and
written to DIR/gauge_errors.csv:
  mae          mean absolute error (gauge units)
  nmae         mae divided by the measurement's range (max - min)
  peak_sim, t_peak_sim, peak_exp, t_peak_exp   the largest value and its time in each

--t-range T0 T1: draw (and compare) only T0 <= t <= T1 (default: the run's times).

The y-range of a panel is robust: the simulation's curves count after a running median over
--robust SECONDS (default 0.005 s, and at least MIN_WINDOW samples), so a spike, or a burst of
acoustic oscillation, shorter than about half of that does not set the range, while a peak
that lasts longer does; only full windows count, so the readings within half a window of a
gap (a probe's first readings as water reaches it) or of the series' ends do not set it. A
measurement counts whole, its peak being real. The range gets a 10 % margin. What lies beyond
it is clipped and marked: a red triangle at the panel's edge where each clipped excursion
peaks, the panel's largest clipped value above and below written beside its mark, and the
largest LABELLED_CLIPS of a PNG printed. --robust 0 draws every value in range.

A legend shared by every panel of a PNG is drawn once, at its top.

Empty cells (a gauge without a reading, e.g. a probe in air) are gaps in the curves.
Needs numpy and matplotlib (Debian: python3-numpy python3-matplotlib).
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import sluice_case  # noqa: E402

MARGIN = 0.10  # of the robust span, above and below
MIN_WINDOW = 5  # samples of the running median, at the least
LABELLED_CLIPS = 3  # clipped excursions printed per PNG, the largest
SERIES_FILES = ("gauges.csv", "forces.csv", "bodies.csv")  # in RUN_DIR, each with its own t
BODY_FILE = "bodies.csv"
QUATERNION_SUFFIXES = (".qw", ".qx", ".qy", ".qz")
FORCE_UNITS = ("N", "N/m")  # forces.csv: 3D, and 2D (per unit width)
MOMENT_UNITS = ("N*m", "N*m/m")
FORCE_SUFFIXES = (".Fx", ".Fy", ".Fz")
MOMENT_SUFFIXES = (".Mx", ".My", ".Mz")


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


def group_of(name, unit, kinds=None):
    """(file stem, y label) of a gauge or force column; `kinds` ({gauge: kind}, from the case)
    tells a front from a level."""
    if kinds and kinds.get(name) == "front":
        return "fronts", "front position (m)"
    if kinds and kinds.get(name) == "height":
        return "heights", "water level (m)"
    if name.endswith(FORCE_SUFFIXES) and unit in FORCE_UNITS:
        return "forces", f"force ({unit})"
    if name.endswith(MOMENT_SUFFIXES) and unit in MOMENT_UNITS:
        return "moments", f"moment ({unit})"
    if name.endswith(".pressure") or ("." not in name and unit == "Pa"):
        return "pressures", "pressure (Pa)"
    if ".velocity_" in name:
        return "velocities", "velocity (m/s)"
    if name.endswith(".density"):
        return "densities", "density (kg/m3)"
    if name.endswith(".fraction"):
        return "fractions", "fluid fraction"
    if unit == "m":
        return "heights", "height / position (m)"
    return f"unit_{unit.replace('/', '_per_')}", unit


def body_group_of(name, unit):
    """(file stem, y label) of a bodies.csv column; None for the quaternion (the angles show
    the same turn)."""
    field = name.rsplit(".", 1)[-1]
    if name.endswith(QUATERNION_SUFFIXES):
        return None
    if field.startswith(("spring_", "contact_")):
        return "bodies_springs_contacts", f"spring and contact force ({unit})"
    if name.endswith(FORCE_SUFFIXES):
        return "bodies_forces", f"fluid's force ({unit})"
    if name.endswith(MOMENT_SUFFIXES):
        return "bodies_moments", f"fluid's moment ({unit})"
    if field in ("x", "y", "z"):
        return "bodies_position", "displacement of the centre of mass (m)"
    if field in ("roll", "pitch", "yaw"):
        return "bodies_rotation", "angle (deg)"
    if field in ("vx", "vy", "vz"):
        return "bodies_velocity", "velocity (m/s)"
    if field in ("wx", "wy", "wz"):
        return "bodies_angular_velocity", "angular velocity (rad/s)"
    return f"bodies_unit_{unit.replace('/', '_per_')}", unit


def panel_of(name):
    """The panel of a column: a probe's velocity components share one; each force or moment
    component has its own (Fx and Fz differ by the weight)."""
    if ".velocity_" in name:
        return name.split(".velocity_")[0]
    return name


def displace_bodies(sim):
    """bodies.csv's centre coordinates (NAME.x/.y/.z) as displacements from their first finite
    value, in place."""
    for name, values in sim.items():
        if name != "t" and name.rsplit(".", 1)[-1] in ("x", "y", "z"):
            finite = values[np.isfinite(values)]
            if finite.size:
                sim[name] = values - finite[0]


def body_of(name):
    """The panel of a bodies.csv column: its body's, a force or moment component its own."""
    if name.endswith(FORCE_SUFFIXES + MOMENT_SUFFIXES):
        return name
    return name.rsplit(".", 1)[0]


def window_samples(t, seconds):
    """Samples of a running median over `seconds` of the series' times (at least MIN_WINDOW);
    1 (no median) for seconds <= 0."""
    if seconds <= 0:
        return 1
    dt = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    return max(MIN_WINDOW, int(round(seconds / dt)) if dt > 0 else MIN_WINDOW)


def running_median(y, n):
    """Median over a centred window of n samples; NaN where the window is not full (within n/2
    samples of a gap or of the ends)."""
    if n <= 1 or y.size == 0:
        return y
    half = n // 2
    padded = np.concatenate([np.full(half, np.nan), y, np.full(n - 1 - half, np.nan)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, n)
    out = np.full(y.shape, np.nan)
    ok = np.isfinite(windows).all(axis=1)
    out[ok] = np.median(windows[ok], axis=1)
    return out


def robust_limits(sim_curves, exp_curves, n):
    """(lo, hi): the measurements whole and the simulation after a running median of n
    samples, with a MARGIN; None without finite values."""
    parts = [running_median(y, n) for y in sim_curves] + list(exp_curves)
    values = np.concatenate([p[np.isfinite(p)] for p in parts]) if parts else np.array([])
    if values.size == 0:
        return None
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    return lo - MARGIN * span, hi + MARGIN * span


def clipped_excursions(t, y, lo, hi):
    """[(t, value, above)] at the extreme of each run of samples outside [lo, hi]."""
    found = []
    for above, outside in ((True, y > hi), (False, y < lo)):
        outside = np.where(np.isfinite(y), outside, False)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], outside.astype(int), [0]])))
        for start, stop in zip(edges[::2], edges[1::2]):
            seg = y[start:stop]
            k = start + int(np.argmax(seg) if above else np.argmin(seg))
            found.append((float(t[k]), float(y[k]), above))
    return found


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


def draw_panel(ax, sim, exp, columns, mapping, robust, label):
    """One gauge's curves (and its measurements) with a robust y-range; returns the clipped
    excursions [(t, value, above)]."""
    sim_curves, exp_curves = [], []
    robust = window_samples(sim["t"], robust)
    for name in columns:
        component = len(columns) > 1
        (line,) = ax.plot(sim["t"], sim[name], lw=1.1,
                          label=name.split(".")[-1] if component else "simulation")
        sim_curves.append(sim[name])
        column = mapping.get(name, name)
        if column in exp:
            many = np.isfinite(exp[column]).sum() > 200
            ax.plot(exp["t"], exp[column], color="black" if many else line.get_color(),
                    lw=0.8 if many else 0, ls="-" if many else "none",
                    marker=None if many else "o", ms=2.5, alpha=0.8,
                    label=f"experiment ({column})" if column != name else "experiment")
            shown = (exp["t"] >= sim["t"][0]) & (exp["t"] <= sim["t"][-1])
            exp_curves.append(exp[column][shown])
    clips = []
    limits = robust_limits(sim_curves, exp_curves, robust)
    if limits:
        lo, hi = limits
        ax.set_ylim(lo, hi)
        for y in sim_curves:
            clips += clipped_excursions(sim["t"], y, lo, hi)
        for tc, _, above in clips:
            ax.plot([tc], [hi if above else lo], ls="none", marker="^" if above else "v",
                    ms=7, color="red", clip_on=False, zorder=5)
        for side in (True, False):  # the largest clipped value above, and below, written
            extremes = [c for c in clips if c[2] == side]
            if extremes:
                tc, value, _ = max(extremes, key=lambda c: abs(c[1]))
                last = max(c[0] for c in extremes)  # written right of the last mark
                ax.annotate(f"{'max' if side else 'min'} {value:.4g} at {tc:.4g} s",
                            (last, hi if side else lo), color="red", fontsize=7,
                            xytext=(7, -9 if side else 3), textcoords="offset points",
                            annotation_clip=False,
                            bbox=dict(fc="white", ec="none", alpha=0.8, pad=0.5))
    ax.set_ylabel(label, fontsize=8)
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=7)
    return clips


def plot_group(path, title, label, panels, sim, exp, mapping, robust):
    """A PNG of small multiples, one panel per gauge, sharing the time axis; returns the
    clipped excursions [(gauge, t, value)]."""
    n = len(panels)
    ncols = 1 if n <= 4 else 2
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, sharex=True, squeeze=False,
                             figsize=(9 if ncols == 1 else 13, 1.2 + 2.0 * nrows))
    clipped = []
    legends = []
    for k, (gauge, columns) in enumerate(panels):
        ax = axes[k // ncols][k % ncols]  # row by row
        clips = draw_panel(ax, sim, exp, columns, mapping, robust, label)
        clipped += [(gauge, tc, value) for tc, value, _ in clips]
        ax.set_title(gauge, fontsize=9, loc="left")
        legends.append(ax.get_legend_handles_labels())
    shared = all(labels == legends[0][1] for _, labels in legends)
    if shared and n > 1:  # one legend for the figure
        fig.legend(*legends[0], fontsize=7, loc="upper right", ncol=len(legends[0][1]))
    else:
        for k in range(n):
            axes[k // ncols][k % ncols].legend(fontsize=7, loc="upper right")
    for k in range(n, nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
        above = axes[k // ncols - 1][k % ncols]  # now the lowest panel of its column
        above.xaxis.set_tick_params(labelbottom=True)
        above.set_xlabel("t (s)")
    for ax in axes[-1]:
        ax.set_xlabel("t (s)")
    axes[0][0].set_xlim(sim["t"][0], sim["t"][-1])
    note = f" ({len(clipped)} clipped excursions marked \u25b2\u25bc)" if clipped else ""
    fig.suptitle(title + note, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return clipped


def parse(argv):
    parser = argparse.ArgumentParser(
        description="Plot gauges.csv and forces.csv of a sluice run, a panel per gauge or "
        "body (optionally against an experiment).",
        epilog="Writes one PNG per gauge group into --out (default RUN_DIR/plots).")
    parser.add_argument("run_dir",
                        help="sluice output folder holding gauges.csv and/or forces.csv")
    parser.add_argument("--exp", "--experiment", dest="exp",
                        help="experiment CSV: a t column and columns named as gauges")
    parser.add_argument("--map", action="append", default=[], metavar="GAUGE=COLUMN",
                        help="compare GAUGE with the experiment's COLUMN (repeatable)")
    parser.add_argument("--out", help="folder for the PNGs and gauge_errors.csv")
    parser.add_argument("--t-range", nargs=2, type=float, metavar=("T0", "T1"),
                        help="draw and compare only T0 <= t <= T1 (s)")
    parser.add_argument("--case", metavar="CASE.xml",
                        help="the run's case file, to tell fronts from levels (default: the one "
                        "RUN_DIR/summary.json names, where it is found)")
    parser.add_argument("--robust", type=float, default=0.005, metavar="SECONDS",
                        help="running-median window for the y-range (default 0.005 s, at least "
                        f"{MIN_WINDOW} samples); 0: every value in range")
    parser.add_argument("--csv", action="append", metavar="FILE",
                        help="draw this CSV in gauges.csv's format (e.g. `sluice measure`'s "
                        "NAME.csv) instead of RUN_DIR's series (repeatable)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    for path in args.csv or []:
        if not os.path.isfile(path):
            print(f"plot_gauges: --csv {path}: no such file", file=sys.stderr)
            return 2
    paths = args.csv or [os.path.join(args.run_dir, name) for name in SERIES_FILES]
    paths = [path for path in paths if os.path.exists(path)]
    if not paths:
        print(f"plot_gauges: {os.path.join(args.run_dir, 'gauges.csv')} not found, nor "
              "forces.csv or bodies.csv (run a case with <gauges>, named objects or floating "
              "bodies)", file=sys.stderr)
        return 2
    mapping = {}
    for item in args.map:
        gauge, sep, column = item.partition("=")
        if not sep or not gauge or not column:
            print(f"plot_gauges: --map expects GAUGE=COLUMN, got {item!r}", file=sys.stderr)
            return 2
        mapping[gauge] = column
    try:
        runs = [read_series(path) for path in paths]  # [(columns, units)], a time axis each
        for path, (sim, _) in zip(paths, runs):
            if os.path.basename(path) == BODY_FILE:
                displace_bodies(sim)
        exp = read_series(args.exp)[0] if args.exp else {}
    except (OSError, ValueError) as e:
        print(f"plot_gauges: {e}", file=sys.stderr)
        return 2
    for gauge, column in mapping.items():
        missing = (f"no gauge {gauge}" if not any(gauge in sim for sim, _ in runs) else
                   f"no experiment column {column}" if column not in exp else None)
        if missing:
            print(f"plot_gauges: --map {gauge}={column}: {missing}", file=sys.stderr)
            return 2
    if args.t_range:
        t0, t1 = args.t_range
        for k, (sim, units) in enumerate(runs):
            keep = (sim["t"] >= t0) & (sim["t"] <= t1)
            if keep.sum() < 2:
                where = f" of {os.path.basename(paths[k])}" if len(runs) > 1 else ""
                print(f"plot_gauges: fewer than 2 rows{where} in --t-range {t0:g} {t1:g}",
                      file=sys.stderr)
                return 2
            runs[k] = ({name: v[keep] for name, v in sim.items()}, units)
        if exp:
            keep = (exp["t"] >= t0) & (exp["t"] <= t1)
            exp = {k: v[keep] for k, v in exp.items()}
    out = args.out or os.path.join(args.run_dir, "plots")
    os.makedirs(out, exist_ok=True)

    kinds = {}
    case = args.case or sluice_case.run_case_file(args.run_dir)
    if args.case and not os.path.isfile(args.case):
        print(f"plot_gauges: --case {args.case}: no such file", file=sys.stderr)
        return 2
    if case:
        try:
            kinds = sluice_case.gauge_kinds(case)
        except sluice_case.CaseReadError as e:
            print(f"plot_gauges: {e}", file=sys.stderr)
            return 2

    groups = {}  # (file stem, y label): (the columns' series, {panel: [column]})
    for path, (sim, units) in zip(paths, runs):
        bodies = os.path.basename(path) == BODY_FILE
        for name in sim:
            if name == "t":
                continue
            if bodies:
                key = body_group_of(name, units.get(name, ""))
                if key is None:
                    continue
                panel = body_of(name)
            else:
                key = group_of(name, units.get(name, ""), kinds)
                panel = panel_of(name)
            if key in groups and groups[key][0] is not sim:  # the same kind in another file
                key = (os.path.splitext(os.path.basename(path))[0] + "_" + key[0], key[1])
            panels = groups.setdefault(key, (sim, {}))[1]
            panels.setdefault(panel, []).append(name)

    run_name = (sluice_case.run_case_name(args.run_dir)
                or os.path.basename(os.path.normpath(args.run_dir)))
    for (group, label), (sim, panels) in sorted(groups.items()):
        png = os.path.join(out, f"{group}.png")
        clipped = plot_group(png, f"{run_name}: {group}", label, list(panels.items()), sim,
                             exp, mapping, args.robust)
        print(f"plot_gauges: wrote {png}")
        if clipped:
            worst = sorted(clipped, key=lambda c: -abs(c[2]))[:LABELLED_CLIPS]
            print(f"plot_gauges: {group}.png: {len(clipped)} clipped (" +
                  ", ".join(f"{g}: {v:.6g} at t = {tc:.6g} s" for g, tc, v in worst) + ")")

    if args.exp:
        results = []
        for sim, _ in runs:
            for name in sim:
                column = mapping.get(name, name)
                if name != "t" and column in exp:
                    m = metrics(sim["t"], sim[name], exp["t"], exp[column])
                    if m:
                        results.append((name, m))
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
