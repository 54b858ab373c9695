#!/usr/bin/env pvpython
"""Renders a sluice run with ParaView: fluid particles as Point Gaussian splats, coloured, the
walls and obstacles as a translucent grey layer, the camera framed on the fluid.

    pvbatch postprocess/render.py RUN_DIR [--time T | --all] [--field pressure|velocity]
                                  [--walls translucent|none] [--out DIR] [--size WxH]

(headless: `xvfb-run -a -s "-screen 0 1280x1024x24" pvbatch ...`, with LIBGL_ALWAYS_SOFTWARE=1
where there is no GPU; ParaView is the Debian package `paraview`.)

RUN_DIR is a sluice output folder: its .pvd series is opened and split by `type` (0 fluid,
1 boundary). Each fluid particle is drawn as a Gaussian splat of radius dp/2 (dp from
summary.json) and coloured by the field (velocity: its magnitude) with a range taken from the
fluid alone, over the frames drawn. The boundary particles (tank walls and obstacles) are
drawn as grey splats of the same size at opacity WALL_OPACITY, so the structures show without
hiding the water behind them (--walls none hides them). The camera is framed on the fluid, not
on the tank: on the box that holds the fluid's particles between the 0.5th and 99.5th
percentile along each axis (so a few drops of spray do not shrink the picture), joined over
the frames drawn (at most FRAMING_FRAMES of them, evenly spread, for --all), with a margin of
MARGIN of its size. 2D runs (x-z plane) are seen face on along +y in parallel projection,
the box filling the picture's width or height; 3D runs from the front-left, above, at the
distance where the box's bounding sphere fills the view's height.

--time T   the snapshot nearest to T s (default: the last one)
--all      every snapshot, as frame_NNNN.png (an animation's frames)
Writes DIR/<case>_<field>_t<T>.png (or the frames) to --out (default RUN_DIR/render).
"""
import argparse
import glob
import json
import math
import os
import sys

WALL_OPACITY = 0.3
MARGIN = 0.05  # of the fluid box's size, on every side
FRAMING_FRAMES = 24
SPRAY_PERCENTILE = 0.5  # per cent of the fluid's particles left out on each side, per axis
VIEW_ANGLE = 30.0  # degrees, ParaView's default
VIEW_FROM_3D = (-0.6, -1.6, 1.0)  # direction from the fluid to the camera: front-left, above


def robust_bounds(points, percentile=SPRAY_PERCENTILE):
    """[xmin, xmax, ymin, ymax, zmin, zmax] of an (n, 3) array of points between the given
    percentile and 100 minus it along each axis; None for no points."""
    import numpy as np

    points = np.asarray(points, dtype=float).reshape(-1, 3)
    if points.shape[0] == 0:
        return None
    lo = np.percentile(points, percentile, axis=0)
    hi = np.percentile(points, 100.0 - percentile, axis=0)
    return [float(v) for pair in zip(lo, hi) for v in pair]


def join_bounds(a, b):
    """The box holding both boxes (either may be None)."""
    if a is None or b is None:
        return a if b is None else b
    return [min(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), max(a[3], b[3]),
            min(a[4], b[4]), max(a[5], b[5])]


