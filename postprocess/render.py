#!/usr/bin/env pvpython
"""Renders a sluice run with ParaView: the water as its free surface (where `sluice surface`
made one) or as fluid particles, coloured, the walls and obstacles as a translucent grey layer,
the camera framed on the fluid; a picture, every snapshot's, or a movie.

    pvbatch postprocess/render.py RUN_DIR [--time T | --all] [--movie FILE.mp4 [--fps F]]
                                  [--draw surface|particles|auto]
                                  [--field pressure|velocity|density]
                                  [--range LO HI] [--region X0 X1 [Y0 Y1] Z0 Z1]
                                  [--walls translucent|none] [--out DIR] [--size WxH]

(headless: `xvfb-run -a -s "-screen 0 1280x1024x24" pvbatch ...`, with LIBGL_ALWAYS_SOFTWARE=1
where there is no GPU; ParaView is the Debian package `paraview`, --movie needs `ffmpeg`.)

RUN_DIR is a sluice output folder: its particle series, <case>.pvd, is opened and split by
`type` (0 fluid, 1 boundary). The water is drawn one of two ways (--draw; auto, the default,
takes the surface where RUN_DIR holds <case>_surface.pvd, else the particles):
- surface: the free surface `sluice surface RUN_DIR` wrote (<case>_surface_NNNN.vtp), coloured
  by the field on its points. 3D: its triangles, smooth-shaded on its normals. 2D: its lines
  SURFACE_LINE_WIDTH px wide around the water body, filled in WATER_RGB, with the fluid
  particles drawn faintly over it (opacity FAINT_OPACITY, coloured alike). Each frame takes
  the surface of the nearest time (a note is printed where that is not the frame's own); --all
  and --movie draw the snapshots that have a surface (every N-th for `sluice surface --every
  N`). Spray too thin to hold a surface shows in 2D only (its faint particles).
- particles: each fluid particle a Gaussian splat of radius dp/2 (dp from summary.json).
The colour range (velocity: its magnitude) is the water's over the frames drawn (a movie's
colours mean the same in every frame). The boundary particles (tank walls and obstacles) are
drawn as grey splats of the same size at opacity WALL_OPACITY, so the structures show without
hiding the water behind them (--walls none hides them). The camera is framed on the fluid, not
on the tank: on the box that holds the fluid's particles between the 0.5th and 99.5th
percentile along each axis (so a few drops of spray do not shrink the picture), joined over
the frames drawn (at most FRAMING_FRAMES of them, evenly spread, for --all), with a margin of
MARGIN of its size. 2D runs (x-z plane) are seen face on along +y in parallel projection,
the box filling the picture's width or height above a band along the bottom (BAR_ROOM of the
picture) that holds the colour bar; 3D runs from the front-left, above, at the
distance where the box's bounding sphere fills the view's height.

--time T   the snapshot nearest to T s (default: the last one)
--all      every snapshot, as frame_NNNN.png (an animation's frames)
--movie FILE.mp4         every snapshot (as --all), encoded by ffmpeg (H.264, yuv420p) at
                         --fps F frames per second (default DEFAULT_FPS); the frames go to a
                         temporary folder, removed afterwards, unless --out is given. The movie
                         is written whole or not at all (a temporary name beside it, renamed).
                         Without ffmpeg on PATH: exit status 2 before anything is drawn.
--range LO HI            the colour bar's range (default: the water's over the frames drawn)
--region X0 X1 Z0 Z1     (3D: X0 X1 Y0 Y1 Z0 Z1, m) frame this box instead of the fluid's: a
                         zoom on a part of a long flume, or a fixed frame for a movie
Each picture is stamped with its time. A run that wrote its walls in the first snapshot only
(`<output boundary="first">`) has them drawn in every frame: the first snapshot's boundary
particles that the later ones do not carry (the moving and floating objects are in every one).
Writes DIR/<case>_<field>_t<T>.png (the surface: <case>_surface_<field>_t<T>.png, or the
frames) to --out (default RUN_DIR/render). Exit status 2 for options that do not fit the run.

The free-surface and movie helpers (and SURFACE_LINE_WIDTH, WATER_RGB) are in render_surface.py.
"""
import argparse
import glob
import json
import math
import os
import shutil
import sys
import tempfile

