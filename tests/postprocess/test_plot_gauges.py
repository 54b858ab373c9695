#!/usr/bin/env python3
"""postprocess/plot_gauges.py on a gauges.csv in sluice's format and an experiment with a known
offset: PNGs per group, the error table's numbers, --help, and clear failures.
Exits 77 (ctest: skipped) without numpy or matplotlib."""
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401
    import numpy as np
except ImportError as e:
    print(f"SKIP: {e} (Debian: python3-numpy python3-matplotlib)")
    sys.exit(77)

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(SOURCE, "postprocess", "plot_gauges.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class PlotGauges(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        t = np.linspace(0.0, 1.0, 101)
        self.t = t
        with open(os.path.join(self.dir, "gauges.csv"), "w") as f:
            f.write("# sluice gauges\n# t: s\n# H1: m\n# P1.pressure: Pa\n"
                    "# P1.velocity_x: m/s\n# P1.velocity_z: m/s\n# front: m\n")
            f.write("t,H1,P1.pressure,P1.velocity_x,P1.velocity_z,front\n")
            for k, tk in enumerate(t):
                pressure = "" if k < 10 else f"{1000 * np.sin(np.pi * tk):.6g}"  # empty: no fluid
                f.write(f"{tk:.6g},{0.5 + 0.1 * tk:.6g},{pressure},0.1,-0.1,{1 + tk:.6g}\n")
        # The experiment: H1 0.02 m lower everywhere; P1 with its peak at t = 0.5.
        self.exp = os.path.join(self.dir, "exp.csv")
        with open(self.exp, "w") as f:
            f.write("# a made-up experiment\nt,H1,P1.pressure\n")
            for tk in np.linspace(0.2, 0.8, 13):
                f.write(f"{tk:.6g},{0.48 + 0.1 * tk:.6g},{1000 * np.sin(np.pi * tk):.6g}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--exp", r.stdout)

    def test_groups_and_errors(self):
        out = os.path.join(self.dir, "plots")
        r = run(self.dir, "--exp", self.exp, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for png in ("heights.png", "pressures.png", "velocities.png"):
            path = os.path.join(out, png)
            self.assertTrue(os.path.getsize(path) > 1000, png)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        rows = np.genfromtxt(os.path.join(out, "gauge_errors.csv"), delimiter=",", names=True,
                             dtype=None, encoding="utf-8")
        by_name = {row["gauge"]: row for row in np.atleast_1d(rows)}
        self.assertAlmostEqual(by_name["H1"]["mae"], 0.02, places=5)
        self.assertAlmostEqual(by_name["H1"]["nmae"], 0.02 / 0.06, places=4)
        self.assertAlmostEqual(by_name["P1.pressure"]["mae"], 0.0, delta=1e-2)
        self.assertAlmostEqual(by_name["P1.pressure"]["t_peak_exp"], 0.5, places=6)
        self.assertAlmostEqual(by_name["P1.pressure"]["t_peak_sim"], 0.5, places=6)
        self.assertIn("H1", r.stdout)

    def test_missing_run_is_a_clear_error(self):
        r = run(os.path.join(self.dir, "nowhere"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("gauges.csv not found", r.stderr)


if __name__ == "__main__":
    unittest.main()
