#!/usr/bin/env python3
"""postprocess/render.py with a free-surface series (`sluice surface`) and --movie: the 2D
water body's fill (even-odd, bubbles left out) without ParaView; with the real pvbatch on short
runs of still water (2D and 3D), a picture of the surface that differs from the particles' and
whose water-coloured pixels lie where the water is and nowhere above it, --draw auto taking the
surface, the surface series' own times for --all, a movie that ffprobe reads with one frame per
snapshot, a movie written whole or not at all when ffmpeg fails, and a clear refusal (exit 2)
where ffmpeg is not installed. Tests that need a tool that is missing (Debian: paraview
python3-paraview xvfb xauth libgl1-mesa-dri for pvbatch, ffmpeg for the movie; the test set-up,
.ci/run, installs them) are skipped, and the script then exits 77 (ctest: skipped) unless one
failed."""
import math
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
sys.path.insert(0, os.path.join(SOURCE, "postprocess"))
import render  # noqa: E402  (ParaView is imported only inside render.main)
import render_surface  # noqa: E402  (ParaView comes only as its drawing functions' argument)

try:
    import numpy as np
except ImportError:
    np = None


def pvbatch_missing():
    """Why render.py cannot be run under pvbatch here (a message), or None."""
    for tool in ("pvbatch", "xvfb-run"):
        if shutil.which(tool) is None:
            return f"{tool} not found (Debian: paraview xvfb xauth libgl1-mesa-dri)"
    if subprocess.run([sys.executable, "-c", "import paraview"],
                      capture_output=True).returncode != 0:
        # pvbatch runs its scripts with the system Python's paraview package, which .ci/setup
        # removes while it builds (it conflicts with libvtk9-dev); .ci/run adds it.
        return "the paraview Python package is not installed (Debian: python3-paraview)"
    return None


NO_PVBATCH = pvbatch_missing()
NO_FFMPEG = next((f"{tool} not found (Debian: ffmpeg)" for tool in ("ffmpeg", "ffprobe")
                  if shutil.which(tool) is None), None)

# Still water across a tank (2D: 1 m x 0.3 m; 3D: 0.5 m x 0.5 m x 0.3 m): it stays where it was
# put, so a picture's water is known to lie there.
POOL_2D = """<sluice name="pool" dimension="2">
  <geometry dp="0.02">
    <fluid min="0 0" max="1 0.3"/>
    <tank min="0 0" max="1 0.6" faces="bottom left right"/>
  </geometry>
  <run endTime="0.1" outputInterval="0.05"/>
</sluice>
"""
POOL_3D = """<sluice name="pool3" dimension="3">
  <geometry dp="0.05">
    <fluid min="0 0 0" max="0.5 0.5 0.3"/>
    <tank min="0 0 0" max="0.5 0.5 0.6" faces="bottom left right front back"/>
  </geometry>
  <run endTime="0.05" outputInterval="0.05"/>
</sluice>
"""
REGION_2D = [-0.1, 1.1, -0.1, 0.7]  # X0 X1 Z0 Z1: the tank and some room around it
REGION_3D = [-0.05, 0.55, -0.05, 0.55, -0.05, 0.65]
SIZE = (400, 300)