def frame_camera(bounds, aspect, two_d, margin=MARGIN):
    """The camera that frames the box `bounds` in a picture of width/height `aspect`:
    {focal, position, up, parallel_scale (2D, half the picture's height in m) or
    view_angle (3D, degrees)}."""
    size = [bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4]]
    centre = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]),
              0.5 * (bounds[4] + bounds[5])]
    extent = max(max(size), 1e-9)
    if two_d:  # the x-z plane, face on along +y
        half_height = max(0.5 * size[2], 0.5 * size[0] / aspect) * (1.0 + 2.0 * margin)
        half_height = max(half_height, 1e-3 * extent)
        return {"focal": centre, "position": [centre[0], centre[1] - 3.0 * extent, centre[2]],
                "up": [0.0, 0.0, 1.0], "parallel_scale": half_height}
    radius = 0.5 * math.sqrt(sum(d * d for d in size)) * (1.0 + 2.0 * margin)
    # The sphere fills the view's height (and its width when the picture is narrower).
    half_angle = math.radians(0.5 * VIEW_ANGLE)
    if aspect < 1.0:
        half_angle = math.atan(math.tan(half_angle) * aspect)
    distance = max(radius, 1e-9) / math.sin(half_angle)
    norm = math.sqrt(sum(d * d for d in VIEW_FROM_3D))
    position = [c + distance * d / norm for c, d in zip(centre, VIEW_FROM_3D)]
    return {"focal": centre, "position": position, "up": [0.0, 0.0, 1.0],
            "view_angle": VIEW_ANGLE}


def snapshot_files(pvd):
    """{time: path} of the snapshots a .pvd series lists."""
    import xml.etree.ElementTree as ET

    folder = os.path.dirname(pvd)
    return {float(d.get("timestep")): os.path.join(folder, d.get("file"))
            for d in ET.parse(pvd).getroot().iter("DataSet")}


def fluid_points(path):
    """(n, 3) array of the fluid particles' positions (type 0) of one .vtp or .pvtp snapshot,
    read with VTK (ParaView's own under pvbatch)."""
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLPPolyDataReader

    reader = vtkXMLPPolyDataReader() if path.endswith(".pvtp") else vtkXMLPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    if data.GetPoints() is None:
        return np.zeros((0, 3))
    points = vtk_to_numpy(data.GetPoints().GetData()).reshape(-1, 3)
    types = data.GetPointData().GetArray("type")
    return points if types is None else points[vtk_to_numpy(types) == 0]


def fluid_box(pvd, frames):
    """The box the camera frames: the fluid's robust bounds joined over at most FRAMING_FRAMES
    of the frames (evenly spread); None where no frame holds fluid."""
    files = snapshot_files(pvd)
    if len(frames) > FRAMING_FRAMES:
        step = (len(frames) - 1) / (FRAMING_FRAMES - 1)
        frames = [frames[round(k * step)] for k in range(FRAMING_FRAMES)]
    box = None
    for t in frames:
        path = files[min(files, key=lambda ft: abs(ft - t))]
        box = join_bounds(box, robust_bounds(fluid_points(path)))
    return box