# render_surface.py lies beside this script, here and where installed (CMakeLists.txt installs
# every postprocess/*.py side by side). python3 and pvbatch put a script's folder on the path;
# it is put there here too, for a render.py imported or started some other way.
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import render_surface  # noqa: E402

WALL_OPACITY = 0.3
MARGIN = 0.05  # of the fluid box's size, on every side
FRAMING_FRAMES = 24
SPRAY_PERCENTILE = 0.5  # per cent of the fluid's particles left out on each side, per axis
VIEW_ANGLE = 30.0  # degrees, ParaView's default
VIEW_FROM_3D = (-0.6, -1.6, 1.0)  # direction from the fluid to the camera: front-left, above
BAR_ROOM = 0.16  # 2D: the bottom part of the picture left to the (horizontal) colour bar
FAINT_OPACITY = 0.35  # 2D: the fluid particles drawn over the water body, inside its surface
DEFAULT_FPS = 20


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


def leave_room_below(camera, fraction=BAR_ROOM):
    """A 2D camera (frame_camera's) widened so that the box it framed keeps its place in the top
    1 - `fraction` of the picture, and the bottom `fraction` is free for the colour bar."""
    out = dict(camera)
    half = camera["parallel_scale"] / (1.0 - fraction)
    shift = half - camera["parallel_scale"]  # the top edge stays: focal moves down by this
    out["parallel_scale"] = half
    out["focal"] = [camera["focal"][0], camera["focal"][1], camera["focal"][2] - shift]
    out["position"] = [camera["position"][0], camera["position"][1],
                       camera["position"][2] - shift]
    return out


def snapshot_files(pvd):
    """{time: path} of the snapshots a .pvd series lists."""
    import xml.etree.ElementTree as ET

    folder = os.path.dirname(pvd)
    return {float(d.get("timestep")): os.path.join(folder, d.get("file"))
            for d in ET.parse(pvd).getroot().iter("DataSet")}


def particle_series(run_dir):
    """The run's particle series: RUN_DIR/<case>.pvd with <case> from summary.json where that
    file names one that exists, else the first .pvd by name that is not a free-surface series
    (`*_surface.pvd`); None for a folder without one. (`sluice measure` and `sluice surface`
    write their own .pvd series, <case>_<name>.pvd, beside the particles'.)"""
    summary = os.path.join(run_dir, "summary.json")
    if os.path.exists(summary):
        with open(summary, encoding="utf-8") as f:
            case = json.load(f).get("case")
        if case and os.path.exists(os.path.join(run_dir, case + ".pvd")):
            return os.path.join(run_dir, case + ".pvd")
    pvds = [p for p in sorted(glob.glob(os.path.join(run_dir, "*.pvd")))
            if not p.endswith("_surface.pvd")]
    return pvds[0] if pvds else None


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


def boundary_ids(path):
    """(ids, points) of the boundary particles (type 1) of one .vtp or .pvtp snapshot."""
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLPPolyDataReader

    reader = vtkXMLPPolyDataReader() if path.endswith(".pvtp") else vtkXMLPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    if data.GetPoints() is None or data.GetPointData().GetArray("type") is None:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 3))
    wall = vtk_to_numpy(data.GetPointData().GetArray("type")) == 1
    ids = vtk_to_numpy(data.GetPointData().GetArray("id"))[wall]
    return ids, vtk_to_numpy(data.GetPoints().GetData()).reshape(-1, 3)[wall]


def fixed_walls(pvd, folder):
    """Where a series carries its fixed walls in its first snapshot only: those walls (the first
    snapshot's boundary particles absent from the last one, whose boundary particles are the
    moving and floating objects) written as `folder`/fixed_walls.vtp, whose path is returned;
    None when the last snapshot carries as many boundary particles as the first."""
    import numpy as np
    from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
    from vtkmodules.vtkIOXML import vtkXMLPolyDataWriter

    files = snapshot_files(pvd)
    if len(files) < 2:
        return None
    first_ids, first_points = boundary_ids(files[min(files)])
    last_ids, _ = boundary_ids(files[max(files)])
    if last_ids.size >= first_ids.size:
        return None
    points = first_points[~np.isin(first_ids, last_ids)]
    data = vtkPolyData()
    vtk_points = vtkPoints()
    vtk_points.SetData(numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float32), deep=True))
    data.SetPoints(vtk_points)
    vertices = vtkCellArray()  # a vertex per point, built at once (no Python loop)
    n = points.shape[0]
    vertices.SetData(numpy_to_vtkIdTypeArray(np.arange(n + 1, dtype=np.int64), deep=True),
                     numpy_to_vtkIdTypeArray(np.arange(n, dtype=np.int64), deep=True))
    data.SetVerts(vertices)
    path = os.path.join(folder, "fixed_walls.vtp")
    writer = vtkXMLPolyDataWriter()
    writer.SetFileName(path)
    writer.SetInputData(data)
    writer.Write()
    return path


