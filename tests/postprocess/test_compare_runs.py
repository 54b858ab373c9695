#!/usr/bin/env python3
"""postprocess/compare_runs.py on gauges.csv files with known differences: three reference runs
of one pulse whose peaks differ by ±1 % and whose sample times differ by less than a step (as
two runs' do), a candidate inside their spread, one whose peak is 20 % higher, one whose level
is 5 mm higher (against a 1 mm floor), and a file with no column in common; plain Python."""
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(SOURCE, "postprocess", "compare_runs.py")


def write_run(folder, name, peak, level, shift=0.0, columns=("S1", "H1")):
    """A run's gauges.csv: a triangular pulse of `peak` Pa at t = 0.5 s (0.2 s wide) and a level
    rising from `level` m, sampled every 0.005 s at t + shift (shift < one step: the peaks as
    sampled then differ too, 990 – 997 Pa for the three references)."""
    path = os.path.join(folder, name)
    units = {"S1": "Pa", "H1": "m", "Q1.velocity": "m/s"}
    with open(path, "w") as f:
        f.write("# sluice gauges\n# t: s\n")
        for c in columns:
            f.write(f"# {c}: {units[c]}\n")
        f.write("t," + ",".join(columns) + "\n")
        for k in range(301):
            t = 0.005 * k + shift
            pulse = max(0.0, peak * (1.0 - abs(t - 0.5) / 0.1))
            values = {"S1": pulse, "H1": level + 0.1 * t, "Q1.velocity": 1.0}
            f.write(f"{t:.9f}," + ",".join(f"{values[c]:.6f}" for c in columns) + "\n")
    return path


def compare(references, candidate, *extra):
    return subprocess.run([sys.executable, SCRIPT, "--t0", "0.35", "--t1", "1.0", "--reference",
                           *references, "--candidate", candidate, *extra],
                          capture_output=True, text=True)


class CompareRuns(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.refs = [write_run(d, "a.csv", 990.0, 0.20, 0.0000),
                     write_run(d, "b.csv", 1000.0, 0.20, 0.0007),
                     write_run(d, "c.csv", 1010.0, 0.20, 0.0013)]
        self.dir = d

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_run_inside_the_spread_agrees(self):
        r = compare(self.refs, write_run(self.dir, "same.csv", 1005.0, 0.20, 0.0004))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("every figure agrees", r.stdout)
        self.assertRegex(r.stdout, r"\| S1 \| Pa \| 990 – 997 \| 1001 \|[^\n]*\| yes \|")

    def test_a_higher_peak_does_not(self):
        r = compare(self.refs, write_run(self.dir, "high.csv", 1200.0, 0.20, 0.0002))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\| S1 \| Pa \|[^\n]*\| NO \|")
        self.assertRegex(r.stdout, r"\| H1 \| m \|[^\n]*\| yes \|")

    def test_a_level_beyond_its_floor_does_not(self):
        candidate = write_run(self.dir, "raised.csv", 1000.0, 0.205, 0.0002)
        r = compare(self.refs, candidate, "--level-floor", "0.001")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"\| H1 \| m \|[^\n]*\| NO \|")
        # Within a floor wider than the difference, it agrees.
        r = compare(self.refs, candidate, "--level-floor", "0.01")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_nothing_in_common_is_no_agreement(self):
        other = write_run(self.dir, "other.csv", 1000.0, 0.2, columns=("Q1.velocity",))
        r = compare(self.refs, other)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("nothing compared", r.stdout)

    def test_one_reference_is_refused(self):
        r = compare(self.refs[:1], self.refs[1])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("at least two reference runs", r.stderr)


if __name__ == "__main__":
    unittest.main()
