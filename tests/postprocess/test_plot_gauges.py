#!/usr/bin/env python3
"""postprocess/plot_gauges.py on a gauges.csv in sluice's format and an experiment with a known
offset: PNGs per group, the error table's numbers, wall sensors (plain names in Pa) against an
experiment, --map and --t-range, the robust y-range that a spike does not set, a forces.csv
beside gauges.csv and alone (forces.png and moments.png, a panel per body), a bodies.csv
(floating bodies' motions: a PNG per kind, a panel per body, the quaternion left out), --help,
and clear failures. Exits 77 (ctest: skipped) without numpy or matplotlib."""
import json
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
sys.path.insert(0, os.path.join(SOURCE, "postprocess"))
import plot_gauges  # noqa: E402
import sluice_case  # noqa: E402


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

    def write_wall_run(self):
        """A run with wall sensors P1 (a 1 ms impact of 9 kPa at 0.43 s and a one-sample spike
        of 80 kPa at 0.45 s) and P2, sampled every 0.2 ms, and an experiment with P1 and a
        column named otherwise for P2."""
        folder = os.path.join(self.dir, "wall")
        os.makedirs(folder)
        t = np.round(np.arange(0.0, 0.6 + 1e-9, 0.0002), 6)
        p1 = np.where(np.abs(t - 0.43) <= 0.0005, 9000.0, 100.0)
        p1[np.argmin(np.abs(t - 0.45))] = 80000.0
        p2 = 500.0 * t
        with open(os.path.join(folder, "gauges.csv"), "w") as f:
            f.write("# sluice gauges\n# t: s\n# P1: Pa\n# P2: Pa\n# H1: m\nt,P1,P2,H1\n")
            for k, tk in enumerate(t):
                f.write(f"{tk:.6g},{p1[k]:.6g},{p2[k]:.6g},0.3\n")
        exp = os.path.join(self.dir, "wall_exp.csv")
        with open(exp, "w") as f:
            f.write("# made-up\n# P1: Pa\nt,P1,sensor2\n")
            for tk in np.arange(0.35, 0.7, 0.00005):
                pk = 9000.0 if abs(tk - 0.43) <= 0.0005 else 100.0
                f.write(f"{tk:.6f},{pk:.6g},{500.0 * tk + 10.0:.6g}\n")
        return folder, exp

    def test_wall_sensors_against_an_experiment(self):
        folder, exp = self.write_wall_run()
        out = os.path.join(self.dir, "wall_plots")
        r = run(folder, "--experiment", exp, "--map", "P2=sensor2", "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.getsize(os.path.join(out, "pressures.png")) > 1000)
        self.assertTrue(os.path.getsize(os.path.join(out, "heights.png")) > 1000)
        rows = np.genfromtxt(os.path.join(out, "gauge_errors.csv"), delimiter=",", names=True,
                             dtype=None, encoding="utf-8")
        by_name = {row["gauge"]: row for row in np.atleast_1d(rows)}
        self.assertEqual(set(by_name), {"P1", "P2"})
        self.assertAlmostEqual(by_name["P2"]["mae"], 10.0, delta=1e-6)  # through --map
        self.assertAlmostEqual(by_name["P1"]["peak_exp"], 9000.0)
        self.assertAlmostEqual(by_name["P1"]["t_peak_sim"], 0.45, places=6)  # the spike
        # The spike is clipped and reported; the 1 ms impact is not.
        self.assertIn("pressures.png: 1 clipped (P1: 80000 at t = 0.45 s)", r.stdout)

    def test_t_range_restricts_the_comparison(self):
        folder, exp = self.write_wall_run()
        out = os.path.join(self.dir, "zoom")
        r = run(folder, "--exp", exp, "--t-range", "0.40", "0.44", "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = np.genfromtxt(os.path.join(out, "gauge_errors.csv"), delimiter=",", names=True,
                             dtype=None, encoding="utf-8")
        by_name = {row["gauge"]: row for row in np.atleast_1d(rows)}
        self.assertAlmostEqual(by_name["P1"]["t_peak_sim"], 0.4295, delta=1e-3)  # not 0.45
        self.assertAlmostEqual(by_name["P1"]["peak_sim"], 9000.0)

    def test_a_spike_does_not_set_the_range(self):
        t = np.arange(0.0, 1.0, 0.001)
        y = np.sin(2 * np.pi * t) * 1000.0
        y[500] = 1e5  # one sample
        lo, hi = plot_gauges.robust_limits([y], [], 5)
        self.assertAlmostEqual(hi, 1000.0 + 0.1 * 2000.0, delta=20.0)
        self.assertAlmostEqual(lo, -1000.0 - 0.1 * 2000.0, delta=20.0)
        clips = plot_gauges.clipped_excursions(t, y, lo, hi)
        self.assertEqual(clips, [(t[500], 1e5, True)])
        # --robust 0: every value in range.
        self.assertGreater(plot_gauges.robust_limits([y], [], 1)[1], 1e5)
        self.assertEqual(plot_gauges.window_samples(t, 0.0), 1)
        self.assertEqual(plot_gauges.window_samples(t, 0.005), plot_gauges.MIN_WINDOW)
        self.assertEqual(plot_gauges.window_samples(np.arange(0, 1, 0.0002), 0.005), 25)

    def test_the_first_readings_after_a_gap_do_not_set_the_range(self):
        y = np.full(200, np.nan)
        y[100:] = 10.0
        y[100:102] = -4e4  # a probe's first readings as water reaches it
        lo, hi = plot_gauges.robust_limits([y], [], 5)
        self.assertGreater(lo, -10.0)

    def test_a_lasting_peak_and_the_measurement_set_the_range(self):
        t = np.arange(0.0, 1.0, 0.001)
        y = np.zeros_like(t)
        y[400:420] = 5000.0  # 20 samples: a real peak, kept
        lo, hi = plot_gauges.robust_limits([y], [], 5)
        self.assertGreaterEqual(hi, 5000.0)
        self.assertEqual(plot_gauges.clipped_excursions(t, y, lo, hi), [])
        exp = np.zeros(50)
        exp[10] = 9000.0  # a measured peak counts whole, even as one sample
        self.assertGreaterEqual(plot_gauges.robust_limits([y], [exp], 5)[1], 9000.0)
        gaps = np.full_like(t, np.nan)
        self.assertIsNone(plot_gauges.robust_limits([gaps], [], 5))

    def test_wall_sensor_columns_are_pressures(self):
        self.assertEqual(plot_gauges.group_of("P1", "Pa")[0], "pressures")
        self.assertEqual(plot_gauges.group_of("P1.pressure", "Pa")[0], "pressures")
        self.assertEqual(plot_gauges.group_of("front", "m")[0], "heights")
        self.assertEqual(plot_gauges.panel_of("P1.velocity_x"), "P1")
        self.assertEqual(plot_gauges.panel_of("P1.pressure"), "P1.pressure")

    def test_bad_map_is_a_clear_error(self):
        folder, exp = self.write_wall_run()
        r = run(folder, "--exp", exp, "--map", "P2")
        self.assertEqual(r.returncode, 2)
        self.assertIn("GAUGE=COLUMN", r.stderr)
        r = run(folder, "--exp", exp, "--map", "P2=nothing")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no experiment column nothing", r.stderr)

    def write_forces(self, folder):
        """forces.csv of a 2D run with bodies `box` and `flap` (per unit width), sampled every
        5 ms (not on gauges.csv's times): box.Fx = 100 sin(pi t) N/m."""
        os.makedirs(folder, exist_ok=True)
        t = np.round(np.arange(0.0, 1.0 + 1e-9, 0.005), 6)
        columns = [f"{body}.{c}" for body in ("box", "flap") for c in ("Fx", "Fz", "My")]
        with open(os.path.join(folder, "forces.csv"), "w") as f:
            f.write("# sluice forces of the fluid on named objects (2D: per unit width)\n"
                    "# t: s\n")
            f.write("".join(f"# {c}: {'N*m/m' if c.endswith('My') else 'N/m'}\n"
                            for c in columns))
            f.write("t," + ",".join(columns) + "\n")
            for tk in t:
                values = [100 * np.sin(np.pi * tk), -50.0 - tk, 5 * tk,
                          20 * np.cos(np.pi * tk), -10.0, -2 * tk]
                f.write(f"{tk:.6g}," + ",".join(f"{v:.6g}" for v in values) + "\n")

    def assert_png(self, path):
        self.assertTrue(os.path.getsize(path) > 1000, path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_forces_beside_gauges(self):
        self.write_forces(self.dir)
        out = os.path.join(self.dir, "plots")
        r = run(self.dir, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for png in ("heights.png", "pressures.png", "velocities.png", "forces.png",
                    "moments.png"):
            self.assert_png(os.path.join(out, png))
            self.assertIn(f"wrote {os.path.join(out, png)}", r.stdout)
        self.assertEqual(sorted(os.listdir(out)), ["forces.png", "heights.png", "moments.png",
                                                   "pressures.png", "velocities.png"])

    def test_a_measurement_csv_is_drawn_like_gauges(self):
        """`sluice measure`'s NAME.csv through --csv: its probes' fields and fractions, a level."""
        path = os.path.join(self.dir, "measure.csv")
        with open(path, "w") as f:
            f.write("# sluice measure\n# t: s\n# P1.pressure: Pa\n# P1.fraction: 1\n# H1: m\n")
            f.write("t,P1.pressure,P1.fraction,H1\n")
            for tk in self.t:
                f.write(f"{tk:.6g},{1000 * tk:.6g},{1 - 0.5 * tk:.6g},{0.4 + 0.1 * tk:.6g}\n")
        out = os.path.join(self.dir, "measured")
        r = run(self.dir, "--csv", path, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(p for p in os.listdir(out) if p.endswith(".png")),
                         ["fractions.png", "heights.png", "pressures.png"])
        for png in ("fractions.png", "heights.png", "pressures.png"):
            self.assert_png(os.path.join(out, png))
        r = run(self.dir, "--csv", os.path.join(self.dir, "nowhere.csv"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("--csv", r.stderr)

    def test_only_forces(self):
        folder = os.path.join(self.dir, "forces_only")
        self.write_forces(folder)
        exp = os.path.join(self.dir, "force_exp.csv")
        with open(exp, "w") as f:
            f.write("# made-up: box.Fx 1 N/m higher\nt,box.Fx\n")
            for tk in np.linspace(0.1, 0.9, 17):
                f.write(f"{tk:.6g},{100 * np.sin(np.pi * tk) + 1.0:.6g}\n")
        out = os.path.join(folder, "plots")
        r = run(folder, "--exp", exp, "--t-range", "0.05", "0.95")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["forces.png", "gauge_errors.csv",
                                                   "moments.png"])
        self.assert_png(os.path.join(out, "forces.png"))
        self.assert_png(os.path.join(out, "moments.png"))
        rows = np.genfromtxt(os.path.join(out, "gauge_errors.csv"), delimiter=",", names=True,
                             dtype=None, encoding="utf-8")
        by_name = {row["gauge"]: row for row in np.atleast_1d(rows)}
        self.assertEqual(set(by_name), {"box.Fx"})
        self.assertAlmostEqual(by_name["box.Fx"]["mae"], 1.0, delta=1e-3)
        r = run(folder, "--t-range", "2", "3")
        self.assertEqual(r.returncode, 2)
        self.assertIn("fewer than 2 rows in --t-range", r.stderr)

    def test_force_components_are_a_panel_each(self):
        self.assertEqual(plot_gauges.group_of("box.Fx", "N/m"), ("forces", "force (N/m)"))
        self.assertEqual(plot_gauges.group_of("box.Fy", "N"), ("forces", "force (N)"))
        self.assertEqual(plot_gauges.group_of("box.My", "N*m/m"), ("moments", "moment (N*m/m)"))
        self.assertEqual(plot_gauges.group_of("box.Mz", "N*m"), ("moments", "moment (N*m)"))
        # Fx and Fz differ by the weight: each its own panel (one axis flattened Fx).
        self.assertEqual(plot_gauges.panel_of("box.Fz"), "box.Fz")
        self.assertEqual(plot_gauges.panel_of("wave.flap.My"), "wave.flap.My")
        self.assertEqual(plot_gauges.panel_of("P1.velocity_x"), "P1")

    def test_the_case_tells_fronts_from_levels_and_names_the_plots(self):
        case = os.path.join(self.dir, "dam.xml")
        with open(case, "w") as f:
            f.write('<sluice name="dam" dimension="2"><gauges interval="0.01">'
                    '<height name="H1" x="0.5"/><probe name="P1" point="0.2 0.1"/>'
                    '<front name="front" direction="+x"/></gauges></sluice>')
        with open(os.path.join(self.dir, "summary.json"), "w") as f:
            json.dump({"case": "dam", "case_file": case}, f)
        self.assertEqual(plot_gauges.group_of("front", "m", {"front": "front"}),
                         ("fronts", "front position (m)"))
        self.assertEqual(plot_gauges.group_of("H1", "m", {"H1": "height"}),
                         ("heights", "water level (m)"))
        out = os.path.join(self.dir, "plots")
        r = run(self.dir, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["fronts.png", "heights.png", "pressures.png",
                                                   "velocities.png"])
        self.assertEqual(sluice_case.run_case_name(self.dir), "dam")
        # Without the case the front is drawn with the levels; a missing --case is an error.
        os.remove(os.path.join(self.dir, "summary.json"))
        out = os.path.join(self.dir, "plots_without")
        self.assertEqual(run(self.dir, "--out", out).returncode, 0)
        self.assertNotIn("fronts.png", os.listdir(out))
        r = run(self.dir, "--case", os.path.join(self.dir, "none.xml"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("--case", r.stderr)

    def test_bodies_are_a_png_per_kind_and_a_panel_per_body(self):
        """bodies.csv of a 3D run with bodies `box` and `buoy`, in sluice's format."""
        folder = os.path.join(self.dir, "bodies_only")
        os.makedirs(folder)
        kinds = [(("x", "y", "z"), "m"), (("qw", "qx", "qy", "qz"), "1"),
                 (("roll", "pitch", "yaw"), "deg"), (("vx", "vy", "vz"), "m/s"),
                 (("wx", "wy", "wz"), "rad/s"), (("Fx", "Fy", "Fz"), "N"),
                 (("Mx", "My", "Mz"), "N*m"),
                 (("spring_Fx", "spring_Fy", "spring_Fz"), "N"),
                 (("contact_Fx", "contact_Fy", "contact_Fz"), "N")]
        columns = [(f"{body}.{field}", unit) for body in ("box", "buoy")
                   for fields, unit in kinds for field in fields]
        with open(os.path.join(folder, "bodies.csv"), "w") as f:
            f.write("# sluice floating bodies\n# t: s\n")
            f.write("".join(f"# {name}: {unit}\n" for name, unit in columns))
            f.write("t," + ",".join(name for name, _ in columns) + "\n")
            for tk in np.linspace(0.0, 1.0, 101):
                f.write(f"{tk:.6g}," + ",".join(f"{np.sin(3 * tk + k):.6g}"
                                                for k in range(len(columns))) + "\n")
        out = os.path.join(folder, "plots")
        r = run(folder)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)), [
            "bodies_angular_velocity.png", "bodies_forces.png", "bodies_moments.png",
            "bodies_position.png", "bodies_rotation.png", "bodies_springs_contacts.png",
            "bodies_velocity.png"])
        for png in os.listdir(out):
            self.assert_png(os.path.join(out, png))
        self.assertIsNone(plot_gauges.body_group_of("box.qw", "1"))
        self.assertEqual(plot_gauges.body_group_of("box.pitch", "deg"),
                         ("bodies_rotation", "angle (deg)"))
        self.assertEqual(plot_gauges.body_group_of("box.contact_Fz", "N/m"),
                         ("bodies_springs_contacts", "spring and contact force (N/m)"))
        self.assertEqual(plot_gauges.body_of("wave.flap.wy"), "wave.flap")
        sim = {"t": np.array([0.0, 1.0]), "box.z": np.array([0.4, 0.43]),
               "box.Fz": np.array([5.0, 6.0])}
        plot_gauges.displace_bodies(sim)
        np.testing.assert_allclose(sim["box.z"], [0.0, 0.03])
        np.testing.assert_allclose(sim["box.Fz"], [5.0, 6.0])

    def test_missing_run_is_a_clear_error(self):
        r = run(os.path.join(self.dir, "nowhere"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("gauges.csv not found", r.stderr)


if __name__ == "__main__":
    unittest.main()
