#!/usr/bin/env python3
"""How busy a warp's lanes are in the kept lists' build (issue 26; git show 54605da:solver/BENCHMARK.md, "The run
against the lattice"; the current profile: solver/BENCHMARK.md, "Where the time goes").

The build (solver/backends/cuda/list_build_kernels.cuh) walks, per particle, the Strips rows of
bins (bin width R/3, x fastest) that reach R + skin, and tests every candidate in them. A warp
takes 32 consecutive particles in bin order. This model counts, per warp, the candidate-loop
iterations of
  nested: the walk as it is, row after row; a warp's k-th row lasts as long as its lanes'
          longest k-th row,
  flat:   one loop over all of a lane's candidates, whatever their row; the warp lasts as long
          as its lane with the most candidates,
against the mean lane (no lane idle). Rows are counted for the nested walk's set-ups.

Input: an uncompressed snapshot of sluice (`sluice run CASE --compressor none`), its dp, and the
case's coefh (h = coefh * sqrt(3) * dp in 3D, R = 2h). numpy only.

    python3 solver/results/list_build_model.py out/dambreak3d_1m/dambreak3d_1m_0002.vtp 0.01
"""
import argparse
import re

import numpy as np


def read_vtp(path):
    """Point arrays of a sluice .vtp with appended raw (uncompressed) data."""
    data = open(path, 'rb').read()
    head_end = data.index(b'<AppendedData')
    head = data[:head_end].decode('latin1')
    if 'compressor=' in head:
        raise SystemExit(f'{path}: compressed; write it with --compressor none')
    start = data.index(b'_', head_end) + 1
    header = np.uint64 if 'header_type="UInt64"' in head else np.uint32
    header_bytes = np.dtype(header).itemsize
    types = {'Float32': np.float32, 'Float64': np.float64, 'UInt32': np.uint32,
             'UInt8': np.uint8, 'Int32': np.int32, 'Int64': np.int64}
    arrays = {}
    pattern = (r'<DataArray type="(\w+)" Name="(\w+)"(?: NumberOfComponents="(\d+)")?'
               r'[^>]*offset="(\d+)"')
    for m in re.finditer(pattern, head):
        kind, name, components, offset = m.group(1), m.group(2), int(m.group(3) or 1), int(m.group(4))
        p = start + offset
        size = int(np.frombuffer(data[p:p + header_bytes], dtype=header)[0])
        a = np.frombuffer(data[p + header_bytes:p + header_bytes + size], dtype=types[kind])
        arrays[name] = a.reshape(-1, components) if components > 1 else a
    return arrays


def points(arrays):
    for name, a in arrays.items():
        if a.ndim == 2 and a.shape[1] == 3 and name not in ('velocity',):
            return a.astype(np.float64)
    raise SystemExit('no point coordinates in the snapshot')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('snapshot')
    parser.add_argument('dp', type=float, help='particle spacing (m)')
    parser.add_argument('--coefh', type=float, default=0.75)
    parser.add_argument('--bin-width', type=float, default=1 / 3, help='bin edge / R')
    parser.add_argument('--skin', type=float, default=0.1, help='list skin / R')
    args = parser.parse_args()

    arrays = read_vtp(args.snapshot)
    x, kind = points(arrays), arrays['type']
    radius = 2 * args.coefh * np.sqrt(3) * args.dp
    reach = radius * (1 + args.skin) + 1e-4 * radius  # list_slack's first term
    width = radius * args.bin_width
    lo = x.min(axis=0) - reach
    bins = np.floor((x - lo) / width).astype(np.int64)
    dims = bins.max(axis=0) + 1 + int(np.ceil(reach / width)) + 1
    flat = (bins[:, 2] * dims[1] + bins[:, 1]) * dims[0] + bins[:, 0]
    order = np.argsort(flat, kind='stable')  # the build's bin order
    x, kind = x[order], kind[order]
    counts = np.bincount(flat[order], minlength=int(np.prod(dims))).reshape(dims[2], dims[1], dims[0])
    prefix = np.zeros((dims[2], dims[1], dims[0] + 1), np.int64)
    np.cumsum(counts, axis=2, out=prefix[:, :, 1:])
    first = np.floor((x - reach - lo) / width).astype(np.int64).clip(0)
    last = np.floor((x + reach - lo) / width).astype(np.int64)
    last = np.minimum(last, dims - 1)
    n = len(x)
    span = int((last - first).max()) + 1
    # per particle, its rows in the walk's order (z, then y), the candidates of each; -1: none
    per_row = np.full((n, span * span), -1, np.int32)
    for dz in range(span):
        bz = first[:, 2] + dz
        for dy in range(span):
            by = first[:, 1] + dy
            valid = (bz <= last[:, 2]) & (by <= last[:, 1])
            z, y = bz.clip(0, dims[2] - 1), by.clip(0, dims[1] - 1)
            c = prefix[z, y, last[:, 0] + 1] - prefix[z, y, first[:, 0]]
            per_row[:, dz * span + dy] = np.where(valid, c, -1)
    rows = (per_row >= 0).sum(axis=1)
    compact = np.argsort(per_row < 0, axis=1, kind='stable')  # a lane's k-th row, in its order
    per_row = np.take_along_axis(per_row, compact, axis=1).clip(0)

    warps = n // 32
    lanes = per_row[:warps * 32].reshape(warps, 32, -1)
    total = lanes.sum(axis=2)
    nested = lanes.max(axis=1).sum(axis=1)
    flat_loop = total.max(axis=1)
    mean = total.mean(axis=1)
    row_count = rows[:warps * 32].reshape(warps, 32).max(axis=1)
    types = kind[:warps * 32].reshape(warps, 32)
    mixed = (types != types[:, :1]).any(axis=1)

    def busy(iterations, sel=slice(None)):
        return 100 * mean[sel].sum() / iterations[sel].sum()

    print(f'{args.snapshot}: {n} particles, R = {radius:.5g} m, bins of {args.bin_width:.3g} R, '
          f'reach {1 + args.skin:g} R')
    print(f'  per lane: {rows.mean():.1f} rows, {total.mean():.1f} candidates')
    print(f'  warp iterations per lane: nested {nested.mean():.1f} (lanes busy {busy(nested):.1f} %, '
          f'{row_count.mean():.1f} row set-ups), flat {flat_loop.mean():.1f} '
          f'(lanes busy {busy(flat_loop):.1f} %)')
    for name, sel in (('warps of walls and fluid', mixed), ('warps of one type', ~mixed)):
        if sel.any():
            print(f'  {name}: {100 * sel.mean():.1f} % of warps, lanes busy nested '
                  f'{busy(nested, sel):.1f} %, flat {busy(flat_loop, sel):.1f} %')


if __name__ == '__main__':
    main()
