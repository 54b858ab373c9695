#pragma once
/// \file slabs.h
/// The cut of the domain into one slab per rank (DESIGN.md, Scale-out): slabs along the domain's
/// longest axis, faces on bin boundaries, each slab at least as wide as the halo, so that halo
/// copies only ever come from the two neighbouring slabs.
///
/// Rank r owns the particles with lower(r) ≤ x < upper(r) along the axis (the first and last
/// slabs reach past the domain's ends, so every point is owned by exactly one rank). Its halo
/// holds copies of the neighbouring slabs' particles within halo_width of its faces.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

struct SlabDecomposition {
    int axis = 0;              ///< index into a solver vector (2D: 0 x, 1 z; 3D: 0 x, 1 y, 2 z)
    std::vector<double> faces; ///< ranks + 1 values (m): domain start, interior faces, domain end
    double bin = 0.0; ///< m, the neighbour grid's bin edge: faces are multiples from faces[0]
    /// m: the search radius R plus twice the largest move allowed in one step (max_step_move):
    /// a particle within R of an owned particle at any time of a step was within halo_width of
    /// the face when the step began.
    double halo_width = 0.0;
    double max_step_move = 0.0; ///< m
    /// Load balancing so far: the step after which the faces moved, and the faces then.
    std::vector<std::pair<std::uint64_t, std::vector<double>>> history;

    int ranks() const { return static_cast<int>(faces.size()) - 1; }
    /// The owned interval of rank r along the axis; ±infinity past the domain's ends.
    double lower(int r) const;
    double upper(int r) const;
    /// The rank owning a point whose axis coordinate is `x`.
    int rank_of(double x) const;
    /// Interior faces as bin indices from faces[0] (for messages and summary.json).
    std::vector<std::int64_t> face_bins() const;
};

/// The bins of edge `bin` between the domain's ends along the axis (≥ 1): the length of the
/// work_per_bin that rebalanced_slabs takes.
std::int64_t bin_columns(const SlabDecomposition& slabs);

/// The name of an axis of a `dimension`-D solver vector: "x", "y", "z" (2D: index 1 is "z").
std::string axis_name(int dimension, int axis);

/// Cuts [domain_min, domain_max] along `axis` into `ranks` slabs whose faces lie on multiples
/// of `bin` from domain_min, each with about the same total of `weights` (the particles' work
/// estimates; empty: 1 each) of the particles at `coordinates` (their axis coordinates), and
/// each at least halo_width wide; search_radius sets halo_width and max_step_move (R/16, with
/// halo_width = R + 2·max_step_move + ghost_reach; ghost_reach (m): how far beyond R a particle's
/// own queries reach, mDBC's ghost nodes: parallel/slab_start.h's ghost_node_reach).
/// \throws std::invalid_argument, naming the axis length and the widths, when `ranks` slabs of
///         that width do not fit (too many processes for the domain), or when a slab would hold
///         no particles.
SlabDecomposition balanced_slabs(const std::vector<float>& coordinates,
                                 const std::vector<float>& weights, int dimension, int axis,
                                 double domain_min, double domain_max, double bin,
                                 double search_radius, int ranks, double ghost_reach = 0.0);

/// The decomposition with the given faces (a checkpoint's): halo_width and max_step_move from
/// the search radius, as balanced_slabs sets them.
SlabDecomposition slabs_with_faces(int axis, std::vector<double> faces, double bin,
                                   double search_radius, double ghost_reach = 0.0);

/// Moves the interior faces to balance measured work: `seconds[r]` is rank r's time since the
/// last balance, `work_per_bin` the estimated work per bin column along the axis (all ranks';
/// e.g. particles weighted by their neighbour candidates). A rank's time per unit of estimated
/// work is taken as uniform within its slab; the new faces give each rank the same time, each slab
/// at least halo_width wide, and a face moves only when the slowest rank is more than `tolerance`
/// (e.g. 0.05) slower than the mean (hysteresis), and never so that a slab holds no work. \returns
/// the new decomposition (unchanged when within tolerance).
SlabDecomposition rebalanced_slabs(const SlabDecomposition& slabs,
                                   const std::vector<double>& seconds,
                                   const std::vector<double>& work_per_bin, double tolerance);

/// The tolerance both backends balance with: faces move when the slowest process is more than
/// 1 % slower than the mean. At 5 % two GPUs stayed 9 % apart (the faster one waiting 1 ms of a
/// 13 ms step at 1.6·10^7 particles, H200 pair); noise only moves a face by a bin or two, which
/// costs a migration of those bins' particles.
constexpr double balance_tolerance = 0.01;

} // namespace sluice
