#!/usr/bin/env python3
"""The free-surface and movie parts of render.py (imported by it; the install puts them side by
side): which surface of a `sluice surface` series (<case>_surface.pvd) each frame draws, the 2D
water body filled inside the surface's lines, the surface shown in a ParaView view, and the
frames encoded into an MP4 with ffmpeg. The functions that draw take ParaView's
`paraview.simple` as their `pv` argument; the rest need only the standard library, numpy and
VTK's Python modules (imported where used), so that they can be tested without ParaView."""
import os
import shutil
import tempfile

SURFACE_LINE_WIDTH = 3.0  # 2D: the free surface's lines, in pixels
WATER_RGB = (0.62, 0.80, 0.96)  # 2D: the water body inside the free surface
SURFACE_SPECULAR = 0.3  # 3D: the surface's highlights (a wet look), ParaView's Phong model
FILL_SHIFT = 1e-3  # 2D: the water body drawn this much (of the picture's extent) behind its lines


def surface_series(pvd):
    """The free-surface series that `sluice surface` wrote beside the particle series `pvd`
    (<case>_surface.pvd in the same folder), or None where there is none."""
    path = os.path.splitext(pvd)[0] + "_surface.pvd"
    return path if os.path.exists(path) else None


def nearest(files, t):
    """(time, path) of the entry of {time: path} whose time is nearest to `t`."""
    best = min(files, key=lambda ft: abs(ft - t))
    return best, files[best]


def surface_frames(times, surfaces):
    """The particle snapshots' times (`times`) that a surface series ({time: path}) is drawn at
    by --all: each surface's time matched to the nearest snapshot, each snapshot once, in order
    (a series of `sluice surface --every N` gives every N-th snapshot)."""
    return sorted({min(times, key=lambda t: abs(t - ts)) for ts in surfaces})


def write_series(entries, path):
    """A .pvd at `path` listing `entries`, [(time, file)], each file by its path relative to the
    .pvd's folder (ParaView's reader takes a relative path); returns `path`. Times are written
    with repr, so that a time read back equals the one given."""
    import xml.etree.ElementTree as ET

    root = ET.Element("VTKFile", type="Collection", version="0.1", byte_order="LittleEndian")
    collection = ET.SubElement(root, "Collection")
    folder = os.path.dirname(os.path.abspath(path))
    for t, file in entries:
        ET.SubElement(collection, "DataSet", timestep=repr(float(t)), group="", part="0",
                      file=os.path.relpath(os.path.abspath(file), folder))
    ET.ElementTree(root).write(path, xml_declaration=True, encoding="utf-8")
    return path


def loop_edges(data):
    """(e, 2, 2) array of the edges of a 2D surface's lines (vtkPolyData, polylines in the x-z
    plane) as [[x0, z0], [x1, z1]]; a line whose last point is not its first is closed by one
    more edge (a surface closes around the water; sluice writes its loops closed)."""
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy

    lines = data.GetLines()
    if data.GetPoints() is None or lines is None or lines.GetNumberOfCells() == 0:
        return np.zeros((0, 2, 2))
    xz = vtk_to_numpy(data.GetPoints().GetData()).reshape(-1, 3)[:, [0, 2]].astype(float)
    offsets = vtk_to_numpy(lines.GetOffsetsArray())
    ids = vtk_to_numpy(lines.GetConnectivityArray())
    edges = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        loop = ids[a:b]
        if loop.size < 2:
            continue
        if loop[0] != loop[-1]:
            loop = np.append(loop, loop[0])
        edges.append(np.stack([xz[loop[:-1]], xz[loop[1:]]], axis=1))
    return np.concatenate(edges) if edges else np.zeros((0, 2, 2))