def particles_of_type(pv, reader, kind):
    """The particles of `type` `kind` (0 fluid, 1 boundary) of `reader`'s series."""
    threshold = pv.Threshold(Input=reader)
    threshold.Scalars = ["POINTS", "type"]
    threshold.LowerThreshold = kind
    threshold.UpperThreshold = kind
    return threshold


def show_fluid(pv, source, view, radius, opacity):
    """`source`'s points as Point Gaussian splats of `radius` at `opacity` in `view`; returns
    the display, for the caller to colour."""
    display = pv.Show(source, view)
    display.SetRepresentationType("Point Gaussian")
    display.GaussianRadius = radius
    if opacity < 1.0:
        display.Opacity = opacity
    return display


def show_walls(pv, source, view, radius):
    """`source`'s points as translucent grey Point Gaussian splats of `radius` in `view`."""
    display = pv.Show(source, view)
    display.SetRepresentationType("Point Gaussian")
    display.GaussianRadius = radius
    # A solid colour (ColorBy(display, None) raises in Debian 12's ParaView 5.11).
    display.ColorArrayName = ["POINTS", ""]
    display.AmbientColor = [0.55, 0.55, 0.55]
    display.DiffuseColor = [0.55, 0.55, 0.55]
    display.Opacity = WALL_OPACITY


def region_box(values, two_d):
    """[xmin, xmax, ymin, ymax, zmin, zmax] of --region's numbers (X0 X1 Z0 Z1 in 2D, X0 X1 Y0
    Y1 Z0 Z1 in 3D); raises ValueError for the wrong count or an empty extent."""
    if two_d and len(values) == 4:
        box = [values[0], values[1], 0.0, 0.0, values[2], values[3]]
    elif not two_d and len(values) == 6:
        box = list(values)
    else:
        raise ValueError(f"--region takes {'4 numbers (X0 X1 Z0 Z1)' if two_d else '6 numbers'}"
                         f" for a {'2D' if two_d else '3D'} run, got {len(values)}")
    for lo, hi, axis in ((box[0], box[1], "x"), (box[2], box[3], "y"), (box[4], box[5], "z")):
        if lo > hi or (lo == hi and not (two_d and axis == "y")):
            raise ValueError(f"--region: its {axis} extent {lo:g} .. {hi:g} is empty")
    return box


def parse(argv):
    parser = argparse.ArgumentParser(
        description="Render a sluice run's water with ParaView (pvbatch/pvpython).")
    parser.add_argument("run_dir", help="sluice output folder with a .pvd series")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--time", type=float, help="simulated time in s (nearest snapshot)")
    which.add_argument("--all", action="store_true", help="every snapshot, as numbered frames")
    parser.add_argument("--movie", metavar="FILE.mp4",
                        help="every snapshot (as --all), encoded by ffmpeg into an H.264 MP4")
    parser.add_argument("--fps", type=float, default=DEFAULT_FPS,
                        help=f"the movie's frames per second (default {DEFAULT_FPS})")
    parser.add_argument("--draw", choices=["surface", "particles", "auto"], default="auto",
                        help="the water as its free surface (`sluice surface`), as particles, "
                             "or auto: the surface where the run folder holds its series")
    parser.add_argument("--field", choices=["pressure", "velocity", "density"],
                        default="pressure")
    parser.add_argument("--range", nargs=2, type=float, metavar=("LO", "HI"),
                        help="colour range (default: the water's over the frames drawn)")
    parser.add_argument("--region", nargs="+", type=float, metavar="M",
                        help="frame this box: X0 X1 Z0 Z1 (2D) or X0 X1 Y0 Y1 Z0 Z1 (3D), m")
    parser.add_argument("--walls", choices=["translucent", "none"], default="translucent",
                        help="boundary particles as translucent grey splats, or hidden")
    parser.add_argument("--out", help="output folder (default RUN_DIR/render; for --movie, a "
                                      "temporary folder that is removed)")
    parser.add_argument("--size", default="1280x720", help="image size WxH in pixels")
    return parser.parse_args(argv)


