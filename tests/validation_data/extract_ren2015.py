#!/usr/bin/env python3
"""Rebuilds ren2015_box_waves_h004.csv from FloatStepper's digitisation of the Ren et al. (2015)
floating-box experiment (a public git repository; the CSV's header names the commit).

    python3 tests/validation_data/extract_ren2015.py FLOATSTEPPER_CHECKOUT > ren2015_box_waves_h004.csv

The source files (run/freeBoxInRegularWaves/Ren2015data/H004{Heave,Pitch,Surge,WaveGauge}) have
two columns, non-dimensional as the source's compareExpNum.py reads them: t/T, and y/d (heave),
x/d (surge), eta/d (wave gauge) or theta/(k d) (pitch, theta in rad), with T = 1.2 s,
d = 0.4 m and k = 2 pi / 1.93625 m. They are converted back with those constants; the pitch
into degrees. Rows: series,t,value (t in s from the digitised figure's origin).
"""
import math
import os
import sys

T, D, WAVELENGTH = 1.2, 0.4, 1.93625
K = 2.0 * math.pi / WAVELENGTH
FOLDER = "run/freeBoxInRegularWaves/Ren2015data"
SERIES = [("heave", "H004Heave", D), ("pitch", "H004Pitch", K * D * 180.0 / math.pi),
          ("surge", "H004Surge", D), ("gauge", "H004WaveGauge", D)]


def main(checkout):
    print("series,t,value")
    for name, source, scale in SERIES:
        with open(os.path.join(checkout, FOLDER, source)) as f:
            for line in f:
                cells = line.split()
                if len(cells) != 2:
                    continue
                print("%s,%.5f,%.6g" % (name, float(cells[0]) * T, float(cells[1]) * scale))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