def fill_triangles(edges):
    """(t, 3, 2) array of triangles [x, z] that cover the inside of closed loops given by their
    `edges` (loop_edges'), by the even-odd rule: a bubble inside the water is left out, a drop
    is filled. The plane is cut into slabs at every vertex's x; inside a slab the edges that
    cross it do not cross each other (loops of a contour do not), so ordered along z they bound
    the inside in pairs, each pair a trapezoid of two triangles. Exact for any loops, without
    the failure modes of ear cutting on loops that touch themselves."""
    import numpy as np

    x0, z0, x1, z1 = edges[:, 0, 0], edges[:, 0, 1], edges[:, 1, 0], edges[:, 1, 1]
    flip = x0 > x1  # every edge from left to right
    x0, x1 = np.where(flip, x1, x0), np.where(flip, x0, x1)
    z0, z1 = np.where(flip, z1, z0), np.where(flip, z0, z1)
    keep = x1 > x0  # a vertical edge crosses no slab
    x0, z0, x1, z1 = x0[keep], z0[keep], x1[keep], z1[keep]
    cuts = np.unique(np.concatenate([x0, x1]))
    if cuts.size < 2:
        return np.zeros((0, 3, 2))
    first = np.searchsorted(cuts, x0)  # the slabs an edge crosses: first .. last - 1
    last = np.searchsorted(cuts, x1)
    count = last - first
    edge = np.repeat(np.arange(x0.size), count)  # one entry per (slab, edge that crosses it)
    slab = first[edge] + (np.arange(edge.size) - np.repeat(np.cumsum(count) - count, count))
    left, right = cuts[slab], cuts[slab + 1]
    slope = (z1 - z0) / (x1 - x0)
    z_left = z0[edge] + slope[edge] * (left - x0[edge])
    z_right = z0[edge] + slope[edge] * (right - x0[edge])
    order = np.lexsort((z_left + z_right, slab))
    slab, left, right, z_left, z_right = (a[order] for a in (slab, left, right, z_left, z_right))
    # The k-th crossing of its slab: the inside lies between crossings 2j and 2j + 1.
    starts = np.searchsorted(slab, slab, side="left")
    rank = np.arange(slab.size) - starts
    below = np.flatnonzero(rank % 2 == 0)
    below = below[(below + 1 < slab.size)]
    below = below[slab[below + 1] == slab[below]]  # an odd crossing count (open loop): left out
    above = below + 1
    a = np.stack([left[below], z_left[below]], axis=1)  # lower left
    b = np.stack([right[below], z_right[below]], axis=1)  # lower right
    c = np.stack([right[above], z_right[above]], axis=1)  # upper right
    d = np.stack([left[above], z_left[above]], axis=1)  # upper left
    return np.concatenate([np.stack([a, b, c], axis=1), np.stack([a, c, d], axis=1)])


def fill_2d(path, out_path, shift):
    """The water body inside a 2D surface (`path`: closed polylines in the x-z plane; loops
    inside loops for bubbles) as triangles (fill_triangles) at y = `shift` m (behind the lines,
    for a camera looking along +y), written to `out_path` as a .vtp without point arrays (it is
    drawn in one colour). Returns the number of triangles."""
    import numpy as np
    from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray
    from vtkmodules.vtkCommonCore import vtkPoints
    from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLPolyDataWriter

    reader = vtkXMLPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    triangles = fill_triangles(loop_edges(reader.GetOutput()))
    n = triangles.shape[0]
    xyz = np.zeros((3 * n, 3), dtype=np.float32)
    xyz[:, 0] = triangles[:, :, 0].reshape(-1)
    xyz[:, 1] = shift
    xyz[:, 2] = triangles[:, :, 1].reshape(-1)
    body = vtkPolyData()
    points = vtkPoints()
    points.SetData(numpy_to_vtk(xyz, deep=True))
    body.SetPoints(points)
    cells = vtkCellArray()  # triangle k: points 3k, 3k + 1, 3k + 2
    cells.SetData(numpy_to_vtkIdTypeArray(np.arange(0, 3 * n + 1, 3, dtype=np.int64), deep=True),
                  numpy_to_vtkIdTypeArray(np.arange(3 * n, dtype=np.int64), deep=True))
    body.SetPolys(cells)
    writer = vtkXMLPolyDataWriter()
    writer.SetFileName(out_path)
    writer.SetInputData(body)
    writer.Write()
    return n


