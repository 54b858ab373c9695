#pragma once
/// \file slab_start.h
/// What both backends share for a run over several processes (DESIGN.md, Scale-out): the first
/// cut of the domain into slabs by estimated work, a checkpoint's cut, the work estimate itself,
/// and the gauges combined over the processes. Host code.

#include "case/case_model.h"
#include "case/particles.h"
#include "case/state_conversion.h"
#include "io/checkpoint.h"
#include "io/gauge_samples.h"
#include "neighbours/grid.h"
#include "neighbours/vec.h"
#include "parallel/communicator.h"
#include "parallel/slabs.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

/// Each particle's share of an interaction pass: the particles in the 3^D bins of `grid` (edge
/// R) around its own (a superset of its neighbours, in proportion to them: a wall particle far
/// from the fluid has about a third of a fluid particle's).
template <int D>
std::vector<float> interaction_weights(const std::vector<Vec<D>>& x, const GridSpec<D>& grid);

/// The bins of edge R over the case's domain that interaction_weights counts in.
template <int D>
GridSpec<D> work_grid(const Case& c, double search_radius);

/// The bins of `grid` that cover the box [lo, hi] (m, per axis; ±infinity: the whole axis),
/// one more bin each side for rounding, clipped to `grid`: bins of the same size, and along each
/// axis an origin moved by a whole number of bins (rounded to float). A build on it holds every
/// particle in [lo, hi] that a build on `grid` holds (at a clipped end the two edges agree to
/// float rounding), and clears and scans only those bins: at 1.6·10^7 particles the bins of the
/// dam break's whole domain, air and margins included, were 1.0 of the construction's 1.3 ms per
/// step on one GPU.
template <int D>
GridSpec<D> covering_grid(const GridSpec<D>& grid, const std::array<double, D>& lo,
                          const std::array<double, D>& hi);

/// Along the slab axis, the interval that process `rank`'s particles reach during a step: its
/// slab widened by the halo and by twice the largest move of a step (the builds of a step, and
/// gauges and neighbour counts after it, read positions at most a step's move from where
/// distribution left them); ±infinity past the domain's ends.
std::pair<double, double> slab_reach(const SlabDecomposition& slabs, int rank);

/// How far beyond the search radius R (m) the queries of a particle reach: with mDBC a wall
/// particle queries at its ghost node, which lies less than 2R away (wall particles deeper than
/// R under the surface have none: no fluid particle sees them; case/ghost_offsets.h), so the halo
/// of a slab must be 2R wider for its wall particles near a face to see all the fluid their
/// ghost nodes see in one process. δ-SPH's diffusion (physics/delta_sph.h) reads each
/// neighbour's density gradient, which a halo copy sums over its own neighbours: R wider, so
/// that every halo copy an owned particle sees has the whole support it has in one process.
/// 0 with DBC and another diffusion.
double ghost_node_reach(const Case& c, double search_radius);

/// This process's start: its slab's particles of the generated set (ids global), the cut (along
/// the neighbour grid's longest axis, faces on its bins, equal estimated work per slab) and the
/// whole run's particle count. Every process computes the same cut, without communication.
struct SlabStart {
    SimulationState state;
    SlabDecomposition slabs;
    std::uint64_t total_particles = 0;
};
/// `list_reach` (m): how much wider the halo must be for the backend's neighbour lists kept
/// over several steps (the lists' skin: a halo copy must be there for every pair the lists may
/// hold until they are built again; 0 without kept lists, as on the CPU).
/// \throws std::invalid_argument when the domain is too short for that many slabs or one would
///         be empty (balanced_slabs).
SlabStart initial_slab(const Case& c, const ParticleSet& particles, const Communicator& comm,
                       double list_reach = 0.0);

/// The same cut of a saved whole state (a restart under another number of processes than wrote
/// it: io/checkpoint.h, read_latest_whole_checkpoint), by the state's positions and the case's
/// constants for its fluid height; this process's slab's particles, in the whole state's order.
/// \throws std::invalid_argument as initial_slab, or when the state is of another dimension.
SlabStart split_state(const Case& c, const SimulationState& whole, const Communicator& comm);

/// What a process continues from its checkpoint with: the case's constants for the piece's
/// fluid height, and the checkpoint's cut (axis and faces of `saved`) with the case's bin and
/// halo widths (`list_reach` as initial_slab's).
struct SlabResume {
    DerivedConstants derived;
    SlabDecomposition slabs;
};
/// \throws std::invalid_argument when the piece is of another dimension than the case.
SlabResume resume_slab(const Case& c, const SimulationState& piece, const SlabDecomposition& saved,
                       double list_reach = 0.0);

/// The check after a step of a run over several processes that no particle moved further than
/// the halo allows (slabs.h): |Δx| ≤ dt·max(|v_n|, |v_n+1|) + dt²·|a|max, from the largest speed
/// over every process after the step (`speed`, m/s) and before it (`previous_speed`, updated
/// here), and the largest acceleration (m/s²). Every process calls it with the same values.
/// \returns "" when it does, else the message of the SimulationFailure the backend throws (how
///          far, and what to change).
std::string move_beyond_halo(const SlabDecomposition& slabs, std::uint64_t step, double time,
                             double dt, double speed, float& previous_speed, double acceleration);

/// Load balancing's measured times (rebalanced_slabs' `seconds`): every process's own work since
/// the last balance, its work stages (construction, reorder, interaction, integration, checks;
/// not halo, migration or waiting, which are time spent on or for the others) less
/// `balanced_seconds`, which becomes the new total. Collective.
std::vector<double> work_since_balance(const Communicator& comm, double work_seconds,
                                       double& balanced_seconds);

/// Every process's gauges from each one's part: a point's (and a wall point's) sums from the
/// process whose slab holds it (its halo covers the point's neighbourhood), a front the
/// farthest over them.
/// Collective.
void combine_gauges(const Communicator& comm, const SlabDecomposition& slabs, int dimension,
                    const GaugeRequest& request, GaugeResponse& out);

} // namespace sluice
