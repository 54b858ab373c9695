#pragma once
/// \file cpu_state.h
/// The CPU backend's per-particle arrays and bookkeeping (CpuState), which every pass function
/// (cpu_passes.h) takes by reference, and the small helpers the passes share: StageClock,
/// gather, parallel_threshold, finite.

#include "backends/exclusion_log.h"
#include "backends/stage_times.h"
#include "case/body_table.h"
#include "case/motion_table.h"
#include "neighbours/cpu_builder.h"
#include "neighbours/grid.h"
#include "parallel/communicator.h"
#include "parallel/slabs.h"
#include "physics/body_loads.h"
#include "physics/integrators.h"
#include "physics/physics.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace sluice::cpu {

/// Loops that do a few memory operations per particle (gather, integration, checks) run on
/// one thread below this size: an OpenMP fork/join costs more than they do, and far more when
/// the cores are shared with other processes. The interaction pass is always parallel.
constexpr std::int64_t parallel_threshold = 50000;

/// A halo or send slot that is not one.
constexpr std::uint32_t no_slot = ~0u;

template <int D>
bool finite(const Vec<D>& v) {
    for (int k = 0; k < D; ++k)
        if (!std::isfinite(v[k]))
            return false;
    return true;
}

/// Wall-clock stage accounting: adds the seconds of its lifetime to `total`.
class StageClock {
public:
    using Clock = std::chrono::steady_clock;
    explicit StageClock(double& total) : total_(total), start_(Clock::now()) {}
    ~StageClock() { total_ += std::chrono::duration<double>(Clock::now() - start_).count(); }
    StageClock(const StageClock&) = delete;
    StageClock& operator=(const StageClock&) = delete;

private:
    double& total_;
    Clock::time_point start_;
};

/// Gathers a particle array into the new bin order: a[k] ← a[permutation[k]] (a takes the
/// permutation's length: a shorter one drops particles). The scratch buffer takes the old array,
/// so no allocation happens once sizes are reached. Empty arrays (those the integrator does not
/// use) are left alone.
template <class T>
void gather(std::vector<T>& a, std::vector<T>& scratch,
            const std::vector<std::uint32_t>& permutation) {
    if (a.empty())
        return;
    scratch.resize(permutation.size());
    const std::int64_t n = static_cast<std::int64_t>(permutation.size());
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
    for (std::int64_t k = 0; k < n; ++k)
        scratch[k] = a[permutation[k]];
    a.swap(scratch);
}

/// The state of a CPU simulation between passes.
///
/// Layout::reorder: the particle arrays are kept in bin order; after each neighbour-structure
/// build every array the rest of the step reads is gathered into the new order (DESIGN.md), and
/// `id` keeps the original index. Layout::index (and a linked list): the arrays keep their order
/// and the query reads them through the view; the build reads a copy of the positions
/// (build_positions), so that the view stays consistent while the integration moves them. Either
/// way particles [0, active) are binned, interact and move; [active, size()) have left the
/// domain and are frozen (OutsidePolicy::exclude sorts them last; the index layout moves them
/// there when they leave).
///
/// Several processes (`comm` set): this rank owns the particles of its slab and holds halo copies
/// of its neighbours' particles within slabs.halo_width of its faces, mixed into the same arrays
/// (halo_slot tells them apart). Halo particles are binned and visited like any other, get no
/// derivatives of their own, and are left out of the maxima, the checks, the exclusions,
/// snapshots and saved states.
template <int D>
struct CpuState {
    explicit CpuState(Construction construction) : builder(construction) {}

    std::uint32_t size() const { return static_cast<std::uint32_t>(id.size()); }
    bool is_halo(std::uint32_t i) const { return !halo_slot.empty() && halo_slot[i] != no_slot; }
    IntegratorArrays<D> integrator_arrays() {
        return {position.data(),          velocity.data(),          density.data(),
                previous_position.data(), previous_velocity.data(), previous_density.data(),
                acceleration.data(),      density_rate.data(),      type.data()};
    }
    /// Applies f to every per-particle array (positions included).
    template <class F>
    void for_each_array(F&& f) {
        f(position);
        f(velocity);
        f(previous_position);
        f(previous_velocity);
        f(density);
        f(previous_density);
        f(type);
        f(id);
        f(halo_slot);
        f(send_slot);
        f(pressure);
        f(density_rate);
        f(acceleration);
    }

    // neighbour structure
    CpuNeighbourBuilder<D> builder;
    std::vector<Vec<D>> build_positions; ///< index layout: what the last build (and view) read
    /// Symplectic, reorder: the corrector (and gauges after the step) query the predictor's
    /// structure over the state's positions, `skin` (m) being the largest move along any axis
    /// since that build (query.h), as the CUDA backend does.
    bool reused = false;
    float skin = 0.0f;