def show_surface(pv, view, frames, surfaces, two_d, shift, scratch):
    """The free surface in `view`: at each of the frames' times, the surface of the nearest time
    in `surfaces` ({time: path}; through a series written in `scratch` whose times are the
    frames', so that the view's time picks it). In 2D its lines SURFACE_LINE_WIDTH px wide in
    front of the water body, filled in WATER_RGB `shift` m behind them; in 3D its triangles
    smooth-shaded (on the surface's Normals) with highlights. Returns (source, display) of the
    surface, for the caller to colour."""
    matched = []
    for t in frames:
        ts, path = nearest(surfaces, t)
        if abs(ts - t) > 1e-9 * max(1.0, abs(t)):
            print(f"render: t = {t:g} s is drawn with the surface of t = {ts:g} s, the nearest")
        matched.append((t, path))
    source = pv.PVDReader(FileName=write_series(matched, os.path.join(scratch, "surface.pvd")))
    display = pv.Show(source, view)
    display.SetRepresentationType("Surface")
    if not two_d:
        display.Interpolation = "Gouraud"
        display.Specular = SURFACE_SPECULAR
        return source, display
    display.LineWidth = SURFACE_LINE_WIDTH
    bodies = {}
    for path in dict.fromkeys(p for _, p in matched):
        bodies[path] = os.path.join(scratch, f"body_{len(bodies):04d}.vtp")
        fill_2d(path, bodies[path], shift)
    body = pv.PVDReader(FileName=write_series([(t, bodies[p]) for t, p in matched],
                                              os.path.join(scratch, "body.pvd")))
    body_display = pv.Show(body, view)
    body_display.SetRepresentationType("Surface")
    body_display.ColorArrayName = ["POINTS", ""]
    body_display.AmbientColor = list(WATER_RGB)
    body_display.DiffuseColor = list(WATER_RGB)
    body_display.Ambient, body_display.Diffuse = 1.0, 0.0  # flat: WATER_RGB as it is
    return source, display


def movie_problem(args):
    """Why --movie cannot be made with these options and this machine (a message), or None."""
    if args.time is not None:
        return "--movie draws every snapshot; it takes no --time"
    if not args.fps > 0:
        return f"--fps must be positive, got {args.fps:g}"
    if shutil.which("ffmpeg") is None:
        return ("--movie needs ffmpeg, which is not on PATH (Debian: apt-get install ffmpeg)")
    return None


def encode_movie(frame_dir, count, fps, movie):
    """Encodes frame_dir/frame_0000.png .. frame_{count-1} into the H.264 MP4 `movie` with ffmpeg
    (yuv420p, the picture padded to even sides, which the codec needs). The movie is written
    whole or not at all: encoded to a temporary name in its folder, then renamed over `movie`.
    Raises RuntimeError with ffmpeg's last words where it fails."""
    import subprocess

    folder = os.path.dirname(os.path.abspath(movie))
    os.makedirs(folder, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix="." + os.path.basename(movie) + ".",
                                       suffix=".part", dir=folder)
    os.close(handle)
    try:
        r = subprocess.run(["ffmpeg", "-y", "-loglevel", "error", "-framerate", f"{fps:g}",
                            "-i", os.path.join(frame_dir, "frame_%04d.png"),
                            "-frames:v", str(count), "-c:v", "libx264", "-pix_fmt", "yuv420p",
                            "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-f", "mp4", partial],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"ffmpeg failed (exit {r.returncode}): "
                               f"{(r.stderr or r.stdout).strip()[-2000:]}")
        mask = os.umask(0)  # mkstemp made the file for its owner alone; a movie is for all
        os.umask(mask)
        os.chmod(partial, 0o666 & ~mask)
        os.replace(partial, movie)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
