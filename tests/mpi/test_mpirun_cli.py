#!/usr/bin/env python3
"""`mpirun -np 2 sluice run` as a user meets it when things go wrong: a run that becomes
unstable stops on every process at the same step with exit code 3 and leaves the failing state
as pieces named by one .pvtp; Ctrl-C (SIGINT to mpirun, which passes it on) stops every process at the
same step with a checkpoint per process (and no snapshot of its own), and `--restart`
continues it with the same number of processes, then from the end of that run to a later end
time, or with another number (the state merged and cut afresh); `sluice bench` reports every process's time
split; `--processes N` starts the processes itself. Exits 77 (ctest: skipped) without mpirun."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
SLUICE = os.environ.get("SLUICE_BINARY", os.path.join(SOURCE, "build", "bin", "sluice"))

if shutil.which("mpirun") is None:
    print("SKIP: mpirun not found (Debian: openmpi-bin)")
    sys.exit(77)

ENV = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE",
           OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")

# The densities of a dam break exceed 1.003·ρ0 within a few hundred steps: an instability as
# far as the run is concerned.
FAILING = """<sluice name="fails" dimension="2">
  <geometry dp="0.02">
    <fluid min="0 0" max="0.6 0.8"/>
    <tank min="0 0" max="2 1" faces="bottom left right"/>
  </geometry>
  <physics densityMax="1.003"/>
  <run endTime="1.0" outputInterval="0.01"/>
</sluice>
"""

LONG = """<sluice name="long" dimension="2">
  <geometry dp="0.01">
    <fluid min="0 0" max="0.6 0.8"/>
    <tank min="0 0" max="2 1" faces="bottom left right"/>
  </geometry>
  <run endTime="2.0" outputInterval="0.01"/>
</sluice>
"""

# Water thrown at 2.5 m/s towards the open right side of the tank: about a third of it leaves
# the domain by t = 0.12 s (tests/solver/app/test_cli_losses.cpp runs it in one process).
LEAKING = """<sluice name="leaking" dimension="2">
  <geometry dp="0.02">
    <fluid min="0 0" max="0.4 0.2" velocity="2.5 0"/>
    <tank min="0 0" max="0.5 0.5" faces="bottom left"/>
  </geometry>
  <run endTime="0.12" outputInterval="0.02"/>
</sluice>
"""


def mpirun(*args):
    return ["mpirun", "-np", "2", SLUICE, *args]


def pvd_series(run, name):
    """The (file, time) entries of a series' .pvd, in order."""
    with open(os.path.join(run, name + ".pvd")) as f:
        pvd = f.read()
    return [(line.split('file="')[1].split('"')[0], float(line.split('timestep="')[1].split('"')[0]))
            for line in pvd.splitlines() if 'file="' in line]


class MpirunCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def test_failure_stops_every_process_and_leaves_the_failing_pieces(self):
        self.write("fails.xml", FAILING)
        r = subprocess.run(mpirun("run", "fails.xml", "--backend", "cpu", "--out", "run"),
                           cwd=self.dir, capture_output=True, text=True,
                           env=ENV, timeout=600)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("simulation failed at step", r.stderr)
        run = os.path.join(self.dir, "run")
        files = set(os.listdir(run))
        self.assertTrue({"fails_failed.pvtp", "fails_failed_0.vtp", "fails_failed_1.vtp"} <= files,
                        files)
        self.assertFalse([f for f in files if f.endswith(".tmp")], files)
        with open(os.path.join(run, "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["status"], "failed")
        self.assertEqual(summary["decomposition"]["processes"], 2)
        with open(os.path.join(run, "fails_failed.pvtp")) as f:
            pvtp = f.read()
        self.assertIn('Source="fails_failed_0.vtp"', pvtp)
        self.assertIn('Source="fails_failed_1.vtp"', pvtp)

    def test_interrupt_checkpoints_every_process_and_restarts(self):
        self.write("long.xml", LONG)
        p = subprocess.Popen(mpirun("run", "long.xml", "--backend", "cpu", "--out", "run"),
                             cwd=self.dir, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=ENV)
        # Once the run is set up (it says how the domain was cut), let it step a while.
        first = ""
        while "processes, slabs along" not in first:
            line = p.stdout.readline()
            self.assertTrue(line, "the run ended before it started stepping")
            first += line
        time.sleep(3)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=300)
        out = first + out
        # mpirun passes the signal on (as SIGTERM, which sluice treats alike) and ends non-zero
        # itself, whatever its processes return; each process writes its piece and stops.
        self.assertNotEqual(p.returncode, 0, out + err)
        self.assertIn("interrupted at t =", err)
        run = os.path.join(self.dir, "run")
        pieces = sorted(f for f in os.listdir(run) if f.endswith(".chk"))
        self.assertEqual(len(pieces), 2, pieces)  # one per process, the same step
        self.assertEqual(pieces[0].rsplit("_", 1)[0], pieces[1].rsplit("_", 1)[0])
        with open(os.path.join(run, "summary.json")) as f:
            self.assertEqual(json.load(f)["status"], "interrupted")
        # No snapshot of its own: only the output times k * 0.01 s, numbered k.
        for k, (file, t) in enumerate(pvd_series(run, "long")):
            self.assertEqual(file, "long_%04d.pvtp" % k)
            self.assertAlmostEqual(t, 0.01 * k, delta=0.002)
        step = int(pieces[0].split("_")[2])
        r = subprocess.run(mpirun("run", "long.xml", "--backend", "cpu", "--restart", "run",
                                  "--end-time", "0.15"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        if r.returncode == 2 and "already at the end time" in r.stderr:
            self.skipTest("the interrupted run had passed 0.15 s")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("restarting at", r.stdout)
        with open(os.path.join(run, "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["status"], "completed")
        self.assertEqual(summary["restart"]["step"], step)
        self.assertIn("--end-time", summary["command_line"])
        finished = pvd_series(run, "long")
        self.assertEqual(len(finished), 16)  # t = 0, 0.01, ..., 0.15
        # To a later end time: from the checkpoint the finished run wrote at its end, appending.
        r = subprocess.run(mpirun("run", "long.xml", "--backend", "cpu", "--restart", "run",
                                  "--end-time", "0.17"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("restarting at t = 0.15", r.stdout)
        continued = pvd_series(run, "long")
        self.assertEqual(continued[:16], finished)
        self.assertEqual(len(continued), 18)
        for k, (file, t) in enumerate(continued):
            self.assertEqual(file, "long_%04d.pvtp" % k)
            self.assertAlmostEqual(t, 0.01 * k, delta=0.002)
            self.assertTrue(os.path.exists(os.path.join(run, file)), file)

    def test_restart_under_another_number_of_processes(self):
        """Checkpoints of 2 processes continue over 3, and theirs in one process: the whole
        state is merged and cut afresh; the series keeps every snapshot in the form it was
        written in (.pvtp of 2 pieces, of 3, then .vtp), one .pvd listing them all."""
        self.write("long.xml", LONG)
        legs = [(mpirun, "0.04", None), (lambda *a: ["mpirun", "-np", "3", SLUICE, *a], "0.06", 2),
                (lambda *a: [SLUICE, *a], "0.08", 3)]
        for launch, end, wrote in legs:
            start = ["--out", "run"] if wrote is None else ["--restart", "run"]
            r = subprocess.run(launch("run", "long.xml", "--backend", "cpu", *start,
                                      "--end-time", end, "--checkpoint-interval", "0.02"),
                               cwd=self.dir, capture_output=True, text=True, env=ENV,
                               timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(os.path.join(self.dir, "run", "summary.json")) as f:
                summary = json.load(f)
            self.assertEqual(summary["status"], "completed")
            if wrote is not None:
                self.assertIn(f"from the checkpoint of {wrote} processes", r.stdout)
                self.assertEqual(summary["restart"]["processes"], wrote)
        run = os.path.join(self.dir, "run")
        with open(os.path.join(run, "long.pvd")) as f:
            pvd = f.read()
        files = [line.split('file="')[1].split('"')[0] for line in pvd.splitlines()
                 if 'file="' in line]
        times = [float(line.split('timestep="')[1].split('"')[0]) for line in pvd.splitlines()
                 if 'timestep="' in line]
        self.assertEqual(len(files), 9, pvd)  # t = 0, 0.01, ..., 0.08
        self.assertEqual(times, sorted(times))
        self.assertAlmostEqual(times[-1], 0.08, delta=0.005)
        for f in files:
            self.assertTrue(os.path.exists(os.path.join(run, f)), f)
        self.assertEqual(files[4], "long_0004.pvtp")  # the first leg's last
        self.assertEqual(files[6], "long_0006.pvtp")  # the second leg's, of 3 pieces
        self.assertEqual(files[8], "long_0008.vtp")   # one process
        with open(os.path.join(run, "long_0006.pvtp")) as f:
            self.assertEqual(f.read().count("<Piece "), 3)
        with open(os.path.join(run, "long_0004.pvtp")) as f:
            self.assertEqual(f.read().count("<Piece "), 2)

    def test_lost_fluid_is_counted_over_every_process(self):
        """The slab faces cut the leaking water: every process counts every exclusion, the first
        prints them (five named, then counts per interval), and all end with exit code 4."""
        self.write("leaking.xml", LEAKING)
        r = subprocess.run(mpirun("run", "leaking.xml", "--backend", "cpu", "--out", "run"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        with open(os.path.join(self.dir, "run", "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["status"], "lost_particles")
        lost = summary["lost_particles"]
        self.assertTrue(lost["exceeded"])
        self.assertEqual(lost["fluid"], summary["particles"]["final"]["excluded"])
        self.assertEqual(lost["fluid_at_start"], summary["particles"]["initial"]["fluid"])
        self.assertGreater(lost["fluid"], lost["fluid_at_start"] // 4)
        self.assertEqual(sum(p["particles"]["excluded"]
                             for p in summary["decomposition"]["per_process"]), lost["fluid"])
        # The log lines go where the progress goes (stderr), the end's to stdout.
        self.assertEqual(r.stderr.count("left the domain at ("), 5, r.stderr)
        self.assertIn(f"total {lost['fluid']}, ", r.stderr)
        self.assertIn(f"{lost['fluid']} of {lost['fluid_at_start']} fluid particles (", r.stdout)
        self.assertEqual(r.stderr.count("sluice: error: "), 1, r.stderr)

    def test_bench_reports_every_process(self):
        self.write("fails.xml", FAILING.replace('<physics densityMax="1.003"/>', ""))
        r = subprocess.run(mpirun("bench", "fails.xml", "--steps", "5", "--warmup", "12",
                                  "--balance-interval", "4", "--modules",
                                  "counting-sort/strips/1,linked-list/moore/1", "--csv",
                                  "bench.csv"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("over 2 processes", r.stdout)
        self.assertIn("12 warm-up + 5 timed steps", r.stdout)
        self.assertIn("slabs balanced every 4 steps", r.stdout)
        self.assertIn("| process | particles |", r.stdout)
        self.assertEqual(r.stdout.count("| process |"), 2)  # a table per module
        with open(os.path.join(self.dir, "bench.csv")) as f:
            rows = f.read().splitlines()
        self.assertEqual(len(rows), 1 + 2 * 2)  # header, 2 modules x 2 processes
        self.assertTrue(rows[0].endswith("halo_ms,migration_ms,waiting_ms"), rows[0])
        r = subprocess.run(mpirun("bench", "fails.xml", "--end-time", "0.01"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("leave out --end-time", r.stderr)
        # From the checkpoint of a run over two processes (its pieces merged, cut afresh).
        r = subprocess.run(mpirun("run", "fails.xml", "--backend", "cpu", "--end-time", "0.01",
                                  "--out", "dev"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = subprocess.run(mpirun("bench", "fails.xml", "--steps", "3", "--warmup", "2",
                                  "--from-state", "dev", "--modules", "counting-sort/strips/1",
                                  "--csv", "bench_dev.csv"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"timed steps from the checkpoint \S+ \(t = 0\.01")
        self.assertEqual(r.stdout.count("| process |"), 1)

    def test_processes_option_starts_them_through_mpirun(self):
        self.write("short.xml", FAILING.replace('<physics densityMax="1.003"/>', "")
                   .replace('endTime="1.0"', 'endTime="0.02"'))
        r = subprocess.run([SLUICE, "run", "short.xml", "--processes", "2", "--backend", "cpu",
                            "--out", "spawned"],
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("process 1:", r.stdout)
        out = os.path.join(self.dir, "spawned")
        for name in ("fails.pvd", "fails_0000.pvtp", "fails_0000_0.vtp", "fails_0000_1.vtp"):
            self.assertTrue(os.path.exists(os.path.join(out, name)), name)
        # --gpus checks the host's GPUs first (none visible here), and neither option nests
        # under mpirun.
        r = subprocess.run([SLUICE, "run", "short.xml", "--gpus", "2"], cwd=self.dir,
                           capture_output=True, text=True,
                           env=dict(ENV, CUDA_VISIBLE_DEVICES=""), timeout=600)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--gpus 2: this host has 0 GPU(s)", r.stderr)
        r = subprocess.run(mpirun("run", "short.xml", "--processes", "2", "--backend", "cpu"),
                           cwd=self.dir, capture_output=True, text=True, env=ENV, timeout=600)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("give it without mpirun", r.stderr)


if __name__ == "__main__":
    unittest.main()
