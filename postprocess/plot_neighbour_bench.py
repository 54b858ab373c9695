#!/usr/bin/env python3
"""Plots of a neighbours_bench CSV (numpy + matplotlib only).

    python3 postprocess/plot_neighbour_bench.py neighbours_bench.csv [--out DIR]

Writes, per dimension and particle count:
  query_time_<D>D_n<N>.png     query time against neighbours per particle, per module
                               (query/binWidth), counting and Circles workloads;
  query_speedup_<D>D_n<N>.png  speed-up of each module over moore/1 (Circles workload) per
                               distribution and neighbour density;
and construction_<D>D.png: construction time against n per construction/binWidth, presorted and
shuffled input (circles-0, every neighbour density).
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MARKERS = {"circles-0": "o", "circles-200": "s", "lattice": "^"}


def load(path):
    data = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding="utf-8")
    return np.atleast_1d(data)


def module_label(query, width):
    w = "1/3" if abs(width - 1.0 / 3.0) < 1e-4 else f"{width:g}"
    return f"{query}/{w}"


def one_construction(rows):
    """Query results do not depend on the construction: keep counting-sort rows."""
    keep = rows["construction"] == "counting-sort"
    return rows[keep] if keep.any() else rows


def plot_query_time(rows, dim, n, out_dir):
    rows = one_construction(rows)
    modules = sorted({(q, w) for q, w in zip(rows["query"], rows["bin_width"])},
                     key=lambda m: (m[0], -m[1]))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, column, title in ((axes[0], "query_count_ms", "counting neighbours"),
                              (axes[1], "query_circles_ms", "Circles force update (Alg. 3)")):
        for index, (q, w) in enumerate(modules):
            sel = (rows["query"] == q) & (np.abs(rows["bin_width"] - w) < 1e-4)
            for dist, marker in MARKERS.items():
                # circles-run rows carry no neighbour statistics (time over a whole run).
                s = (sel & (rows["distribution"] == dist) & np.isfinite(rows[column]) &
                     (rows["neighbours_per_particle"] > 0))
                if not s.any():
                    continue
                order = np.argsort(rows["neighbours_per_particle"][s])
                x = rows["neighbours_per_particle"][s][order]
                y = rows[column][s][order]
                label = module_label(q, w) if dist == "circles-0" else None
                ax.plot(x, y, marker=marker, color=colors[index % len(colors)], label=label,
                        linestyle="-" if q == "strips" else "--")
        ax.set_xlabel("neighbours per particle (measured)")
        ax.set_ylabel("ms")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].legend(title="query/binWidth", fontsize=8)
    handles = [plt.Line2D([], [], marker=m, color="k", linestyle="", label=d)
               for d, m in MARKERS.items()]
    axes[1].legend(handles=handles, title="distribution", fontsize=8)
    fig.suptitle(f"{dim}D, n = {n}: query time per module")
    fig.tight_layout()
    path = os.path.join(out_dir, f"query_time_{dim}D_n{n}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_speedup(rows, dim, n, out_dir):
    rows = one_construction(rows)
    groups = sorted({(d, t) for d, t in zip(rows["distribution"], rows["target_neighbours"])})
    modules = sorted({(q, w) for q, w in zip(rows["query"], rows["bin_width"])},
                     key=lambda m: (m[0], -m[1]))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(groups)), 4.8))
    width = 0.8 / max(1, len(modules))
    for index, (q, w) in enumerate(modules):
        values = []
        for dist, target in groups:
            s = ((rows["distribution"] == dist) & (rows["target_neighbours"] == target) &
                 (rows["query"] == q) & (np.abs(rows["bin_width"] - w) < 1e-4))
            values.append(rows["speedup_vs_moore1_circles"][s][0] if s.any() else np.nan)
        ax.bar(np.arange(len(groups)) + index * width, values, width,
               label=module_label(q, w))
    ax.axhline(1.0, color="k", linewidth=0.8)
    ax.set_xticks(np.arange(len(groups)) + 0.4 - width / 2)
    ax.set_xticklabels([f"{d}\n~{t}" for d, t in groups], fontsize=8)
    ax.set_ylabel("speed-up over moore/1 (Circles workload)")
    ax.set_title(f"{dim}D, n = {n}")
    ax.legend(fontsize=8, title="query/binWidth")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out_dir, f"query_speedup_{dim}D_n{n}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_construction(rows, dim, out_dir):
    rows = rows[(rows["distribution"] == "circles-0") & (rows["query"] == rows["query"][0])]
    if len(rows) == 0:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    keys = sorted({(c, w, t) for c, w, t in
                   zip(rows["construction"], rows["bin_width"], rows["target_neighbours"])})
    for ax, column, title in ((axes[0], "build_presorted_ms", "presorted input"),
                              (axes[1], "build_shuffled_ms", "shuffled input")):
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        shades = sorted({(w, t) for _, w, t in keys}, key=lambda k: (-k[0], k[1]))
        for c, w, t in keys:
            s = ((rows["construction"] == c) & (np.abs(rows["bin_width"] - w) < 1e-4) &
                 (rows["target_neighbours"] == t))
            order = np.argsort(rows["n"][s])
            ax.plot(rows["n"][s][order], rows[column][s][order],
                    marker="o" if c == "counting-sort" else "x",
                    linestyle="-" if c == "counting-sort" else "--",
                    color=colors[shades.index((w, t)) % len(colors)],
                    label=f"{c}/{module_label('', w)[1:]} ~{t}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("particles")
        ax.set_title(title)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("construction ms")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"{dim}D construction (circles-0)")
    fig.tight_layout()
    path = os.path.join(out_dir, f"construction_{dim}D.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("--out", default=".", help="output folder (default: current)")
    args = parser.parse_args()
    rows = load(args.csv)
    os.makedirs(args.out, exist_ok=True)
    written = []
    for dim in sorted(set(rows["dim"])):
        by_dim = rows[rows["dim"] == dim]
        # A lattice holds m^D particles, close to but not exactly the requested n: group sizes
        # within a few percent (equal to one decimal of log10 n), named by the Circles n.
        size_class = np.round(np.log10(by_dim["n"].astype(float)), 1)
        for c in sorted(set(size_class)):
            by_n = by_dim[size_class == c]
            n = int(np.max(by_n["n"][by_n["distribution"] != "lattice"])
                    if (by_n["distribution"] != "lattice").any() else np.max(by_n["n"]))
            written.append(plot_query_time(by_n, dim, n, args.out))
            written.append(plot_speedup(by_n, dim, n, args.out))
        written.append(plot_construction(by_dim, dim, args.out))
    for path in written:
        if path:
            print(path)


if __name__ == "__main__":
    main()
