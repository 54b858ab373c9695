#!/usr/bin/env python3
"""Wave heights, periods and reflection of a wave-flume run from its level gauges.

    python3 postprocess/wave_analysis.py RUN_DIR [--gauges G1 [G2 ...]] [--t-range T0 T1]
                                         [--period T] [--depth D] [--case CASE.xml]
                                         [--pair G_A G_B --spacing DX] [--json]

RUN_DIR is a sluice output folder holding gauges.csv; the gauges named are its level columns
(unit m: the free surface's z, absolute). What is not given is read from the run's case: the
file RUN_DIR/summary.json names (`case_file`, as the run was given it: found from the folder
the run was started in, or give --case): without --gauges every <height> gauge of the case;
without --period and --depth those of its <wavemaker> (a regular wave's `period`, irregular
waves' peak period `tp`; its `depth`), when it has exactly one. With several gauges, a gauge
without a complete wave in the window is skipped and named (`skipped` in the JSON); with none
analysed, that is an error. Each gauge's elevation eta is taken about its mean over
the window (--t-range, default the whole run); empty cells (no reading) are skipped.

Per gauge:
  zero-up-crossing analysis: a wave runs from one up-crossing of eta = 0 (the time interpolated
  linearly between the samples) to the next; its height H is the largest sample minus the
  smallest between them (crest to trough), its period the time between them. Only complete
  waves count (the part before the first and after the last up-crossing is dropped). An
  up-crossing opens a new wave only once eta has fallen below -DEAD_BAND times the window's
  range (max - min) since the last one, so that noise riding on a crossing does not split a
  wave. Reported: the number of waves, the mean H and the mean T, and their medians (a gauge's
  one outlying sample, a drop above the surface, can split a wave in two and move the means;
  the medians of a regular record keep the waves' value).
  with --period T: the first harmonic at omega = 2 pi / T, the least-squares fit of
  eta ~ c + a cos(omega t) + b sin(omega t) over the window (any length of at least one period,
  not necessarily a whole number of them): amplitude |A| and phase arg A of the complex
  amplitude A = a + i b, so that eta ~ c + Re(A exp(-i omega t)).

Reflection (--pair G_A G_B --spacing DX --depth D --period T), regular waves: Goda & Suzuki
(1976, "Estimation of incident and reflected waves in random wave experiments", Proc. 15th
Coastal Eng. Conf., 828-845) at the wave's frequency. G_B lies DX (m) from G_A in the direction
the incident waves travel (away from the wave maker). With x along the flume from G_A and
k the root of the linear dispersion relation omega^2 = g k tanh(k d) (g = 9.81 m/s^2, Newton's
method), the incident wave is Re(A_I exp(i(k x - omega t))) and the reflected one
Re(A_R exp(i(-k x - omega t))), so the gauges' complex amplitudes are

    A_1 = A_I + A_R,    A_2 = A_I exp(i k DX) + A_R exp(-i k DX)

and

    A_I = (A_2 - A_1 exp(-i k DX)) / (2 i sin(k DX)),
    A_R = (A_1 exp(+i k DX) - A_2) / (2 i sin(k DX)),

that is, with A_n = a_n + i b_n (Goda & Suzuki's expressions),

    a_I = sqrt((a_2 - a_1 cos kDX - b_1 sin kDX)^2 + (b_2 + a_1 sin kDX - b_1 cos kDX)^2)
          / (2 |sin kDX|),
    a_R = sqrt((a_2 - a_1 cos kDX + b_1 sin kDX)^2 + (b_2 - a_1 sin kDX - b_1 cos kDX)^2)
          / (2 |sin kDX|),

and the reflection coefficient Kr = a_R / a_I. The system is singular where sin(k DX) = 0, a
spacing of a whole number of half wavelengths (the two gauges then see the same combination
of the two waves); the tool refuses |sin(k DX)| < MIN_SIN (0.1) and asks for another spacing.
Goda & Suzuki recommend 0.05 < DX/L < 0.45 (L = 2 pi / k) for accurate results.

Prints a small table; --json prints one JSON object instead (for tests and scripts):
  {"run", "case" (the case file read, or null), "t_range": [t0, t1], "period",
   "gauges": {NAME: {"mean", "waves", "mean_height", "mean_period", "median_height",
   "median_period", ["amplitude", "phase"]}}, "skipped": {NAME: why},
   ["reflection": {"gauges", "spacing", "depth", "period", "wave_number", "wavelength", "sin_k_spacing", "incident", "reflected",
   "coefficient"}]}
Errors (a missing file or column, a window without a complete wave, a singular spacing) are
printed on stderr with exit status 2. Importable: zero_crossing, harmonic, wave_number,
goda_suzuki. Needs numpy (Debian: python3-numpy).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

import sluice_case

GRAVITY = 9.81  # m/s^2
DEAD_BAND = 0.01  # of the window's range: eta must fall below -DEAD_BAND*range between waves
MIN_SIN = 0.1  # |sin(k DX)| below this: the two-gauge system is (nearly) singular


class AnalysisError(ValueError):
    """A failure to report to the user (missing column, no waves, singular spacing)."""


def read_series(path):
    """Columns of a '#'-commented CSV with a header row: ({name: array}, {name: unit}); empty
    cells are NaN."""
    units, rows, header = {}, [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                name, sep, unit = line[1:].partition(":")
                if sep and " " not in name.strip():
                    units[name.strip()] = unit.strip()
                continue
            cells = [c.strip() for c in line.split(",")]
            if header is None:
                header = cells
                continue
            rows.append([float(c) if c else math.nan for c in cells])
    if header is None or not rows:
        raise AnalysisError(f"{path}: no header or no rows")
    if header[0] != "t":
        raise AnalysisError(f"{path}: the first column must be t (s), got {header[0]!r}")
    if any(len(r) != len(header) for r in rows):
        raise AnalysisError(f"{path}: a row's length differs from the header's")
    data = np.array(rows, dtype=float)
    return {name: data[:, k] for k, name in enumerate(header)}, units


def finite(t, eta):
    """The samples with a reading (t and eta finite)."""
    t, eta = np.asarray(t, dtype=float), np.asarray(eta, dtype=float)
    ok = np.isfinite(t) & np.isfinite(eta)
    return t[ok], eta[ok]


def zero_crossing(t, eta):
    """Zero-up-crossing statistics of eta about its mean: {"waves", "mean_height",
    "mean_period", "median_height", "median_period"} over the complete waves (module
    docstring); NaN samples are skipped.
    Raises AnalysisError without a complete wave."""
    t, eta = finite(t, eta)
    if t.size < 3:
        raise AnalysisError("fewer than 3 samples")
    eta = eta - eta.mean()
    band = DEAD_BAND * (eta.max() - eta.min())
    crossings = []  # (time, index of the first sample at or above zero)
    armed = True  # eta went below -band since the last counted up-crossing
    for i in range(eta.size - 1):
        if eta[i] < -band:
            armed = True
        if armed and eta[i] < 0.0 <= eta[i + 1]:
            crossings.append((t[i] - eta[i] * (t[i + 1] - t[i]) / (eta[i + 1] - eta[i]), i + 1))
            armed = False
    if len(crossings) < 2:
        raise AnalysisError("no complete wave in the window (fewer than 2 zero up-crossings)")
    heights, periods = [], []
    for (t0, i0), (t1, i1) in zip(crossings, crossings[1:]):
        wave = eta[i0:i1]
        heights.append(wave.max() - wave.min())
        periods.append(t1 - t0)
    return {"waves": len(heights), "mean_height": float(np.mean(heights)),
            "mean_period": float(np.mean(periods)), "median_height": float(np.median(heights)),
            "median_period": float(np.median(periods))}


def harmonic(t, eta, omega):
    """The least-squares complex amplitude A (eta ~ c + Re(A exp(-i omega t)) over the samples;
    NaN samples skipped). Raises AnalysisError where the samples span less than a period."""
    t, eta = finite(t, eta)
    if t.size < 3 or (t[-1] - t[0]) * omega < 2.0 * math.pi * (1.0 - 1e-9):
        raise AnalysisError("the window spans less than one period: no first harmonic")
    basis = np.column_stack([np.ones_like(t), np.cos(omega * t), np.sin(omega * t)])
    (_, a, b), *_ = np.linalg.lstsq(basis, eta, rcond=None)
    return complex(a, b)


def wave_number(omega, depth, gravity=GRAVITY):
    """k (rad/m), the root of omega^2 = g k tanh(k d), by Newton's method from Eckart's (1952)
    approximation, to within 1e-12 relative."""
    if not (omega > 0 and depth > 0 and gravity > 0 and
            all(math.isfinite(v) for v in (omega, depth, gravity))):
        raise AnalysisError("wave_number: omega, depth and gravity must be positive and finite")
    k0 = omega * omega / gravity  # deep water
    k = k0 / math.sqrt(math.tanh(k0 * depth))
    for _ in range(100):
        th = math.tanh(k * depth)
        f = gravity * k * th - omega * omega
        df = gravity * th + gravity * k * depth * (1.0 - th * th)
        step = f / df
        k -= step
        if abs(step) <= 1e-12 * k:
            return k
    raise AnalysisError("wave_number: Newton's method did not converge")


def goda_suzuki(a1, a2, k, spacing):
    """{"incident", "reflected", "coefficient", "sin_k_spacing"} from the complex first-harmonic
    amplitudes a1, a2 of gauges `spacing` (m) apart along the incident waves' direction (module
    docstring). Raises AnalysisError where |sin(k spacing)| < MIN_SIN."""
    s = math.sin(k * spacing)
    if abs(s) < MIN_SIN:
        raise AnalysisError(
            f"gauge spacing {spacing:g} m is {k * spacing / math.pi:.3f} half wavelengths "
            f"(L = {2 * math.pi / k:.4g} m): |sin(k dx)| = {abs(s):.3f} < {MIN_SIN}, the "
            "two-gauge system is singular; choose another spacing (0.05 < dx/L < 0.45)")
    phase = complex(math.cos(k * spacing), math.sin(k * spacing))  # exp(i k dx)
    incident = (a2 - a1 / phase) / (2j * s)
    reflected = (a1 * phase - a2) / (2j * s)
    return {"incident": abs(incident), "reflected": abs(reflected),
            "coefficient": abs(reflected) / abs(incident) if abs(incident) > 0 else math.nan,
            "sin_k_spacing": s}


def case_defaults(path):
    """{"gauges": [height gauge names], "period": T or None, "depth": d or None} of a sluice
    case file (cases/README.md: <height name x>, <wavemaker depth period|tp>); the wave maker's
    only when the case has exactly one."""
    try:
        root = sluice_case.case_root(path)
    except sluice_case.CaseReadError as e:
        raise AnalysisError(str(e)) from None
    out = {"gauges": [g.get("name") for g in root.iter("height") if g.get("name")],
           "period": None, "depth": None}
    makers = list(root.iter("wavemaker"))
    if len(makers) == 1:
        m = makers[0]
        period = m.get("tp") if m.get("waves") == "jonswap" else m.get("period")
        try:
            out["period"] = float(period) if period else None
            out["depth"] = float(m.get("depth")) if m.get("depth") else None
        except ValueError:
            raise AnalysisError(f"the case {path}: a <wavemaker> number does not parse") from None
    return out


def analyse(sim, names, t_range=None, period=None, depth=None, pair=None, spacing=None):
    """The JSON-ready result for gauges `names` (and `pair`) of the columns `sim`. Of several
    gauges, one without a complete wave is skipped (result["skipped"]: name -> why) unless it
    is one of the pair; none analysed is an AnalysisError."""
    t = sim["t"]
    if t_range:
        keep = (t >= t_range[0]) & (t <= t_range[1])
        sim = {k: v[keep] for k, v in sim.items()}
        t = sim["t"]
    if t.size < 3:
        raise AnalysisError("fewer than 3 rows in the window")
    result = {"t_range": [float(t[0]), float(t[-1])], "period": period, "gauges": {},
              "skipped": {}}
    wanted = list(dict.fromkeys(names + list(pair or [])))
    for name in wanted:
        if name not in sim or name == "t":
            raise AnalysisError(f"no column {name} in gauges.csv (it has: "
                                + ", ".join(k for k in sim if k != "t") + ")")
        eta = sim[name]
        try:
            stats = zero_crossing(t, eta)
            stats["mean"] = float(np.nanmean(eta))
            if period:
                amplitude = harmonic(t, eta, 2.0 * math.pi / period)
                stats["amplitude"] = abs(amplitude)
                stats["phase"] = math.atan2(amplitude.imag, amplitude.real)
                stats["_complex"] = amplitude
        except AnalysisError as e:
            if len(wanted) == 1 or name in (pair or []):
                raise AnalysisError(f"{name}: {e}") from None
            result["skipped"][name] = str(e)
            continue
        result["gauges"][name] = stats
    if not result["gauges"]:
        raise AnalysisError("no gauge has a complete wave in the window ("
                            + "; ".join(f"{n}: {why}" for n, why in result["skipped"].items())
                            + ")")
    if pair:
        if not (period and depth and spacing):
            raise AnalysisError("reflection needs the period, the depth and the spacing")
        k = wave_number(2.0 * math.pi / period, depth)
        a1 = result["gauges"][pair[0]]["_complex"]
        a2 = result["gauges"][pair[1]]["_complex"]
        reflection = {"gauges": list(pair), "spacing": spacing, "depth": depth,
                      "period": period, "wave_number": k, "wavelength": 2.0 * math.pi / k}
        reflection.update(goda_suzuki(a1, a2, k, spacing))
        result["reflection"] = reflection
    for stats in result["gauges"].values():
        stats.pop("_complex", None)
    return result


def print_table(result):
    t0, t1 = result["t_range"]
    print(f"window {t0:g}-{t1:g} s" +
          (f", harmonic at T = {result['period']:g} s" if result["period"] else ""))
    with_harmonic = result["period"] is not None
    head = (f"{'gauge':12s}{'waves':>7s}{'H (m)':>12s}{'T (s)':>12s}{'median H':>12s}"
            f"{'median T':>12s}{'mean (m)':>12s}")
    print(head + (f"{'a1 (m)':>12s}{'phase (rad)':>13s}" if with_harmonic else ""))
    for name, s in result["gauges"].items():
        row = (f"{name:12s}{s['waves']:7d}{s['mean_height']:12.5g}{s['mean_period']:12.5g}"
               f"{s['median_height']:12.5g}{s['median_period']:12.5g}{s['mean']:12.5g}")
        if with_harmonic:
            row += f"{s['amplitude']:12.5g}{s['phase']:13.4f}"
        print(row)
    for name, why in result.get("skipped", {}).items():
        print(f"{name:12s}skipped: {why}")
    r = result.get("reflection")
    if r:
        print(f"reflection {r['gauges'][0]} -> {r['gauges'][1]} (dx = {r['spacing']:g} m, "
              f"d = {r['depth']:g} m, k = {r['wave_number']:.5g} rad/m, "
              f"L = {r['wavelength']:.5g} m, sin(k dx) = {r['sin_k_spacing']:.3f}): "
              f"a_I = {r['incident']:.5g} m, a_R = {r['reflected']:.5g} m, "
              f"Kr = {r['coefficient']:.4f}")


def parse(argv):
    parser = argparse.ArgumentParser(
        description="Wave heights and periods (zero-up-crossing), first harmonics and "
        "reflection (Goda & Suzuki 1976) of a sluice run's level gauges.",
        epilog="Reads RUN_DIR/gauges.csv; --json prints one JSON object.")
    parser.add_argument("run_dir", help="sluice output folder holding gauges.csv")
    parser.add_argument("--gauges", nargs="+", default=[], metavar="G",
                        help="level gauges (columns in m) to analyse (default: the case's "
                        "<height> gauges)")
    parser.add_argument("--t-range", nargs=2, type=float, metavar=("T0", "T1"),
                        help="analyse only T0 <= t <= T1 (s; default: the whole run)")
    parser.add_argument("--period", type=float, metavar="T",
                        help="the waves' period (s): first harmonic at 2 pi / T")
    parser.add_argument("--depth", type=float, metavar="D",
                        help="still-water depth (m) for the dispersion relation")
    parser.add_argument("--pair", nargs=2, metavar=("G_A", "G_B"),
                        help="reflection from two gauges, G_B downstream of G_A")
    parser.add_argument("--spacing", type=float, metavar="DX",
                        help="distance from G_A to G_B along the flume (m)")
    parser.add_argument("--case", metavar="CASE.xml",
                        help="the run's case file, for the gauges, period and depth not given "
                        "(default: the one RUN_DIR/summary.json names, where it is found)")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)

    def fail(message):
        print(f"wave_analysis: {message}", file=sys.stderr)
        return 2

    case = args.case or sluice_case.run_case_file(args.run_dir)
    if args.case and not os.path.isfile(args.case):
        return fail(f"--case {args.case}: no such file")
    if case and not (args.gauges and args.period is not None and args.depth is not None):
        try:
            defaults = case_defaults(case)
        except AnalysisError as e:
            return fail(e)
        if not args.gauges and not args.pair:
            args.gauges = defaults["gauges"]
        if args.period is None:
            args.period = defaults["period"]
        if args.depth is None:
            args.depth = defaults["depth"]
    if not args.gauges and not args.pair:
        return fail("name gauges with --gauges (or a --pair)"
                    + (f"; the case {case} has no <height> gauge" if case else
                       "; no case found to read them from (--case)"))
    if args.period is not None and not args.period > 0:
        return fail(f"--period must be positive, got {args.period:g}")
    if args.pair:
        missing = [o for o, v in (("--spacing", args.spacing), ("--depth", args.depth),
                                  ("--period", args.period)) if v is None]
        if missing:
            return fail("--pair needs " + ", ".join(missing))
        if not args.depth > 0 or args.spacing == 0:
            return fail("--depth must be positive and --spacing non-zero")
    elif args.spacing is not None:
        return fail("--spacing without --pair")
    if args.t_range and not args.t_range[0] < args.t_range[1]:
        return fail("--t-range needs T0 < T1")
    path = os.path.join(args.run_dir, "gauges.csv")
    if not os.path.exists(path):
        return fail(f"{path} not found (run a case with <gauges>)")
    try:
        sim, _ = read_series(path)
        result = analyse(sim, args.gauges, args.t_range, args.period, args.depth, args.pair,
                         args.spacing)
    except (OSError, ValueError) as e:
        return fail(e)
    result = {"run": os.path.normpath(args.run_dir), "case": case, **result}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
