#!/usr/bin/env python3
"""postprocess/render.py with the real pvbatch on a short sluice run: one frame, the whole
series, a picture that is not blank, walls written in the first snapshot only drawn in a later
frame as if written there, a region, a colour range and the density field, bad options refused. Exits 77 (ctest: skipped) where ParaView's pvbatch or
xvfb-run is not installed (Debian: paraview python3-paraview xvfb xauth libgl1-mesa-dri; the
test set-up, .ci/run, installs them)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
SLUICE = os.environ.get("SLUICE_BINARY", os.path.join(SOURCE, "build", "bin", "sluice"))
SCRIPT = os.path.join(SOURCE, "postprocess", "render.py")

for tool in ("pvbatch", "xvfb-run"):
    if shutil.which(tool) is None:
        print(f"SKIP: {tool} not found (install paraview and xvfb to test render.py)")
        sys.exit(77)
if subprocess.run([sys.executable, "-c", "import paraview"], capture_output=True).returncode != 0:
    # pvbatch runs its scripts with the system Python's paraview package (python3-paraview),
    # which .ci/setup removes while it builds (it conflicts with libvtk9-dev); .ci/run adds it.
    print("SKIP: the paraview Python package is not installed (Debian: python3-paraview)")
    sys.exit(77)

CASE = """<sluice name="splash" dimension="2">
  <geometry dp="0.05">
    <fluid min="0 0" max="0.5 0.5"/>
    <tank min="0 0" max="1 1" faces="bottom left right"/>
  </geometry>
  <run endTime="0.1" outputInterval="0.05"/>
</sluice>
"""


def png_pixels(path):
    """(width, height, distinct RGB colours) of an 8-bit RGB/RGBA PNG, decoded by hand."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            channels = {2: 3, 6: 4}[body[9]]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    colours, prev = set(), bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, channels * 7):
            colours.add(bytes(line[x:x + 3]))
        prev = line
    return width, height, len(colours)


def headless_pvbatch(args):
    """pvbatch ARGS under xvfb-run with software GL. xvfb-run -a picks a free display by its lock
    file, which races with other X servers starting or stopping at the same moment, and on a busy
    machine (ctest -j beside a CPU validation run) pvbatch has met a refused connection three
    times in a row: that is the harness, not render.py. So each try has its own auth file (the
    default is ./.Xauthority, shared by every xvfb-run started here), and a refused one is tried
    again after a pause that grows."""
    env = dict(os.environ, LIBGL_ALWAYS_SOFTWARE="1")
    for attempt in range(5):
        with tempfile.TemporaryDirectory() as auth:
            r = subprocess.run(["xvfb-run", "-a", "-f", os.path.join(auth, "Xauthority"), "-s",
                                "-screen 0 1280x1024x24", "pvbatch", *args],
                               capture_output=True, text=True, env=env, timeout=300)
        if "bad X server connection" not in r.stdout + r.stderr:
            break
        time.sleep(2 * (attempt + 1))
    return r


class Render(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        with open(os.path.join(cls.dir, "splash.xml"), "w") as f:
            f.write(CASE)
        r = subprocess.run([SLUICE, "run", "splash.xml", "--backend", "cpu", "--out", "run"],
                           cwd=cls.dir, capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        cls.run_dir = os.path.join(cls.dir, "run")
        # The walls in the first snapshot only.
        r = subprocess.run([SLUICE, "run", "splash.xml", "--backend", "cpu", "--out", "first",
                            "--boundary-output", "first"], cwd=cls.dir, capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        cls.first_dir = os.path.join(cls.dir, "first")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def render(self, *args):
        return headless_pvbatch([SCRIPT, self.run_dir, *args])

    def test_one_frame_shows_coloured_fluid(self):
        out = os.path.join(self.dir, "one")
        r = self.render("--time", "0.05", "--field", "velocity", "--out", out, "--size", "320x240")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        path = os.path.join(out, "splash_velocity_t0.050.png")
        width, height, colours = png_pixels(path)
        self.assertEqual((width, height), (320, 240))
        self.assertGreater(colours, 5, "the picture is blank or one colour")

    def test_walls_show_unless_hidden(self):
        pictures = {}
        for walls in ("translucent", "none"):
            out = os.path.join(self.dir, "walls_" + walls)
            r = self.render("--time", "0.05", "--walls", walls, "--out", out, "--size",
                            "320x240")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            path = os.path.join(out, "splash_pressure_t0.050.png")
            self.assertGreater(png_pixels(path)[2], 5, "the picture is blank or one colour")
            with open(path, "rb") as f:
                pictures[walls] = f.read()
        self.assertNotEqual(pictures["translucent"], pictures["none"], "the walls do not show")

    def test_walls_written_once_show_in_every_frame(self):
        pictures = {}
        for run_dir in (self.run_dir, self.first_dir):
            out = os.path.join(self.dir, "once_" + os.path.basename(run_dir))
            r = headless_pvbatch([SCRIPT, run_dir, "--time", "0.1", "--out", out, "--size",
                                  "320x240", "--range", "0", "2000"])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(os.path.join(out, "splash_pressure_t0.100.png"), "rb") as f:
                pictures[run_dir] = f.read()
        # The same walls, drawn from the first snapshot: the same picture.
        self.assertEqual(pictures[self.run_dir], pictures[self.first_dir])

    def test_region_range_and_any_field(self):
        out = os.path.join(self.dir, "region")
        r = self.render("--time", "0.05", "--field", "density", "--range", "990", "1010",
                        "--region", "0", "0.25", "0", "0.25", "--out", out, "--size", "320x240")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertGreater(png_pixels(os.path.join(out, "splash_density_t0.050.png"))[2], 5)
        for args, message in ((("--range", "2", "1"), "--range needs LO < HI"),
                              (("--region", "0", "1", "0"), "--region takes 4 numbers")):
            r = self.render("--time", "0.05", "--out", out, *args)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn(message, r.stderr)

    def test_whole_series(self):
        out = os.path.join(self.dir, "all")
        r = self.render("--all", "--out", out, "--size", "160x120")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sorted(os.listdir(out)),
                         ["frame_0000.png", "frame_0001.png", "frame_0002.png"])


@unittest.skipIf(shutil.which("mpirun") is None, "mpirun not found (Debian: openmpi-bin)")
class RenderSeveralProcesses(unittest.TestCase):
    """A run over two processes (`mpirun -np 2`): its .pvd lists .pvtp files, one piece per
    process, and ParaView shows them as one data set."""

    def test_pieces_render_as_one_picture(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "splash.xml"), "w") as f:
                f.write(CASE)
            env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
                       OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
            r = subprocess.run(["mpirun", "-np", "2", SLUICE, "run", "splash.xml", "--backend",
                                "cpu", "--out", "run"], cwd=tmp, capture_output=True, text=True,
                               env=env, timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            run_dir = os.path.join(tmp, "run")
            self.assertTrue(os.path.exists(os.path.join(run_dir, "splash_0001.pvtp")))
            out = os.path.join(tmp, "one")
            r = headless_pvbatch([SCRIPT, run_dir, "--time", "0.05", "--field", "velocity",
                                  "--out", out, "--size", "320x240"])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            width, height, colours = png_pixels(os.path.join(out, "splash_velocity_t0.050.png"))
            self.assertEqual((width, height), (320, 240))
            self.assertGreater(colours, 5, "the picture is blank or one colour")


if __name__ == "__main__":
    unittest.main()
