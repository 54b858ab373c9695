#!/usr/bin/env python3
"""postprocess/wave_analysis.py on synthetic level gauges with known answers: a regular wave of
known H and T with a second harmonic and noise (zero-up-crossing and first harmonic), incident
and reflected waves of known Kr at two gauges in intermediate depth (Goda & Suzuki 1976), the
dispersion relation, a spacing of half a wavelength refused, --json, the gauges, period and depth
read from the run's case (summary.json's case file, or --case; a gauge without waves skipped),
and clear failures. Exits 77
(ctest: skipped) without numpy."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
except ImportError as e:
    print(f"SKIP: {e} (Debian: python3-numpy)")
    sys.exit(77)

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(SOURCE, "postprocess", "wave_analysis.py")
sys.path.insert(0, os.path.join(SOURCE, "postprocess"))
import wave_analysis  # noqa: E402

G = 9.81
STILL = 0.5  # m, the still-water level's z: gauges read absolute elevations
# The regular wave: H, T, a second harmonic of 10 % of the first in phase with it (so the crest
# is a + a2 and the trough -a + a2: H = 2a exactly), and noise of 0.2 % of H.
HEIGHT, PERIOD, SECOND, NOISE = 0.1, 1.5, 0.1, 0.0002
# The reflection case: d = 0.6 m, T = 1.2 s (k d = 1.8: intermediate depth), a_I = 4 cm,
# Kr = 0.2 with a phase of 1.1 rad at the first gauge, gauges 0.35 m apart (dx/L = 0.16).
DEPTH, PERIOD_R, A_I, KR, SPACING, X1 = 0.6, 1.2, 0.04, 0.2, 0.35, 3.0


def regular_wave(t, rng):
    w, a = 2 * math.pi / PERIOD, HEIGHT / 2
    phase = w * t + 0.7
    return (STILL + a * np.cos(phase) + SECOND * a * np.cos(2 * phase)
            + rng.normal(0.0, NOISE, t.size))


def standing_wave(x, t, rng):
    """Incident (towards +x) plus reflected (towards -x) waves at x; small second harmonic of the
    incident wave and noise."""
    w = 2 * math.pi / PERIOD_R
    k = wave_analysis.wave_number(w, DEPTH)
    incident = A_I * np.cos(k * x - w * t + 0.3)
    reflected = KR * A_I * np.cos(k * x + w * t + 1.1 - 2 * k * X1)
    second = 0.05 * A_I * np.cos(2 * (k * x - w * t + 0.3))
    return STILL + incident + reflected + second + rng.normal(0.0, 0.0001, t.size)


def write_gauges(folder, columns, t):
    """gauges.csv in sluice's format; NaN cells written empty."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "gauges.csv"), "w") as f:
        f.write("# sluice gauges\n# t: s\n" + "".join(f"# {n}: m\n" for n in columns))
        f.write("t," + ",".join(columns) + "\n")
        for k, tk in enumerate(t):
            cells = ["" if math.isnan(v[k]) else f"{v[k]:.7g}" for v in columns.values()]
            f.write(f"{tk:.6g}," + ",".join(cells) + "\n")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True,
                          text=True)