class Refused(Exception):
    """A command that cannot be carried out as given (exit status 2, the message on stderr)."""


def fail(message):
    """Prints `render: message` on stderr; returns 2, the exit status of a refused command."""
    print(f"render: {message}", file=sys.stderr)
    return 2


def colour_range(sources, frames, array):
    """(lo, hi) of `array` (velocity: its magnitude) on the points of `sources` over the frames'
    times; (0, 1) where no frame holds it."""
    lo, hi = float("inf"), float("-inf")
    for source in sources:
        for t in frames:
            source.UpdatePipeline(t)
            info = source.GetDataInformation().GetPointDataInformation().GetArrayInformation(
                array)
            if info is None:
                continue
            r = info.GetComponentRange(-1 if array == "velocity" else 0)  # -1: the magnitude
            lo, hi = min(lo, r[0]), max(hi, r[1])
    return (lo, hi) if lo <= hi else (0.0, 1.0)


def render_frames(args, pvd, case, dp, size, surfaces, every, out, scratch):
    """Draws the pictures that `args` ask for into `out` (frame_NNNN.png for every snapshot, else
    one <case>_<field>_t<T>.png, <case>_surface_<field>_t<T>.png for the surface) and returns how
    many. `surfaces`: the free-surface series, {time: path}, drawn instead of the fluid particles
    where not empty; --all then draws the snapshots that have a surface. Temporary files go to
    `scratch`. Raises Refused for options that do not fit the run (--region's count)."""
    # Imported here so that --help and the checks of the options work without ParaView.
    from paraview import simple as pv

    width, height = size
    reader = pv.PVDReader(FileName=pvd)
    times = list(reader.TimestepValues) or [0.0]
    if every:
        frames = render_surface.surface_frames(times, surfaces) if surfaces else times
    elif args.time is not None:
        frames = [min(times, key=lambda t: abs(t - args.time))]
    else:
        frames = [times[-1]]
    reader.UpdatePipeline(frames[0])  # the data information below is of the data read
    bounds = reader.GetDataInformation().GetBounds()
    two_d = bounds[3] - bounds[2] < 1e-9
    extent = max(bounds[1] - bounds[0], bounds[3] - bounds[2], bounds[5] - bounds[4])
    radius = 0.5 * dp if dp else 0.005 * extent
    array = args.field

    view = pv.GetActiveViewOrCreate("RenderView")
    view.ViewSize = [width, height]
    view.Background = [1, 1, 1]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    view.OrientationAxesVisibility = 1
    colour = ("POINTS", array, "Magnitude" if array == "velocity" else "")
    if surfaces:
        surface, display = render_surface.show_surface(pv, view, frames, surfaces, two_d,
                                                       render_surface.FILL_SHIFT * extent,
                                                       scratch)
        coloured = [surface]
        if two_d:  # the particles faintly over the water body, inside the surface's lines
            fluid = particles_of_type(pv, reader, 0)
            faint = show_fluid(pv, fluid, view, radius, FAINT_OPACITY)
            pv.ColorBy(faint, colour)
            coloured.append(fluid)
    else:
        fluid = particles_of_type(pv, reader, 0)
        display = show_fluid(pv, fluid, view, radius, 1.0)
        coloured = [fluid]
    # The colour range over the water of every frame drawn.
    lo, hi = args.range if args.range else colour_range(coloured, frames, array)
    if args.walls == "translucent":
        show_walls(pv, particles_of_type(pv, reader, 1), view, radius)
        first_only = fixed_walls(pvd, scratch)
        if first_only:  # walls written in the first snapshot only: drawn in every frame
            show_walls(pv, pv.XMLPolyDataReader(FileName=[first_only]), view, radius)
    pv.ColorBy(display, colour)
    lut = pv.GetColorTransferFunction(array)
    lut.ApplyPreset("Rainbow Uniform", True)
    lut.RescaleTransferFunction(lo, hi)
    bar = pv.GetScalarBar(lut, view)
    bar.Title = {"pressure": "pressure (Pa)", "velocity": "|velocity| (m/s)",
                 "density": "density (kg/m3)"}[array]
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    display.SetScalarBarVisibility(view, True)

    if args.region:
        try:
            box = region_box(args.region, two_d)
        except ValueError as e:
            raise Refused(str(e))
    else:
        box = fluid_box(pvd, frames)
    if box is None:
        print("render: no fluid in the frames drawn; framing the whole data set")
        box = list(bounds)
    camera = frame_camera(box, width / height, two_d)
    if two_d:  # the colour bar lies along the bottom, below the framed box
        camera = leave_room_below(camera)
        bar.Orientation = "Horizontal"
        bar.WindowLocation = "Lower Center"
        bar.ScalarBarLength = 0.5
    view.CameraFocalPoint = camera["focal"]
    view.CameraPosition = camera["position"]
    view.CameraViewUp = camera["up"]
    view.CameraParallelProjection = 1 if two_d else 0
    if two_d:
        view.CameraParallelScale = camera["parallel_scale"]
    else:
        view.CameraViewAngle = camera["view_angle"]

    stamp = pv.Text()
    stamp_display = pv.Show(stamp, view)
    stamp_display.WindowLocation = "Upper Left Corner"
    stamp_display.FontSize = 14
    stamp_display.Color = [0, 0, 0]
    kind = "surface_" if surfaces else ""
    for k, t in enumerate(frames):
        view.ViewTime = t
        stamp.Text = f"{case}   t = {t:.3f} s"
        name = f"frame_{k:04d}.png" if every else f"{case}_{kind}{args.field}_t{t:.3f}.png"
        path = os.path.join(out, name)
        pv.SaveScreenshot(path, view, ImageResolution=[width, height])
        print(f"render: wrote {path} (t = {t:g} s)")
    return len(frames)


