#!/usr/bin/env python3
"""Rebuilds lobovsky2014_h300.csv and lobovsky2014_h300_levels.csv from the TNL-SPH project's
copy of the Lobovsky et al. (2014) H = 300 mm records (a public git repository; the CSVs'
headers name the commit).

    python3 tests/validation_data/extract_lobovsky2014.py TNL_SPH_CHECKOUT pressures
    python3 tests/validation_data/extract_lobovsky2014.py TNL_SPH_CHECKOUT levels

print the rows (header line `t,...` and data) to stdout. The source files are non-dimensional:
column 1 is t*sqrt(g/H), column 2 is p/(rho*g*H) or h/H, as the source's own plotting scripts
read them; they are converted back with the constants those scripts use (g = 9.81 m/s^2,
rho = 1000 kg/m^3, H = 0.3 m). The pressures are sampled at 20 kHz (dt* = 2.8592e-4, i.e.
5e-5 s) and kept unresampled in the window [T0, T1] around the first impact; the levels (about
300 Hz) are kept whole.
"""
import math
import os
import sys

G, RHO, H = 9.81, 1000.0, 0.3
T0, T1 = 0.35, 0.70
FOLDER = "examples/resources/damBreak2D/damBreak2D_experimentalDataLobovsky2014"
# (column, source file, the file's first line). The source's damBreak2D postpro.py pairs the
# files with the sensors the same way.
PRESSURES = [("P1", "Fig18_peak_event_5_sensors_5.dat", "# sensor 1"),
             ("P2", "Fig18_peak_event_5_sensors_4.dat", "# sensor 2"),
             ("P2L", "Fig18_peak_event_5_sensors_3.dat", "# sensor 2L"),
             ("P3", "Fig18_peak_event_5_sensors_2.dat", "# sensor 3"),
             ("P4", "Fig18_peak_event_5_sensors_1.dat", "# sensor 4")]
LEVELS = [("H1", "Fig16_WaterLevels_H1_2.dat", "# ETSIN 01 ... H=0.3m"),
          ("H2", "Fig16_WaterLevels_H2_3.dat", "# ETSIN 02 ... H=0.3m"),
          ("H3", "Fig16_WaterLevels_H3_3.dat", "# ETSIN 02 ... H=0.3m"),
          ("H4", "Fig16_WaterLevels_H4_4.dat", "# ETSIN 02 ... H=0.3m")]


def read(path, first_line, scale):
    """[(t in s, value * scale)] of one source file, its first line checked."""
    with open(path, encoding="utf-8") as f:
        first = f.readline().strip()
        if first != first_line:
            raise ValueError(f"{path}: first line {first!r}, expected {first_line!r}")
        rows = [tuple(float(v) for v in line.split()) for line in f if line.strip()]
    to_seconds = 1.0 / math.sqrt(G / H)
    # The source's t* has 6 significant digits: rounding to 1e-5 s restores the sampling grid.
    return [(round(ts * to_seconds, 5), v * scale) for ts, v in rows]


def main(root, what):
    if what == "pressures":
        files, sub, scale, window, fmt = PRESSURES, "pressure", RHO * G * H, (T0, T1), "{:.0f}"
    elif what == "levels":
        files, sub, scale, window, fmt = LEVELS, "waterLevel", H, (0.0, math.inf), "{:.4f}"
    else:
        sys.exit(__doc__)
    series = [read(os.path.join(root, FOLDER, sub, f), first, scale) for _, f, first in files]
    times = [t for t, _ in series[0]]
    if any([t for t, _ in s] != times for s in series[1:]):
        raise ValueError("the files' time columns differ")
    print("t," + ",".join(name for name, _, _ in files))
    for k, t in enumerate(times):
        if window[0] - 1e-9 <= t <= window[1] + 1e-9:
            print(f"{t:.5f}," + ",".join(fmt.format(s[k][1]) for s in series))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
