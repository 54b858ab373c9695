#!/usr/bin/env pvpython
"""Renders a sluice run with ParaView: fluid particles as Point Gaussian splats, coloured.

    pvbatch postprocess/render.py RUN_DIR [--time T | --all] [--field pressure|velocity]
                                  [--out DIR] [--size WxH]

(headless: `xvfb-run -a -s "-screen 0 1280x1024x24" pvbatch ...`, with LIBGL_ALWAYS_SOFTWARE=1
where there is no GPU; ParaView is the Debian package `paraview`.)

RUN_DIR is a sluice output folder: its .pvd series is opened, the walls are hidden (a threshold
on `type` keeps the fluid, type 0), each particle is drawn as a Gaussian splat of radius dp/2
(dp from summary.json) and coloured by the field (velocity: its magnitude) with a range taken
from the fluid alone, over the frames drawn. The camera is placed from the domain's bounds:
2D runs (x-z plane) are seen face on along +y, 3D runs from the front-left, above.

--time T   the snapshot nearest to T s (default: the last one)
--all      every snapshot, as frame_NNNN.png (an animation's frames)
Writes DIR/<case>_<field>_t<T>.png (or the frames) to --out (default RUN_DIR/render).
"""
import argparse
import glob
import json
import os
import sys


def parse(argv):
    parser = argparse.ArgumentParser(
        description="Render a sluice run's particles with ParaView (pvbatch/pvpython).")
    parser.add_argument("run_dir", help="sluice output folder with a .pvd series")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--time", type=float, help="simulated time in s (nearest snapshot)")
    which.add_argument("--all", action="store_true", help="every snapshot, as numbered frames")
    parser.add_argument("--field", choices=["pressure", "velocity"], default="pressure")
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
    display.GaussianRadius = 0.5 * dp if dp else 0.005 * extent
    pv.ColorBy(display, ("POINTS", array, "Magnitude" if array == "velocity" else ""))
    lut = pv.GetColorTransferFunction(array)
    lut.ApplyPreset("Rainbow Uniform", True)
    lut.RescaleTransferFunction(lo, hi)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = "pressure (Pa)" if array == "pressure" else "|velocity| (m/s)"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    display.SetScalarBarVisibility(view, True)

    centre = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]),
              0.5 * (bounds[4] + bounds[5])]
    two_d = bounds[3] - bounds[2] < 1e-9
    view.CameraFocalPoint = centre
    if two_d:  # the x-z plane, face on
        view.CameraPosition = [centre[0], centre[1] - 3 * extent, centre[2]]
        view.CameraViewUp = [0, 0, 1]
    else:
        view.CameraPosition = [centre[0] - 0.6 * extent, centre[1] - 1.6 * extent,
                               centre[2] + 1.0 * extent]
        view.CameraViewUp = [0, 0, 1]
    view.ResetCamera()
    view.CameraParallelProjection = 1 if two_d else 0

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
