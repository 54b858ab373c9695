#!/usr/bin/env python3
"""postprocess/impact_table.py on a gauges.csv with known answers: a triangular pressure pulse
(peak and impulse known in closed form), a probe column, a level, and a window that cuts the
rows; plain Python."""
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(SOURCE, "postprocess", "impact_table.py")
sys.path.insert(0, os.path.join(SOURCE, "postprocess"))
import impact_table  # noqa: E402


def write_gauges(folder):
    path = os.path.join(folder, "gauges.csv")
    with open(path, "w") as f:
        f.write("# sluice gauges\n# t: s\n# S1: Pa\n# P1.pressure: Pa\n# H1: m\n")
        f.write("t,S1,P1.pressure,H1\n")
        for k in range(201):  # t = 0 … 2 s every 0.01 s
            t = 0.01 * k
            pulse = max(0.0, 1000.0 * (1.0 - abs(t - 0.5) / 0.1))  # 1 kPa, 0.2 s wide
            f.write(f"{t:.2f},{pulse:.6f},{2.0 * pulse:.6f},{0.3 + 0.1 * t:.4f}\n")
    return path


class ImpactTable(unittest.TestCase):
    def test_peak_impulse_and_levels(self):
        with tempfile.TemporaryDirectory() as d:
            path = write_gauges(d)
            s = impact_table.summarise(*impact_table.read_gauges(d), 0.35, 1.0)
            kind, peak, impulse = s["S1"]
            self.assertEqual(kind, "pressure")
            self.assertAlmostEqual(peak, 1000.0, places=6)
            self.assertAlmostEqual(impulse, 100.0, places=6)  # ½ · 0.2 s · 1 kPa
            self.assertAlmostEqual(s["P1.pressure"][2], 200.0, places=6)
            self.assertEqual(s["H1"][0], "level")
            self.assertAlmostEqual(s["H1"][1], 0.335, places=6)
            self.assertAlmostEqual(s["H1"][2], 0.4, places=6)
            # A window after the pulse: no impulse, the level's range moves.
            late = impact_table.summarise(*impact_table.read_gauges(path), 1.5, 2.0)
            self.assertEqual(late["S1"][1], 0.0)

    def test_markdown_table(self):
        with tempfile.TemporaryDirectory() as d:
            write_gauges(d)
            out = subprocess.run([sys.executable, SCRIPT, d, d, "--label", "a", "b"],
                                 capture_output=True, text=True, check=True).stdout
            self.assertIn("| gauge | a | b |", out)
            self.assertIn("| S1 | 1.00 / 100.0 | 1.00 / 100.0 |", out)
            self.assertIn("| H1 | 0.335–0.400 |", out)

    def test_rise_and_noise(self):
        # The triangle rises from 10 % (t = 0.41) to its peak (0.5 s): 90 ms.
        samples = [(0.01 * k, max(0.0, 1000.0 * (1.0 - abs(0.01 * k - 0.5) / 0.1)))
                   for k in range(201)]
        self.assertAlmostEqual(impact_table.rise_time(samples), 0.09, places=9)
        # A constant 5 kPa with ±500 Pa alternating every 0.1 ms: the 5 ms running mean takes
        # 51 samples, 26 of them (the odd offsets ±1 … ±25) of the sign opposite to the centre's,
        # so it is 5 kPa ∓ 500/51 and the deviation's RMS 500·(1 + 1/51) Pa: 10.20 % of the mean.
        square = [(1e-4 * k, 5000.0 + (500.0 if k % 2 else -500.0)) for k in range(6001)]
        noise = impact_table.noise_percent(square, 0.2, 0.4)
        # (the mean over [A, B], 2001 samples, is 5 kPa less 500/2001 Pa: 5e-5 of it)
        self.assertAlmostEqual(noise, 10.0 * (1.0 + 1.0 / 51.0), delta=0.002)
        # A smooth ramp has no noise: the centred mean of a linear signal is the signal.
        ramp = [(1e-4 * k, 1000.0 + 1e4 * 1e-4 * k) for k in range(6001)]
        self.assertAlmostEqual(impact_table.noise_percent(ramp, 0.2, 0.4), 0.0, places=6)

    def test_noise_table(self):
        with tempfile.TemporaryDirectory() as d:
            write_gauges(d)
            out = subprocess.run([sys.executable, SCRIPT, d, "--noise", "0.45", "0.55"],
                                 capture_output=True, text=True, check=True).stdout
            self.assertIn("Rise (ms", out)
            self.assertIn("| S1 | 90.0 /", out)


if __name__ == "__main__":
    unittest.main()