class WaveAnalysis(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        rng = np.random.default_rng(7)
        self.t = np.round(np.arange(0.0, 30.0 + 1e-9, 0.01), 6)
        flat = np.full(self.t.size, STILL)
        dry = regular_wave(self.t, rng)
        dry[:400] = np.nan  # a gauge without readings for its first 4 s
        x2 = X1 + SPACING
        half = X1 + math.pi / wave_analysis.wave_number(2 * math.pi / PERIOD_R, DEPTH)
        write_gauges(self.dir, {
            "H1": regular_wave(self.t, rng), "H2": dry, "flat": flat,
            "W1": standing_wave(X1, self.t, rng), "W2": standing_wave(x2, self.t, rng),
            "W3": standing_wave(half, self.t, rng)}, self.t)

    def tearDown(self):
        self.tmp.cleanup()

    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--pair", r.stdout)

    def test_regular_wave_height_period_and_harmonic(self):
        # A window of no whole number of periods.
        r = run(self.dir, "--gauges", "H1", "H2", "--t-range", 2.3, 29.1, "--period", PERIOD,
                "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)
        for name in ("H1", "H2"):
            g = result["gauges"][name]
            self.assertAlmostEqual(g["mean_height"], HEIGHT, delta=0.01 * HEIGHT, msg=name)
            self.assertAlmostEqual(g["mean_period"], PERIOD, delta=0.005 * PERIOD, msg=name)
            self.assertAlmostEqual(g["amplitude"], HEIGHT / 2, delta=0.01 * HEIGHT / 2)
            self.assertAlmostEqual(g["mean"], STILL, delta=0.01 * HEIGHT)
        self.assertIn(result["gauges"]["H1"]["waves"], (16, 17))
        self.assertIn(result["gauges"]["H2"]["waves"], (14, 15))  # dry until 4 s
        self.assertEqual(result["t_range"], [2.3, 29.1])
        self.assertNotIn("reflection", result)

    def test_table(self):
        r = run(self.dir, "--gauges", "H1", "--period", PERIOD)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("H1", r.stdout)
        self.assertIn("a1 (m)", r.stdout)
        r = run(self.dir, "--gauges", "W1", "--pair", "W1", "W2", "--spacing", SPACING,
                "--depth", DEPTH, "--period", PERIOD_R)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"Kr = 0\.(19|20)\d\d")

    def test_noise_on_a_crossing_does_not_split_a_wave(self):
        t = np.arange(0.0, 10.0, 0.001)
        eta = -0.05 * np.cos(2 * math.pi * t) + np.random.default_rng(3).normal(0, 2e-4, t.size)
        stats = wave_analysis.zero_crossing(t, eta)  # up-crossings at 0.25, 1.25, ... 9.25 s
        self.assertEqual(stats["waves"], 9)
        self.assertAlmostEqual(stats["mean_period"], 1.0, delta=0.005)

    def test_one_outlying_sample_moves_the_means_not_the_medians(self):
        # A drop above the surface in a trough adds an up-crossing and splits one wave in two.
        t = np.arange(0.0, 10.0, 0.01)
        eta = -0.05 * np.cos(2 * math.pi * t)
        eta[500] = 0.2  # t = 5 s, the bottom of a trough
        stats = wave_analysis.zero_crossing(t, eta)
        self.assertEqual(stats["waves"], 10)
        self.assertGreater(stats["mean_height"], 0.11)
        self.assertLess(stats["mean_period"], 0.95)
        self.assertAlmostEqual(stats["median_height"], 0.1, delta=1e-3)
        self.assertAlmostEqual(stats["median_period"], 1.0, delta=1e-3)

    def test_harmonic_of_a_partial_window(self):
        t = np.linspace(0.3, 2.9, 500)  # 1.73 periods
        w = 2 * math.pi / 1.5
        eta = 1.0 + 0.2 * np.cos(w * t) - 0.1 * np.sin(w * t)
        a = wave_analysis.harmonic(t, eta, w)
        self.assertAlmostEqual(a.real, 0.2, places=10)
        self.assertAlmostEqual(a.imag, -0.1, places=10)
        with self.assertRaises(wave_analysis.AnalysisError):
            wave_analysis.harmonic(t[:100], eta[:100], w)  # a third of a period

    def test_dispersion(self):
        for omega, depth in ((2 * math.pi / PERIOD_R, DEPTH), (0.3, 2.0), (20.0, 5.0),
                             (1.0, 0.01)):
            k = wave_analysis.wave_number(omega, depth)
            self.assertAlmostEqual(G * k * math.tanh(k * depth) / omega**2, 1.0, places=12)
        self.assertAlmostEqual(wave_analysis.wave_number(20.0, 5.0), 400.0 / G, places=9)  # deep
        shallow = wave_analysis.wave_number(0.01, 0.1)
        self.assertAlmostEqual(shallow, 0.01 / math.sqrt(G * 0.1), delta=1e-4 * shallow)
        with self.assertRaises(wave_analysis.AnalysisError):
            wave_analysis.wave_number(1.0, 0.0)

    def test_reflection(self):
        r = run(self.dir, "--pair", "W1", "W2", "--spacing", SPACING, "--depth", DEPTH,
                "--period", PERIOD_R, "--t-range", 1.0, 28.7, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        reflection = json.loads(r.stdout)["reflection"]
        self.assertAlmostEqual(reflection["coefficient"], KR, delta=0.01)
        self.assertAlmostEqual(reflection["incident"], A_I, delta=0.01 * A_I)
        self.assertAlmostEqual(reflection["reflected"], KR * A_I, delta=0.01 * A_I)
        self.assertEqual(reflection["gauges"], ["W1", "W2"])
        self.assertAlmostEqual(reflection["wavelength"] * reflection["wave_number"], 2 * math.pi)
        # Measured from W2 (W1 upstream of it): the same waves.
        r = run(self.dir, "--pair", "W2", "W1", "--spacing", -SPACING, "--depth", DEPTH,
                "--period", PERIOD_R, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertAlmostEqual(json.loads(r.stdout)["reflection"]["coefficient"], KR, delta=0.01)
        # W2 upstream of W1, that is the flume the other way round: the roles swap.
        r = run(self.dir, "--pair", "W2", "W1", "--spacing", SPACING, "--depth", DEPTH,
                "--period", PERIOD_R, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertAlmostEqual(json.loads(r.stdout)["reflection"]["coefficient"], 1 / KR,
                               delta=0.25)

    def test_half_a_wavelength_apart_is_refused(self):
        spacing = math.pi / wave_analysis.wave_number(2 * math.pi / PERIOD_R, DEPTH)
        r = run(self.dir, "--pair", "W1", "W3", "--spacing", spacing, "--depth", DEPTH,
                "--period", PERIOD_R)
        self.assertEqual(r.returncode, 2)
        self.assertIn("choose another spacing", r.stderr)
        self.assertIn("1.000 half wavelengths", r.stderr)
        with self.assertRaises(wave_analysis.AnalysisError):
            wave_analysis.goda_suzuki(1 + 0j, 1 + 0j, 1.0, 1.02 * math.pi)

    def write_case(self, name, wavemaker):
        """A case file with level gauges H1 and flat, and `wavemaker` (XML) in a moving paddle."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(f"""<sluice name="flume" dimension="2">
  <geometry dp="0.02">
    <fluid min="0.1 0" max="4 0.5"/>
    <tank min="0 0" max="4 1" faces="bottom right"/>
    <obstacle name="paddle" min="0.04 0" max="0.1 1"><motion>{wavemaker}</motion></obstacle>
  </geometry>
  <gauges interval="0.01"><height name="H1" x="1"/><height name="flat" x="2"/></gauges>
</sluice>
""")
        return path

    def test_gauges_period_and_depth_come_from_the_runs_case(self):
        case = self.write_case("flume.xml", f'<wavemaker type="piston" depth="{DEPTH}" '
                               f'height="{HEIGHT}" period="{PERIOD}"/>')
        with open(os.path.join(self.dir, "summary.json"), "w") as f:
            json.dump({"case": "flume", "case_file": case}, f)
        r = run(self.dir, "--t-range", 2.3, 29.1, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        result = json.loads(r.stdout)
        self.assertEqual(result["case"], case)
        self.assertEqual(result["period"], PERIOD)
        self.assertEqual(list(result["gauges"]), ["H1"])  # the case's <height> gauges
        self.assertAlmostEqual(result["gauges"]["H1"]["amplitude"], HEIGHT / 2, delta=0.002)
        self.assertIn("no complete wave", result["skipped"]["flat"])  # skipped, not fatal
        table = run(self.dir, "--t-range", 2.3, 29.1)
        self.assertIn("flat        skipped: no complete wave", table.stdout)
        # Irregular waves: the peak period; --case names the file; given values win.
        jonswap = self.write_case("jonswap.xml", '<wavemaker type="piston" waves="jonswap" '
                                  'depth="0.45" hs="0.05" tp="2.5"/>')
        result = json.loads(run(self.dir, "--case", jonswap, "--gauges", "H1", "--json").stdout)
        self.assertEqual((result["period"], result["case"]), (2.5, jonswap))
        result = json.loads(run(self.dir, "--case", jonswap, "--gauges", "H1", "--period",
                                PERIOD, "--json").stdout)
        self.assertEqual(result["period"], PERIOD)
        # Only gauges without waves: an error naming each.
        r = run(self.dir, "--gauges", "flat", "H2", "--t-range", 0.0, 3.0)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no gauge has a complete wave in the window (flat: ", r.stderr)

    def test_clear_failures(self):
        cases = [
            ((os.path.join(self.dir, "nowhere"), "--gauges", "H1"), "gauges.csv not found"),
            ((self.dir, "--gauges", "H9"), "no column H9 in gauges.csv"),
            ((self.dir, "--gauges", "flat"), "flat: no complete wave"),
            ((self.dir, "--gauges", "H1", "--t-range", 5.0, 6.0), "H1: no complete wave"),
            ((self.dir, "--gauges", "H1", "--t-range", 5.0, 7.5, "--period", 2 * PERIOD),
             "H1: the window spans less than one period"),
            ((self.dir, "--pair", "W1", "W2", "--spacing", SPACING), "--pair needs --depth"),
            ((self.dir,), "name gauges"),
            ((self.dir, "--case", os.path.join(self.dir, "none.xml")), "--case"),
        ]
        for args, message in cases:
            r = run(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(message, r.stderr, args)
            self.assertTrue(r.stderr.startswith("wave_analysis: "), r.stderr)


if __name__ == "__main__":
    unittest.main()