def main(argv=None):
    args = parse(argv)
    pvd = particle_series(args.run_dir)
    if pvd is None:
        return fail(f"no .pvd series in {args.run_dir}")
    case = os.path.splitext(os.path.basename(pvd))[0]
    dp = None
    summary = os.path.join(args.run_dir, "summary.json")
    if os.path.exists(summary):
        with open(summary, encoding="utf-8") as f:
            dp = json.load(f).get("dp_m")
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        return fail(f"--size expects WxH, got {args.size!r}")
    if args.range and not args.range[0] < args.range[1]:
        return fail(f"--range needs LO < HI, got {args.range[0]:g} {args.range[1]:g}")
    if args.movie:
        problem = render_surface.movie_problem(args)
        if problem:
            return fail(problem)
    surfaces_pvd = render_surface.surface_series(pvd)
    draw = args.draw if args.draw != "auto" else ("surface" if surfaces_pvd else "particles")
    surfaces = snapshot_files(surfaces_pvd) if draw == "surface" and surfaces_pvd else {}
    if draw == "surface" and not surfaces:
        return fail(f"--draw surface: no free-surface series ({case}_surface.pvd) in "
                    f"{args.run_dir}; make one with `sluice surface {args.run_dir}`")
    every = args.all or bool(args.movie)
    if args.out:
        out = args.out
    elif args.movie:
        out = tempfile.mkdtemp(prefix="render_frames_")
    else:
        out = os.path.join(args.run_dir, "render")
    os.makedirs(out, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="render_")
    try:
        count = render_frames(args, pvd, case, dp, (width, height), surfaces, every, out,
                              scratch)
        if args.movie:
            render_surface.encode_movie(out, count, args.fps, args.movie)
            print(f"render: wrote {args.movie} ({count} frames, {args.fps:g} per second)")
        code = 0
    except Refused as e:
        code = fail(str(e))
    except RuntimeError as e:
        print(f"render: {e}", file=sys.stderr)
        code = 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if args.movie and not args.out:
            shutil.rmtree(out, ignore_errors=True)
    return code


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip ParaView's teardown: under Xvfb with software GL it can fail with a GLX error after
    # every image is written, which would turn a good render into a failed command.
    os._exit(code)
