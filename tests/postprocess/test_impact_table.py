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


if __name__ == "__main__":
    unittest.main()