def png_rgb(path):
    """(width, height, rows) of an 8-bit RGB/RGBA PNG, decoded by hand: rows[y][x] = (r, g, b)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 3
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
    rows, prev = [], bytearray(stride)
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
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        prev = line
    return width, height, rows


def watery(rgb):
    """Water's colour in these pictures: still water coloured by velocity on a 0-1 range is the
    blue end of the colour map (2D: over the pale blue body; 3D: shaded, and seen through the
    translucent grey front wall), not the white background nor the grey walls."""
    r, g, b = rgb
    return b - r > 30 and b - g > 20 and b > 80


def water_share(rows, centre, half=3):
    """The share of watery pixels in the (2 half + 1)-pixel square around `centre` (col, row)."""
    col, row = (int(round(v)) for v in centre)
    patch = [rows[y][x] for y in range(row - half, row + half + 1)
             for x in range(col - half, col + half + 1)]
    return sum(map(watery, patch)) / len(patch)


def watery_outside(rows, corners, keep_out, margin=4):
    """The watery pixels (col, row) that lie outside the box around the pixels `corners` (the
    water's corners, drawn) grown by `margin` px, other than those for which keep_out(col, row)
    holds (the colour bar, whose low end is water's blue)."""
    cols = [c for c, _ in corners]
    rws = [r for _, r in corners]
    lo_c, hi_c = min(cols) - margin, max(cols) + margin
    lo_r, hi_r = min(rws) - margin, max(rws) + margin
    return [(x, y) for y, row in enumerate(rows) for x, rgb in enumerate(row)
            if watery(rgb) and not (lo_c <= x <= hi_c and lo_r <= y <= hi_r)
            and not keep_out(x, y)]


def pixel_2d(point, size):
    """(col, row) of a point (x, z) in a 2D picture framed on REGION_2D (render.py's camera)."""
    width, height = size
    box = [REGION_2D[0], REGION_2D[1], 0.0, 0.0, REGION_2D[2], REGION_2D[3]]
    camera = render.leave_room_below(render.frame_camera(box, width / height, True))
    per_pixel = 2.0 * camera["parallel_scale"] / height  # m
    return (0.5 * width + (point[0] - camera["focal"][0]) / per_pixel,
            0.5 * height - (point[1] - camera["focal"][2]) / per_pixel)


def pixel_3d(point, size):
    """(col, row) of a point (x, y, z) in a 3D picture framed on REGION_3D: render.py's camera,
    a perspective projection with a vertical view angle."""
    width, height = size
    camera = render.frame_camera(REGION_3D, width / height, False)
    eye, focal, up = camera["position"], camera["focal"], camera["up"]

    def unit(v):
        n = math.sqrt(sum(c * c for c in v))
        return [c / n for c in v]

    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

    forward = unit([f - e for f, e in zip(focal, eye)])
    right = unit(cross(forward, up))
    true_up = cross(right, forward)
    d = [p - e for p, e in zip(point, eye)]
    depth = sum(a * b for a, b in zip(d, forward))
    tan_half = math.tan(math.radians(0.5 * camera["view_angle"]))
    ndc_x = sum(a * b for a, b in zip(d, right)) / (depth * tan_half * width / height)
    ndc_y = sum(a * b for a, b in zip(d, true_up)) / (depth * tan_half)
    return 0.5 * width * (1.0 + ndc_x), 0.5 * height * (1.0 - ndc_y)


def headless_pvbatch(args, env=None):
    """pvbatch ARGS under xvfb-run with software GL; a try that met a refused X connection (a
    race between X servers starting at once on a busy machine, not render.py) is run again
    after a pause, each try with its own auth file (as test_render.py)."""
    env = dict(env or os.environ, LIBGL_ALWAYS_SOFTWARE="1")
    for attempt in range(5):
        with tempfile.TemporaryDirectory() as auth:
            r = subprocess.run(["xvfb-run", "-a", "-f", os.path.join(auth, "Xauthority"), "-s",
                                "-screen 0 1280x1024x24", "pvbatch", *args],
                               capture_output=True, text=True, env=env, timeout=300)
        if "bad X server connection" not in r.stdout + r.stderr:
            break
        time.sleep(2 * (attempt + 1))
    return r


def sluice(*args, cwd):
    r = subprocess.run([SLUICE, *args], cwd=cwd, capture_output=True, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def pool_runs(folder, dimension):
    """A still-water run in `folder`/run with its free surface, and a copy without the surface
    (`folder`/bare); returns (run, bare)."""
    name = "pool" if dimension == 2 else "pool3"
    with open(os.path.join(folder, name + ".xml"), "w") as f:
        f.write(POOL_2D if dimension == 2 else POOL_3D)
    sluice("run", name + ".xml", "--backend", "cpu", "--out", "run", cwd=folder)
    run, bare = os.path.join(folder, "run"), os.path.join(folder, "bare")
    shutil.copytree(run, bare)
    sluice("surface", "run", "--backend", "cpu", cwd=folder)
    return run, bare


@unittest.skipIf(np is None, "numpy not found (Debian: python3-numpy)")
class Fill(unittest.TestCase):
    """The 2D water body inside the surface's loops, without ParaView."""

    @staticmethod
    def loop(points):
        points = np.asarray(points, dtype=float)
        return np.stack([points, np.roll(points, -1, axis=0)], axis=1)

    @staticmethod
    def area(triangles):
        a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
        return 0.5 * np.abs((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1])
                            - (c[:, 0] - a[:, 0]) * (b[:, 1] - a[:, 1])).sum()

    def test_a_bubble_is_left_out_and_a_drop_filled(self):
        tank = self.loop([[0, 0], [4, 0], [4, 4], [0, 4]])
        bubble = self.loop([[1, 1], [1, 3], [3, 3], [3, 1]])  # the other way round: no matter
        drop = self.loop([[5, 0], [7, 0], [6, 2]])
        triangles = render_surface.fill_triangles(np.concatenate([tank, bubble, drop]))
        self.assertAlmostEqual(self.area(triangles), 16 - 4 + 2)
        centres = triangles.mean(axis=1)
        in_bubble = ((centres[:, 0] > 1) & (centres[:, 0] < 3) & (centres[:, 1] > 1)
                     & (centres[:, 1] < 3))
        self.assertFalse(in_bubble.any(), "a triangle fills the bubble")

    def test_a_wavy_loop_is_filled_exactly(self):
        # A crest over a trough (a concave loop with many vertices, some of them sharing an x):
        # the fill's area is the shoelace formula's.
        x = np.linspace(0, 2, 81)
        top = np.column_stack([x, 1 + 0.3 * np.sin(5 * x)])
        points = np.vstack([[[0, 0], [2, 0]], top[::-1]])
        triangles = render_surface.fill_triangles(self.loop(points))
        shoelace = 0.5 * abs(np.sum(points[:, 0] * np.roll(points[:, 1], -1)
                                    - np.roll(points[:, 0], -1) * points[:, 1]))
        self.assertAlmostEqual(self.area(triangles), shoelace, places=9)

    def test_no_loops_no_triangles(self):
        self.assertEqual(render_surface.fill_triangles(np.zeros((0, 2, 2))).shape, (0, 3, 2))


class Series(unittest.TestCase):
    """Which series render.py draws and at which times, without ParaView."""

    def test_surface_frames_and_the_nearest_surface(self):
        times = [0.0, 0.05, 0.1, 0.15, 0.2]
        surfaces = {0.0: "s0", 0.1000001: "s2", 0.2: "s4"}  # `sluice surface --every 2`
        self.assertEqual(render_surface.surface_frames(times, surfaces), [0.0, 0.1, 0.2])
        self.assertEqual(render_surface.nearest(surfaces, 0.13), (0.1000001, "s2"))

    def test_particle_series_is_the_case_not_the_surface(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("a_surface.pvd", "a_z.pvd", "a.pvd"):
                open(os.path.join(tmp, name), "w").close()
            self.assertEqual(render.particle_series(tmp), os.path.join(tmp, "a.pvd"))
            self.assertEqual(render_surface.surface_series(os.path.join(tmp, "a.pvd")),
                             os.path.join(tmp, "a_surface.pvd"))
            os.remove(os.path.join(tmp, "a.pvd"))
            self.assertEqual(render.particle_series(tmp), os.path.join(tmp, "a_z.pvd"))
            self.assertIsNone(render_surface.surface_series(os.path.join(tmp, "a_z.pvd")))

    def test_written_series_lists_files_relative_with_exact_times(self):
        import xml.etree.ElementTree as ET

        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "scratch"))
            t = 0.1 + 0.2  # not a short decimal
            path = render_surface.write_series([(t, os.path.join(tmp, "run", "s_0001.vtp"))],
                                               os.path.join(tmp, "scratch", "s.pvd"))
            entry = next(ET.parse(path).getroot().iter("DataSet"))
            self.assertEqual(float(entry.get("timestep")), t)
            self.assertEqual(entry.get("file"), os.path.join("..", "run", "s_0001.vtp"))


@unittest.skipUnless(os.path.exists(SLUICE), f"{SLUICE} not built")
class MovieWithoutFfmpeg(unittest.TestCase):
    def test_refused_with_the_package_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "pool.xml"), "w") as f:
                f.write(POOL_2D)
            sluice("run", "pool.xml", "--backend", "cpu", "--end-time", "0.01", "--out", "run",
                   cwd=tmp)
            empty = os.path.join(tmp, "bin")  # a PATH without ffmpeg (nor anything else)
            os.makedirs(empty)
            movie = os.path.join(tmp, "movie.mp4")
            # The check comes before ParaView is imported: the system Python runs it as pvbatch
            # would.
            r = subprocess.run([sys.executable, SCRIPT, os.path.join(tmp, "run"), "--movie",
                                movie], capture_output=True, text=True,
                               env=dict(os.environ, PATH=empty))
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn("--movie needs ffmpeg", r.stderr)
            self.assertIn("apt-get install ffmpeg", r.stderr)
            self.assertFalse(os.path.exists(movie))
            r = subprocess.run([sys.executable, SCRIPT, os.path.join(tmp, "run"), "--movie",
                                movie, "--time", "0"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn("takes no --time", r.stderr)


@unittest.skipIf(NO_PVBATCH, NO_PVBATCH)
@unittest.skipUnless(os.path.exists(SLUICE), f"{SLUICE} not built")
class Surface2D(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.run_dir, cls.bare_dir = pool_runs(cls.dir, 2)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def picture(self, run_dir, draw, name):
        out = os.path.join(self.dir, name)
        r = headless_pvbatch([SCRIPT, run_dir, "--time", "0.1", "--draw", draw, "--field",
                              "velocity", "--range", "0", "1", "--region",
                              *map(str, REGION_2D), "--size", "%dx%d" % SIZE, "--out", out])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        files = os.listdir(out)
        self.assertEqual(len(files), 1, files)
        return os.path.join(out, files[0])

    def test_surface_is_drawn_where_the_water_is(self):
        surface = self.picture(self.run_dir, "surface", "surface")
        self.assertEqual(os.path.basename(surface), "pool_surface_velocity_t0.100.png")
        particles = self.picture(self.run_dir, "particles", "particles")
        with open(surface, "rb") as f, open(particles, "rb") as g:
            self.assertNotEqual(f.read(), g.read(), "the surface looks like the particles")
        width, height, rows = png_rgb(surface)
        self.assertEqual((width, height), SIZE)
        # Inside the water (0 < x < 1, 0 < z < 0.3, away from its edges): filled with water.
        for point in ((0.5, 0.15), (0.15, 0.07), (0.85, 0.22)):
            self.assertGreater(water_share(rows, pixel_2d(point, SIZE)), 0.9,
                               f"no water drawn at {point}")
        # Above it: none; nor anywhere but in the water's box (the colour bar, at the bottom,
        # aside).
        self.assertEqual(water_share(rows, pixel_2d((0.5, 0.45), SIZE)), 0.0)
        corners = [pixel_2d(p, SIZE) for p in ((0, 0), (1, 0), (0, 0.3), (1, 0.3))]
        stray = watery_outside(rows, corners,
                               lambda x, y: y >= (1.0 - render.BAR_ROOM) * height)
        self.assertEqual(stray, [], "water drawn where there is none")
        # The surface's line along the top of the water: coloured (blue on this range), 3 px
        # wide, a little above the top particles' centres (0.29 m), below 0.3 m + a spacing.
        col, _ = pixel_2d((0.5, 0.0), SIZE)
        top = min(y for y in range(height) if watery(rows[y][int(col)]))
        self.assertLess(abs(pixel_2d((0.5, 0.3), SIZE)[1] - top), 4)

    def test_auto_draws_the_surface_where_there_is_one(self):
        with open(self.picture(self.run_dir, "auto", "auto"), "rb") as f:
            auto = f.read()
        with open(self.picture(self.run_dir, "surface", "surface_again"), "rb") as f:
            self.assertEqual(auto, f.read())
        with open(self.picture(self.bare_dir, "auto", "auto_bare"), "rb") as f:
            bare = f.read()
        with open(self.picture(self.run_dir, "particles", "particles_again"), "rb") as f:
            self.assertEqual(bare, f.read())
        r = headless_pvbatch([SCRIPT, self.bare_dir, "--draw", "surface", "--out",
                              os.path.join(self.dir, "refused")])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("sluice surface", r.stderr)

    def test_all_draws_the_surfaces_times(self):
        # A surface of every second snapshot (t = 0 and 0.1 of 0, 0.05, 0.1).
        every = os.path.join(self.dir, "every")
        shutil.copytree(self.bare_dir, every)
        sluice("surface", "every", "--backend", "cpu", "--every", "2", cwd=self.dir)
        out = os.path.join(self.dir, "every_frames")
        r = headless_pvbatch([SCRIPT, every, "--all", "--size", "160x120", "--out", out])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["frame_0000.png", "frame_0001.png"])
        self.assertIn("t = 0.1", r.stdout.strip().splitlines()[-1])
        # --time between them: the nearest surface, said so.
        r = headless_pvbatch([SCRIPT, every, "--time", "0.05", "--size", "160x120", "--out",
                              out])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("drawn with the surface of t = ", r.stdout)


@unittest.skipIf(NO_PVBATCH, NO_PVBATCH)
@unittest.skipUnless(os.path.exists(SLUICE), f"{SLUICE} not built")
class Surface3D(unittest.TestCase):
    def test_surface_is_drawn_where_the_water_is(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_dir, _ = pool_runs(tmp, 3)
            pictures = {}
            for draw in ("surface", "particles"):
                out = os.path.join(tmp, draw)
                r = headless_pvbatch([SCRIPT, run_dir, "--draw", draw, "--field", "velocity",
                                      "--range", "0", "1", "--region", *map(str, REGION_3D),
                                      "--size", "%dx%d" % SIZE, "--out", out])
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                (name,) = os.listdir(out)
                pictures[draw] = os.path.join(out, name)
            with open(pictures["surface"], "rb") as f, open(pictures["particles"], "rb") as g:
                self.assertNotEqual(f.read(), g.read(), "the surface looks like the particles")
            width, height, rows = png_rgb(pictures["surface"])
            # The water's middle, the middle of its top, near a corner: water.
            for point in ((0.25, 0.25, 0.15), (0.25, 0.25, 0.3), (0.1, 0.1, 0.1),
                          (0.4, 0.4, 0.25)):
                self.assertGreater(water_share(rows, pixel_3d(point, SIZE), 2), 0.9,
                                   f"no water drawn at {point}")
            # Nowhere else (the colour bar, at the bottom right, aside): not above the water,
            # not on the walls.
            corners = [pixel_3d((x, y, z), SIZE) for x in (0, 0.5) for y in (0, 0.5)
                       for z in (0, 0.3)]
            stray = watery_outside(rows, corners,
                                   lambda x, y: x >= 0.65 * width and y >= 0.5 * height)
            self.assertEqual(stray, [], "water drawn where there is none")


@unittest.skipIf(NO_PVBATCH, NO_PVBATCH)
@unittest.skipIf(NO_FFMPEG, NO_FFMPEG)
@unittest.skipUnless(os.path.exists(SLUICE), f"{SLUICE} not built")
class Movie(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.run_dir, _ = pool_runs(cls.dir, 2)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_one_frame_per_snapshot(self):
        folder = os.path.join(self.dir, "movies")  # made by render.py
        movie = os.path.join(folder, "pool.mp4")
        # An odd size: the codec needs even sides, so the picture is padded.
        r = headless_pvbatch([SCRIPT, self.run_dir, "--movie", movie, "--fps", "10",
                              "--size", "161x121"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(os.listdir(folder), ["pool.mp4"])  # no temporary file left
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams",
                                "v:0", "-show_entries",
                                "stream=nb_read_frames,width,height,r_frame_rate,codec_name",
                                "-of", "default=noprint_wrappers=1", movie],
                               capture_output=True, text=True)
        self.assertEqual(probe.returncode, 0, probe.stderr)
        info = dict(line.split("=", 1) for line in probe.stdout.split())
        self.assertEqual(info["nb_read_frames"], "3")  # t = 0, 0.05, 0.1
        self.assertEqual((info["width"], info["height"]), ("162", "122"))
        self.assertEqual(info["r_frame_rate"], "10/1")
        self.assertEqual(info["codec_name"], "h264")
        # The frames were drawn in a temporary folder: none in the run folder.
        self.assertFalse(os.path.exists(os.path.join(self.run_dir, "render")))

    def test_frames_kept_with_out_and_a_failed_encoding_leaves_the_old_movie(self):
        out = os.path.join(self.dir, "frames")
        movie = os.path.join(self.dir, "kept.mp4")
        r = headless_pvbatch([SCRIPT, self.run_dir, "--movie", movie, "--size", "160x120",
                              "--out", out])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(sorted(os.listdir(out)),
                         ["frame_0000.png", "frame_0001.png", "frame_0002.png"])
        with open(movie, "rb") as f:
            good = f.read()
        # An ffmpeg that writes half a file and fails: the movie there stays as it was.
        fake = os.path.join(self.dir, "fakebin")
        os.makedirs(fake, exist_ok=True)
        with open(os.path.join(fake, "ffmpeg"), "w") as f:
            f.write('#!/bin/sh\nfor last; do :; done\nprintf half > "$last"\n'
                    'echo "encoder exploded" >&2\nexit 1\n')
        os.chmod(os.path.join(fake, "ffmpeg"), 0o755)
        env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get("PATH", ""))
        r = headless_pvbatch([SCRIPT, self.run_dir, "--movie", movie, "--size", "160x120",
                              "--out", out], env=env)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("encoder exploded", r.stderr)
        with open(movie, "rb") as f:
            self.assertEqual(f.read(), good)
        self.assertEqual(sorted(n for n in os.listdir(self.dir) if "kept" in n), ["kept.mp4"])


if __name__ == "__main__":
    result = unittest.main(exit=False).result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.skipped:  # a tool is missing: shown as skipped, not passed (ctest: exit 77)
        print("SKIP: " + "; ".join(sorted({reason for _, reason in result.skipped})))
        sys.exit(77)
    sys.exit(0)
