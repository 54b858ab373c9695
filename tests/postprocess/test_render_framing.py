#!/usr/bin/env python3
"""postprocess/render.py's framing, without ParaView: the fluid's box read from a real sluice
run (walls left out), spray that does not widen it, and the camera that makes it fill the
picture in 2D and 3D. Needs numpy and VTK's Python modules (Debian: python3-numpy
python3-vtk9, or ParaView's own under python3-paraview); exits 77 (ctest: skipped) without."""
import math
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
    import vtkmodules.vtkIOXML  # noqa: F401
except ImportError as e:
    print(f"SKIP: {e} (Debian: python3-numpy python3-vtk9)")
    sys.exit(77)

SOURCE = os.environ.get("SLUICE_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
SLUICE = os.environ.get("SLUICE_BINARY", os.path.join(SOURCE, "build", "bin", "sluice"))
sys.path.insert(0, os.path.join(SOURCE, "postprocess"))
import render  # noqa: E402  (ParaView is imported only inside render.main)

CASE = """<sluice name="splash" dimension="2">
  <geometry dp="0.05">
    <fluid min="0 0" max="0.5 0.5"/>
    <tank min="0 0" max="1 1" faces="bottom left right"/>
  </geometry>
  <run endTime="0.1" outputInterval="0.05"/>
</sluice>
"""


class Framing(unittest.TestCase):
    def test_spray_does_not_widen_the_box(self):
        rng = np.random.default_rng(1)
        water = np.column_stack([rng.uniform(0, 1, 5000), np.zeros(5000),
                                 rng.uniform(0, 0.5, 5000)])
        spray = np.array([[3.0, 0.0, 2.0], [-2.0, 0.0, 1.5]])  # two drops far out
        box = render.robust_bounds(np.vstack([water, spray]))
        self.assertAlmostEqual(box[0], 0.0, delta=0.02)
        self.assertAlmostEqual(box[1], 1.0, delta=0.02)
        self.assertAlmostEqual(box[5], 0.5, delta=0.01)
        self.assertIsNone(render.robust_bounds(np.zeros((0, 3))))
        self.assertEqual(render.join_bounds(None, [0, 1, 0, 0, 0, 2]), [0, 1, 0, 0, 0, 2])
        self.assertEqual(render.join_bounds([0, 1, 0, 0, 0, 2], [-1, 0.5, 0, 0, 1, 3]),
                         [-1, 1, 0, 0, 0, 3])

    def test_2d_box_fills_the_picture(self):
        margin = render.MARGIN
        # A wide box (2 m x 0.5 m) in a 16:9 picture: its width sets the scale.
        cam = render.frame_camera([0, 2, 0, 0, 0, 0.5], 16 / 9, True)
        self.assertAlmostEqual(cam["parallel_scale"] * 16 / 9, 1.0 * (1 + 2 * margin))
        self.assertEqual(cam["focal"], [1.0, 0.0, 0.25])
        self.assertEqual(cam["up"], [0.0, 0.0, 1.0])
        self.assertLess(cam["position"][1], 0.0)  # in front of the x-z plane, looking along +y
        # A tall box (0.3 m x 1 m): its height sets it.
        cam = render.frame_camera([0, 0.3, 0, 0, 0, 1], 16 / 9, True)
        self.assertAlmostEqual(cam["parallel_scale"], 0.5 * (1 + 2 * margin))

    def test_3d_sphere_fills_the_view_height(self):
        box = [0, 1, 0, 1, 0, 0.5]
        cam = render.frame_camera(box, 16 / 9, False)
        radius = 0.5 * math.sqrt(1 + 1 + 0.25) * (1 + 2 * render.MARGIN)
        distance = math.dist(cam["position"], cam["focal"])
        self.assertAlmostEqual(distance * math.sin(math.radians(cam["view_angle"] / 2)), radius)
        self.assertGreater(cam["position"][2], cam["focal"][2])  # from above
        # A portrait picture: the width limits, so the camera stands farther back.
        portrait = render.frame_camera(box, 0.5, False)
        self.assertGreater(math.dist(portrait["position"], portrait["focal"]), distance)

    @unittest.skipUnless(os.path.exists(SLUICE), f"{SLUICE} not built")
    def test_box_of_a_run_is_the_fluid_not_the_tank(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "splash.xml"), "w") as f:
                f.write(CASE)
            r = subprocess.run([SLUICE, "run", "splash.xml", "--backend", "cpu", "--out", "run"],
                               cwd=tmp, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            pvd = os.path.join(tmp, "run", "splash.pvd")
            files = render.snapshot_files(pvd)
            self.assertEqual(len(files), 3)
            # t = 0: the lattice of the fluid box, centres dp/2 inside its faces; the walls
            # (x < 0, x > 1, z < 0) are left out.
            box = render.fluid_box(pvd, [0.0])
            for got, want in zip(box, [0.025, 0.475, 0, 0, 0.025, 0.475]):
                self.assertAlmostEqual(got, want, places=6)
            self.assertEqual(len(render.fluid_points(files[0.0])), 100)
            # Over the run the water spreads right: the box grows but stays inside the tank.
            late = render.fluid_box(pvd, sorted(files))
            self.assertGreater(late[1], 0.475)
            self.assertGreaterEqual(late[0], 0.0)
            self.assertLessEqual(late[1], 1.0)



class RegionAndWalls(unittest.TestCase):
    def test_region_is_four_numbers_in_2d_and_six_in_3d(self):
        self.assertEqual(render.region_box([1, 3, 0, 0.5], True), [1, 3, 0.0, 0.0, 0, 0.5])
        self.assertEqual(render.region_box([0, 1, 0, 2, 0, 3], False), [0, 1, 0, 2, 0, 3])
        for values, two_d, message in (([1, 3, 0], True, "4 numbers"),
                                       ([0, 1, 0, 1], False, "6 numbers"),
                                       ([3, 1, 0, 1], True, "x extent"),
                                       ([0, 1, 0, 0, 0, 1], False, "y extent")):
            with self.assertRaises(ValueError) as e:
                render.region_box(values, two_d)
            self.assertIn(message, str(e.exception))

    def test_walls_written_first_only_are_found_for_every_frame(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "splash.xml"), "w") as f:
                f.write(CASE.replace("</geometry>", '<obstacle name="box" min="0.6 0.3" '
                                     'max="0.8 0.4"><floating density="500"/></obstacle>'
                                     "</geometry>"))
            for boundary in ("first", "every"):
                r = subprocess.run([SLUICE, "run", "splash.xml", "--backend", "cpu", "--out",
                                    boundary, "--boundary-output", boundary], cwd=tmp,
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            pvd = os.path.join(tmp, "first", "splash.pvd")
            path = render.fixed_walls(pvd, tmp)
            self.assertIsNotNone(path)
            files = render.snapshot_files(pvd)
            first_ids, _ = render.boundary_ids(files[min(files)])
            fixed = render.fluid_points(path)  # no type array: every point
            # The tank's particles: all the first snapshot's walls but the floating box's 4 x 2.
            self.assertEqual(fixed.shape[0], first_ids.size - 8)
            self.assertIsNone(render.fixed_walls(os.path.join(tmp, "every", "splash.pvd"), tmp))


class ColourBarRoom(unittest.TestCase):
    def test_a_2d_picture_keeps_its_bottom_for_the_bar(self):
        box = [0, 2, 0, 0, 0, 0.5]
        cam = render.frame_camera(box, 16 / 9, True)
        room = render.leave_room_below(cam, 0.2)
        # The box's top edge stays where it was in the picture; its bottom edge now lies 20 %
        # of the picture's height above the bottom.
        top = cam["focal"][2] + cam["parallel_scale"]
        self.assertAlmostEqual(room["focal"][2] + room["parallel_scale"], top)
        bottom_of_picture = room["focal"][2] - room["parallel_scale"]
        box_bottom = cam["focal"][2] - cam["parallel_scale"]
        self.assertAlmostEqual((box_bottom - bottom_of_picture) / (2 * room["parallel_scale"]),
                               0.2)
        self.assertEqual(room["focal"][0], cam["focal"][0])
        self.assertAlmostEqual(room["position"][2] - room["focal"][2],
                               cam["position"][2] - cam["focal"][2])

if __name__ == "__main__":
    unittest.main()