    // particle state, bin order; previous_* only where the integrator uses them
    std::vector<Vec<D>> position, velocity, previous_position, previous_velocity;
    std::vector<float> density, previous_density;
    std::vector<ParticleType> type;
    std::vector<std::uint32_t> id;
    std::uint32_t active = 0;
    std::uint32_t boundary_count = 0;
    /// mDBC: x_g − x_b (m) of each wall particle by id (case/ghost_offsets.h; zero: none);
    /// empty with DBC. Wall particles never move, so the table is fixed for the run.
    std::vector<Vec<D>> ghost_offset;
    // Moving boundaries (case/motion_table.h; empty without): the tables, by id each wall's
    // moving object and reference position, each object's state at motion_time (s).
    MotionTables motion;
    MovingWallTables<D> walls;
    std::vector<RigidState> object_state;
    std::vector<RigidMotionF> object_motion; ///< object_state as particles take it
    double motion_time = 0.0;
    float wall_speed = 0.0f; ///< m/s, the moving walls' largest speed at motion_time
    /// m/s, their largest at this step's evaluations (with wall_speed at its start): the halo
    /// check's bound on their move.
    float step_wall_speed = 0.0f;
    // Floating bodies (case/body_table.h; empty without): each body's state and its loads at
    // the last BodyLoads pass; its object's entry of object_state follows the body.
    BodyTables bodies;
    std::vector<BodyState> body_state;
    std::vector<BodyLoads> body_loads;
    /// BodyLoads pass scratch (kept: no allocation per pass): the owned body particles as
    /// (index, body), their fluid and contact forces, the sums per body.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> body_members;
    std::vector<std::array<Vec<D>, 2>> body_shares;
    std::vector<double> body_sums;
    MovingWallsView<D> walls_view() const {
        MovingWallsView<D> v;
        v.object = walls.object.data();
        v.reference = walls.reference.data();
        v.states = object_motion.data();
        v.ids = static_cast<std::uint32_t>(walls.object.size());
        return v;
    }
    /// The particle arrays as the pair terms read them (physics.h), with the moving walls.
    ParticlesView<D> particles_view() const {
        ParticlesView<D> v{velocity.data(), density.data(), pressure.data(), type.data()};
        v.id = id.data();
        v.walls = walls_view();
        v.density_gradient = density_gradient.empty() ? nullptr : density_gradient.data();
        return v;
    }
    // derived per interaction pass
    std::vector<float> pressure, density_rate;
    std::vector<Vec<D>> acceleration;
    /// With shifting: each particle's shifting velocity from the last pass (physics/shifting.h;
    /// zero but for fluid), which the integration after that pass applies; else empty.
    std::vector<Vec<D>> shift_velocity;
    /// With diffusion antuono2010: each particle's renormalised density gradient, computed at the
    /// start of every interaction pass (physics/delta_sph.h; zero but for fluid); else empty.
    std::vector<Vec<D>> density_gradient;
    float acceleration_max = 0.0f, mu_max = 0.0f;
    // gather scratch, one per element type
    std::vector<Vec<D>> scratch_vec;
    std::vector<float> scratch_float;
    std::vector<ParticleType> scratch_type;
    std::vector<std::uint32_t> scratch_id, scratch_slot;

    double fluid_height = 0.0; ///< H_max at t = 0 (m), kept for save_state
    double time = 0.0, dt = 0.0;
    std::uint64_t steps = 0;
    ExclusionLog exclusions;
    double stage_seconds[step_stage_count] = {};
    double gauge_seconds = 0.0; ///< sample_gauges, wall time

    // several processes (class comment); comm null with one
    const Communicator* comm = nullptr;
    SlabDecomposition slabs;
    std::uint64_t total_particles = 0; ///< every rank's, excluded ones included
    /// Per particle, empty with one process: a halo copy's place in the halo received (from
    /// below, then from above), no_slot for an owned particle; an owned particle's place in the
    /// halo sent (to below, then above), no_slot when not sent.
    std::vector<std::uint32_t> halo_slot, send_slot;
    std::uint32_t received_below = 0, received_above = 0, sent_below = 0, sent_above = 0;
    std::vector<std::uint32_t> halo_index, send_index; ///< slot → particle index
    float largest_speed = 0.0f;    ///< m/s, owned fluid, every rank, at the end of the last step
    GridSpec<D> work_grid;         ///< bins of edge R over the domain, for interaction_weights
    double balanced_seconds = 0.0; ///< the stages' total at the last balance
};

} // namespace sluice::cpu