def parse(argv):
    parser = argparse.ArgumentParser(
        description="Render a sluice run's particles with ParaView (pvbatch/pvpython).")
    parser.add_argument("run_dir", help="sluice output folder with a .pvd series")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--time", type=float, help="simulated time in s (nearest snapshot)")
    which.add_argument("--all", action="store_true", help="every snapshot, as numbered frames")
    parser.add_argument("--field", choices=["pressure", "velocity"], default="pressure")
    parser.add_argument("--walls", choices=["translucent", "none"], default="translucent",
                        help="boundary particles as translucent grey splats, or hidden")
    parser.add_argument("--out", help="output folder (default RUN_DIR/render)")
    parser.add_argument("--size", default="1280x720", help="image size WxH in pixels")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    pvds = sorted(glob.glob(os.path.join(args.run_dir, "*.pvd")))
    if not pvds:
        print(f"render: no .pvd series in {args.run_dir}", file=sys.stderr)
        return 2
    pvd = pvds[0]
    case = os.path.splitext(os.path.basename(pvd))[0]
    dp = None
    summary = os.path.join(args.run_dir, "summary.json")
    if os.path.exists(summary):
        with open(summary, encoding="utf-8") as f:
            dp = json.load(f).get("dp_m")
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"render: --size expects WxH, got {args.size!r}", file=sys.stderr)
        return 2
    out = args.out or os.path.join(args.run_dir, "render")
    os.makedirs(out, exist_ok=True)

    # Imported here so that --help works without ParaView.
    from paraview import simple as pv

    reader = pv.PVDReader(FileName=pvd)
    times = list(reader.TimestepValues) or [0.0]
    if args.all:
        frames = times
    elif args.time is not None:
        frames = [min(times, key=lambda t: abs(t - args.time))]
    else:
        frames = [times[-1]]

    fluid = pv.Threshold(Input=reader)
    fluid.Scalars = ["POINTS", "type"]
    fluid.LowerThreshold = 0
    fluid.UpperThreshold = 0
    array = "pressure" if args.field == "pressure" else "velocity"

    # Colour range over the fluid of every frame drawn.
    lo, hi = float("inf"), float("-inf")
    for t in frames:
        fluid.UpdatePipeline(t)
        info = fluid.GetDataInformation().GetPointDataInformation().GetArrayInformation(array)
        if info is None:
            continue
        component = -1 if array == "velocity" else 0  # -1: magnitude
        r = info.GetComponentRange(component)
        lo, hi = min(lo, r[0]), max(hi, r[1])
    if not lo <= hi:
        lo, hi = 0.0, 1.0

    view = pv.GetActiveViewOrCreate("RenderView")
    view.ViewSize = [width, height]
    view.Background = [1, 1, 1]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    view.OrientationAxesVisibility = 1
    display = pv.Show(fluid, view)
    display.SetRepresentationType("Point Gaussian")
    bounds = reader.GetDataInformation().GetBounds()
    extent = max(bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4])
    radius = 0.5 * dp if dp else 0.005 * extent
    display.GaussianRadius = radius
    if args.walls == "translucent":
        walls = pv.Threshold(Input=reader)
        walls.Scalars = ["POINTS", "type"]
        walls.LowerThreshold = 1
        walls.UpperThreshold = 1
        wall_display = pv.Show(walls, view)
        wall_display.SetRepresentationType("Point Gaussian")
        wall_display.GaussianRadius = radius
        # A solid colour (ColorBy(display, None) raises in Debian 12's ParaView 5.11).
        wall_display.ColorArrayName = ["POINTS", ""]
        wall_display.AmbientColor = [0.55, 0.55, 0.55]
        wall_display.DiffuseColor = [0.55, 0.55, 0.55]
        wall_display.Opacity = WALL_OPACITY
    pv.ColorBy(display, ("POINTS", array, "Magnitude" if array == "velocity" else ""))
    lut = pv.GetColorTransferFunction(array)
    lut.ApplyPreset("Rainbow Uniform", True)
    lut.RescaleTransferFunction(lo, hi)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = "pressure (Pa)" if array == "pressure" else "|velocity| (m/s)"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    display.SetScalarBarVisibility(view, True)

    two_d = bounds[3] - bounds[2] < 1e-9
    box = fluid_box(pvd, frames)
    if box is None:
        print("render: no fluid in the frames drawn; framing the whole data set")
        box = list(bounds)
    camera = frame_camera(box, width / height, two_d)
    view.CameraFocalPoint = camera["focal"]
    view.CameraPosition = camera["position"]
    view.CameraViewUp = camera["up"]
    view.CameraParallelProjection = 1 if two_d else 0
    if two_d:
        view.CameraParallelScale = camera["parallel_scale"]
    else:
        view.CameraViewAngle = camera["view_angle"]

    for k, t in enumerate(frames):
        view.ViewTime = t
        fluid.UpdatePipeline(t)
        name = (f"frame_{k:04d}.png" if args.all else f"{case}_{args.field}_t{t:.3f}.png")
        path = os.path.join(out, name)
        pv.SaveScreenshot(path, view, ImageResolution=[width, height])
        print(f"render: wrote {path} (t = {t:g} s)")
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip ParaView's teardown: under Xvfb with software GL it can fail with a GLX error after
    # every image is written, which would turn a good render into a failed command.
    os._exit(code)
