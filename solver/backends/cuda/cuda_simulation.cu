// The CUDA backend (cuda_backend.h): CudaSimulation's set-up from the case's step plan, and the
// step as the plan's executor: each pass of step_plan.h runs from its own file (construction.cu,
// interaction.cu, integration.cu, exchange.cu, checks.cu; outputs.cu hands out snapshots, states
// and gauges); the factories.

// Eigen (case model, particle generation) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"
#include "parallel/slab_start.h"

#include "case/constants.h"
#include "neighbours/cuda_check.h"
#include "neighbours/cuda_gather.cuh"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <variant>

namespace sluice {

namespace gpu {

template <int D>
CudaSimulation<D>::CudaSimulation(const Case& c, const DerivedConstants& derived,
                                  const SimulationState& state, bool restored,
                                  const CudaOptions& options, const Communicator* comm,
                                  SlabDecomposition slabs, std::uint64_t total_particles)
    : derived_(derived), options_(options),
      plan_(make_step_plan<D>(c, derived_,
                              PlanRequest{options.corrector,
                                          options.interaction != CudaInteraction::queued,
                                          comm != nullptr})),
      build_grid_(plan_.grid), n_(static_cast<std::uint32_t>(state.size())),
      boundary_count_(static_cast<std::uint32_t>(
          std::count(state.type.begin(), state.type.end(), ParticleType::boundary))),
      builder_(c.neighbours.construction), fluid_height_(state.fluid_height), time_(state.time),
      dt_(state.last_dt), steps_(state.steps),
      binned_(n_ - static_cast<std::uint32_t>(state.excluded.size())),
      recorded_exclusions_(n_ - binned_), comm_(comm), slabs_(std::move(slabs)),
      total_particles_(comm ? total_particles : n_),
      capacity_(static_cast<std::uint32_t>(comm ? total_particles : n_)) {
    if (plan_.moving_walls)
        prepare_motion(c, state);
    const HostState host = pack_state(state, restored);
    if (trace_)
        std::fprintf(stderr, "[sluice cuda] %u particles, %u bins: allocating\n", n_,
                     plan_.grid.bin_count());
    SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_)
        SLUICE_CUDA_CHECK(cudaEventCreate(&e));
    SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&gauge_stream_, cudaStreamNonBlocking));
    SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&state_ready_, cudaEventDisableTiming));
    SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&gauge_reads_, cudaEventDisableTiming));
    // Everything a step touches is allocated here.
    allocate_state();
    if (plan_.modified_walls())
        upload_ghost_offsets(c);
    if (plan_.moving_walls)
        upload_motion();
    if (!plan_.damping.empty()) {
        damping_zones_.allocate(plan_.damping.size(), account_);
        upload(damping_zones_.get(), plan_.damping, stream_);
    }
    if (comm_)
        allocate_exchange();
    host_scalars_.allocate(1);
    choose_kernels(host.walls_at_rest);
    if (lists_)
        allocate_lists(c, host.fluid_speed_max);
    if (plan_.layout == Layout::index)
        allocate_compaction();
    upload_state(host, state);
    exclusions_ = ExclusionLog(total_particles_);
    exclusions_.mark_reported(state.excluded);
    std::array<double, D> box_lo = host.box_lo, box_hi = host.box_hi;
    if (comm_) {
        comm_->min(box_lo.data(), D);
        comm_->max(box_hi.data(), D);
    }
    cover(box_lo, box_hi);
    if (comm_) // a halo from the start: gauges sampled before the first step need it
        distribute();
    if (trace_)
        std::fprintf(stderr, "[sluice cuda] set up\n");
}

template <int D>
typename CudaSimulation<D>::HostState CudaSimulation<D>::pack_state(const SimulationState& state,
                                                                    bool restored) const {
    // Packed in the state's order, except that particles outside the domain go last (the order
    // an index layout keeps; a reorder layout sorts anyway). At t = 0 the domain must hold every
    // particle (the CPU backend's rule and message); a restored state's excluded particles lie
    // outside it.
    HostState h;
    std::vector<std::uint32_t>& order = h.order;
    order.reserve(n_);
    for (int pass = 0; pass < 2; ++pass)
        for (std::uint32_t i = 0; i < n_; ++i)
            if (plan_.grid.contains(from_array3<D>(state.position[i])) == (pass == 0))
                order.push_back(i);
    h.position.resize(n_);
    h.motion.resize(n_);
    h.velocity.resize(n_);
    h.id.resize(n_);
    h.density.resize(n_);
    std::uint32_t outside = 0, first_outside = 0;
    const MovingWallsView<D> walls{h_walls_.object.data(), h_walls_.reference.data(),
                                   h_object_motion_.data(),
                                   static_cast<std::uint32_t>(h_walls_.object.size())};
    for (std::uint32_t k = 0; k < n_; ++k) {
        const std::uint32_t i = order[k];
        Vec<D> x = from_array3<D>(state.position[i]);
        h.velocity[k] = from_array3<D>(state.velocity[i]);
        if (const std::uint16_t object = walls.object_of(state.id[i]);
            state.type[i] != ParticleType::fluid && object != no_object) {
            // a moving wall where its motion has it now, at its velocity
            x = rigid_position(walls.states[object], walls.reference[state.id[i]]);
            h.velocity[k] = rigid_velocity(walls.states[object], x);
        }
        if (!plan_.grid.contains(x) && outside++ == 0)
            first_outside = i;
        if (state.type[i] != ParticleType::fluid)
            for (int a = 0; a < D; ++a)
                h.walls_at_rest = h.walls_at_rest && h.velocity[k][a] == 0.0f;
        else
            h.fluid_speed_max =
                std::max(h.fluid_speed_max, std::sqrt(static_cast<double>(norm2(h.velocity[k]))));
        h.id[k] = state.id[i];
        h.density[k] = state.density[i];
        pack_particle<D>(plan_.fluid, x, h.velocity[k], state.density[i], state.type[i],
                         h.position[k], h.motion[k]);
    }
    h.box_lo.fill(HUGE_VAL);
    h.box_hi.fill(-HUGE_VAL);
    for (std::uint32_t k = 0; k < n_; ++k)
        if (plan_.grid.contains(plain_position(h.position[k])))
            for (int a = 0; a < D; ++a) {
                h.box_lo[a] = std::min<double>(h.box_lo[a], h.position[k][a]);
                h.box_hi[a] = std::max<double>(h.box_hi[a], h.position[k][a]);
            }
    const std::uint64_t outside_anywhere = comm_ ? comm_->sum(std::uint64_t{outside}) : outside;
    if (outside_anywhere && !restored) {
        std::ostringstream msg;
        msg << outside_anywhere << " particle(s) lie outside the domain at t = 0";
        if (outside)
            msg << ", e.g. id " << state.id[first_outside] << " at "
                << describe(from_array3<D>(state.position[first_outside])) << " m";
        msg << "; the domain must contain every particle";
        throw std::invalid_argument(msg.str());
    }
    return h;
}

template <int D>
void CudaSimulation<D>::allocate_state() {
    builder_.reserve(capacity_, plan_.grid.bin_count());
    position_[0].allocate(capacity_, account_);
    if (plan_.layout == Layout::index || comm_) // several GPUs: distribute() writes the other
        position_[1].allocate(capacity_, account_);
    for (int b = 0; b < 2; ++b) {
        motion_[b].allocate(capacity_, account_);
        id_[b].allocate(capacity_, account_);
    }
    derivatives_.allocate(capacity_, account_);
    if (plan_.fluid.shifting.on)
        shift_velocity_.allocate(capacity_, account_);
    if (plan_.fluid.diffusion == DensityDiffusion::antuono2010)
        density_gradient_.allocate(capacity_, account_);
    const bool symplectic = plan_.symplectic();
    if (symplectic)
        previous_position_.allocate(capacity_, account_);
    for (int b = 0; b < (symplectic ? 1 : 2); ++b) {
        previous_velocity_[b].allocate(capacity_, account_);
        previous_density_[b].allocate(capacity_, account_);
    }
    scalars_.allocate(1, account_);
}

template <int D>
void CudaSimulation<D>::allocate_exchange() {
    for (int b = 0; b < 2; ++b) {
        tags_[b].allocate(capacity_, account_);
        keys_[b].allocate(capacity_, account_);
    }
    for (DeviceArray<std::uint32_t>& o : order_)
        o.allocate(capacity_, account_);
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, sort_temp_bytes_, static_cast<const std::uint8_t*>(nullptr),
        static_cast<std::uint8_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<int>(capacity_), 0, 3));
    sort_temp_.allocate(std::max<std::size_t>(sort_temp_bytes_, 1), account_);
    class_counts_.allocate(8, account_);
    host_counts_.allocate(8);
    send_records_.allocate(capacity_, account_);
    receive_records_.allocate(capacity_, account_);
    halo_index_.allocate(capacity_, account_);
    sent_index_.allocate(capacity_, account_);
    column_counts_.allocate(2 * static_cast<std::size_t>(bin_columns(slabs_)), account_);
    SLUICE_CUDA_CHECK(
        cudaMemsetAsync(tags_[0].get(), 0xff, capacity_ * sizeof(std::uint32_t), stream_));
    try {
        nccl_ = std::make_unique<NcclComm>(*comm_);
    } catch (const TransportUnavailable& e) {
        throw BackendUnavailable(e.what());
    }
}

template <int D>
void CudaSimulation<D>::choose_kernels(bool walls_at_rest) {
    // The in-step walk takes a row of bins as one range of a reorder layout (halo copies walk
    // with their warps and query nothing). Over several GPUs each chooses for itself: the
    // kernels sum alike, so a choice changes the state by rounding only.
    const bool in_step_applies =
        plan_.layout == Layout::reorder &&
        std::visit([](auto q) { return !detail::bin_by_bin<decltype(q)>; }, plan_.query);
    in_step_now_ = in_step_applies && options_.interaction == CudaInteraction::in_step;
    // Kept lists (the plan's lists: a reorder layout and a traversal in bin order): most passes
    // read lists, so neither the adaptive probe (its per-step times would mix steps with and
    // without a build) nor dry walls (a wall particle's list holds its fluid neighbours only,
    // none when it is dry) have anything left to gain. Several GPUs: the particles stay in
    // place between builds (exchange()) and the halo is the lists' skin wider (kept_list_reach).
    lists_ = plan_.corrector == CorrectorNeighbours::lists;
    keep_lists_ = keeps_lists(plan_.corrector, options_);
    adaptive_ = in_step_applies && options_.interaction == CudaInteraction::adaptive &&
                options_.stage_timing && !keep_lists_;
    // A DBC wall particle with no fluid within R has zero derivatives (wall-wall pairs add
    // nothing, physics.h), so it can be certified dry: when its velocity is 0 (the walls of a
    // restored state may carry another boundary condition's) or its object moves (the
    // certificate then counts the walls' moves too: DryWalls::relative). mDBC wall particles
    // query nothing in the interaction pass (their density is the BoundaryCondition pass's), so
    // there are no dry ones to skip.
    walls_at_rest_ = (walls_at_rest || plan_.moving_walls) && !plan_.modified_walls();
    dry_walls_ = options_.skip_dry_walls && plan_.symplectic() && plan_.layout == Layout::reorder &&
                 walls_at_rest_ && MonaghanMolteniModel::matches(plan_.fluid) &&
                 options_.interaction != CudaInteraction::queued && !keep_lists_;
    // mDBC's ghost nodes turn with a rotating object, further than its particles move: with
    // moving walls every ghost node is looked at in every step.
    dry_ghosts_ = options_.skip_dry_walls && plan_.modified_walls() && plan_.symplectic() &&
                  plan_.layout == Layout::reorder && !plan_.moving_walls;
    // The ghost nodes of walls at rest stay where they were at the build: their lists keep.
    ghost_lists_ = keep_lists_ && plan_.modified_walls() && !plan_.moving_walls;
    if (tracks_travel()) {
        for (DeviceArray<float>& until : dry_until_) {
            until.allocate(capacity_, account_);
            SLUICE_CUDA_CHECK(
                cudaMemsetAsync(until.get(), 0, capacity_ * sizeof(float), stream_)); // not dry
        }
        travel_.allocate(1, account_);
        SLUICE_CUDA_CHECK(cudaMemsetAsync(travel_.get(), 0, sizeof(double), stream_));
        // One bin at bin width 1/3: the build pass's widened query visits a few more rows, and
        // a wall particle with no fluid that near is looked at again after about 25 steps.
        // Several GPUs: the widened query must see every fluid particle within R + margin, and
        // the halo holds the neighbour slab's within halo_width = R + R/8 of the face (slabs.h),
        // so the margin stays inside it (by a tenth, for the rounding of the two).
        // mDBC: a ghost node lies up to 2R beyond its wall particle (ghost_node_reach), which the
        // halo's width adds.
        // Kept lists: the halo is the skin wider (kept_list_reach), but a certificate may be
        // made on a step after the build, when a particle of the halo's edge may have come up
        // to half the skin closer, and one more step's move if the plan's guess of it failed
        // (move_beyond_halo bounds it): the margin is what is left of the halo after those.
        dry_margin_ = plan_.radius / 3.0f;
        const double reach = dry_ghosts_ ? 3.0 * plan_.radius : plan_.radius;
        if (comm_) {
            const double beyond = slabs_.halo_width - reach; // 2 max_step_move (+ the skin)
            const double skin = keep_lists_ ? options_.list_skin * plan_.radius : 0.0;
            const double usable = keep_lists_ ? beyond - skin / 2.0 - slabs_.max_step_move : beyond;
            dry_margin_ = std::min(dry_margin_, static_cast<float>(0.9 * usable));
        }
    }
    // Several GPUs (lists_ above): a halo copy keeps its index from the predictor's pass to the
    // corrector's (refresh_halo rewrites its data in place), and the largest speed is every
    // GPU's; kept lists: from one build to the next.
}

template <int D>
void CudaSimulation<D>::allocate_lists(const Case& c, double fluid_speed_max) {
    list_capacity_ = options_.corrector_list_entries > 0
                         ? options_.corrector_list_entries
                         : corrector_list_capacity(c, keep_lists_ ? options_.list_skin : 0.0f);
    list_capacity_ = (list_capacity_ + 3) / 4 * 4; // whole groups of four (list_groups)
    if (keep_lists_) {
        list_skin_ = options_.list_skin * plan_.radius;
        list_moved_.allocate(1, account_);
        SLUICE_CUDA_CHECK(cudaMemsetAsync(list_moved_.get(), 0, sizeof(float), stream_));
    }
    // time_step (integrators.h) from the same float constants: dt ≤ cfl · h / c0.
    const double dt_bound = options_.corrector_list_dt_scale * dt_ceiling();
    list_dt_bound_ = std::nextafter(static_cast<float>(dt_bound), HUGE_VALF);
    // The state's largest fluid speed, every GPU's (the halo's particles are the neighbour
    // GPUs' own); after each step, the corrector's.
    const double speed = comm_ ? comm_->max(fluid_speed_max) : fluid_speed_max;
    list_speed_max_ = static_cast<float>(speed * (1.0 + 1e-5));
    // Whole blocks of the interaction kernel: every thread of its grid writes a count.
    const std::size_t slots =
        static_cast<std::size_t>(blocks_for(capacity_, interaction_block)) * interaction_block;
    list_indices_.allocate(slots * list_capacity_, account_);
    list_counts_.allocate(slots, account_);
}

template <int D>
void CudaSimulation<D>::allocate_compaction() {
    SLUICE_CUDA_CHECK(cub::DevicePartition::Flagged(
        nullptr, partition_temp_bytes_, static_cast<const std::uint32_t*>(nullptr),
        static_cast<const unsigned char*>(nullptr), static_cast<std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<int>(capacity_)));
    partition_temp_.allocate(std::max<std::size_t>(partition_temp_bytes_, 1), account_);
    partition_count_.allocate(1, account_);
    static_assert(sizeof(Float4) >= 2 * sizeof(std::uint32_t) + 1,
                  "the compaction's scratch arrays must fit in the derivatives");
}

template <int D>
void CudaSimulation<D>::upload_state(const HostState& h, const SimulationState& state) {
    upload(position_[0].get(), h.position, stream_);
    upload(motion_[0].get(), h.motion, stream_);
    upload(id_[0].get(), h.id, stream_);
    if (!plan_.symplectic()) { // Verlet's step n−1: saved, or at t = 0 the initial state itself
        if (!state.previous_velocity.empty()) {
            std::vector<Vec<D>> previous(n_);
            std::vector<float> previous_density(n_);
            for (std::uint32_t k = 0; k < n_; ++k) {
                previous[k] = from_array3<D>(state.previous_velocity[h.order[k]]);
                previous_density[k] = state.previous_density[h.order[k]];
            }
            upload(previous_velocity_[0].get(), previous, stream_);
            upload(previous_density_[0].get(), previous_density, stream_);
        } else {
            upload(previous_velocity_[0].get(), h.velocity, stream_);
            upload(previous_density_[0].get(), h.density, stream_);
        }
    }
    SLUICE_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(StepScalars), stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <int D>
CudaSimulation<D>::~CudaSimulation() {
    // Pending work reads the arrays freed below; nothing sensible to do on failure here.
    cudaStreamSynchronize(stream_);
    if (gauge_stream_)
        cudaStreamSynchronize(gauge_stream_);
    for (cudaEvent_t e : events_)
        if (e)
            cudaEventDestroy(e);
    for (cudaEvent_t e : {state_ready_, gauge_reads_})
        if (e)
            cudaEventDestroy(e);
    if (gauge_stream_)
        cudaStreamDestroy(gauge_stream_);
    cudaStreamDestroy(stream_);
}

template <int D>
void CudaSimulation<D>::mark(Stage finished) {
    if (trace_) {
        // Debugging aid (SLUICE_CUDA_TRACE set): wait for each stage and say so on stderr.
        static const char* const names[] = {"construction", "reorder", "interaction", "integration",
                                            "checks",       "halo",    "migration",   "waiting",
                                            "boundary",     "motion"};
        std::fprintf(stderr, "[sluice cuda] step %llu: %s enqueued\n",
                     static_cast<unsigned long long>(steps_ + 1), names[finished]);
        SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::fprintf(stderr, "[sluice cuda] step %llu: %s done\n",
                     static_cast<unsigned long long>(steps_ + 1), names[finished]);
    }
    if (!options_.stage_timing)
        return;
    SLUICE_CUDA_CHECK(cudaEventRecord(events_[event_count_], stream_));
    event_stage_[event_count_] = finished;
    ++event_count_;
}

/// Whether a pass writes nothing a gauge sample reads (the state's positions and motions, the
/// structure, the kept lists' move), so that it may run beside the last sample
/// (begin_local_gauges): an interaction pass (it writes the derivatives and the step's
/// scalars), the time step, the corrector's reuse of the structure (host only), and the
/// construction (kept lists: host only; a build waits for the sample itself, build_view()).
/// Any other pass waits for the sample first.
static bool runs_beside_gauges(const StepPass& p) {
    return std::holds_alternative<pass::Interaction>(p) ||
           std::holds_alternative<pass::TimeStep>(p) ||
           std::holds_alternative<pass::ReuseStructure>(p) ||
           std::holds_alternative<pass::Construction>(p);
}

template <int D>
void CudaSimulation<D>::fence_gauge_reads() {
    if (!gauge_reads_pending_)
        return;
    SLUICE_CUDA_CHECK(cudaStreamWaitEvent(stream_, gauge_reads_, 0));
    gauge_reads_pending_ = false;
    samples_fenced_ = gauge_results_->begun();
}

/// The executor of the step plan: one overload per pass (step_plan.h), in the plan's order.
template <int D>
struct CudaSimulation<D>::PassRunner {
    CudaSimulation<D>& s;
    void operator()(pass::Exchange) const { s.exchange(); }
    void operator()(pass::Construction) const { s.rebuild(); }
    void operator()(pass::BoundaryCondition) const { s.apply_boundary_condition(); }
    void operator()(pass::ReuseStructure) const {
        // The predictor's structure over the predicted positions, widened by how far they moved
        // (exact, query.h).
        s.reuse_view(&s.scalars_.get()->predictor_skin);
    }
    void operator()(pass::Interaction p) const { s.interact(p.role); }
    void operator()(pass::BodyLoads) const { s.sum_body_loads(); }
    void operator()(pass::TimeStep) const { s.time_step(); }
    void operator()(pass::Integration p) const { s.integrate(p.stage); }
    void operator()(pass::Motion p) const { s.move_walls(p.stage); }
    void operator()(pass::Damping) const { s.damp(); }
    void operator()(pass::HaloRefresh p) const {
        if (p.on_build) { // mDBC's walls, on the build's positions
            s.refresh_halo(nullptr, true);
            s.mark(halo);
        } else {
            s.halo_refresh_pass();
        }
    }
    void operator()(pass::Checks) const {
        s.finish_step();
        if (!s.defer_completion_)
            s.complete_step();
    }
    void operator()(pass::Balance) const {
        if (s.plan_.balances_after(s.steps_))
            s.balance();
    }
};

template <int D>
void CudaSimulation<D>::step() {
    enqueue_step(false);
    end_step();
}

template <int D>
void CudaSimulation<D>::enqueue_step(bool defer) {
    defer_completion_ = defer;
    if (options_.stage_timing) {
        event_count_ = 0;
        SLUICE_CUDA_CHECK(cudaEventRecord(events_[event_count_++], stream_));
    }
    // A gauge sample beside the step reads none of the scalars (begin_local_gauges).
    SLUICE_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(StepScalars), stream_));
    for (const StepPass& p : plan_.passes) {
        if (!runs_beside_gauges(p))
            fence_gauge_reads();
        std::visit(PassRunner{*this}, p);
    }
}

template <int D>
void CudaSimulation<D>::end_step() {
    if (defer_completion_) {
        defer_completion_ = false;
        complete_step();
    }
    // The next builds cover the box of the particles at the end of this step (after a balance:
    // within the new slab's reach).
    const StepScalars& s = last_scalars_;
    std::array<double, D> box_lo, box_hi;
    for (int a = 0; a < D; ++a) {
        const bool any = s.box_keys[a] != 0;
        box_hi[a] = any ? from_ordered_key(s.box_keys[a]) : -HUGE_VAL;
        box_lo[a] = any ? -from_ordered_key(s.box_keys[3 + a]) : HUGE_VAL;
    }
    cover(box_lo, box_hi);
}

template <int D>
StageTimes CudaSimulation<D>::stage_times() const {
    return named_stage_times(stage_seconds_,
                             gauge_results_ ? gauge_results_->device_seconds() : 0.0);
}

template <int D>
BackendCounters CudaSimulation<D>::counters() const {
    BackendCounters c;
    c.device_bytes = device_bytes();
    c.device_allocations = account_.allocations + builder_.allocation_count();
    c.dry_walls = dry_wall_count();
    c.in_step_steps = in_step_steps_;
    c.corrector_list_steps = corrector_list_steps_;
    c.kept_list_steps = kept_list_steps_;
    c.list_walks = list_walks_;
    c.ghost_node_list_reads = ghost_list_nodes_;
    return c;
}

template <int D>
std::size_t CudaSimulation<D>::device_bytes() const {
    return account_.bytes + builder_.device_bytes() + (snapshots_ ? snapshots_->device_bytes() : 0);
}

template class CudaSimulation<2>;
template class CudaSimulation<3>;

} // namespace gpu

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const ParticleSet& particles,
                                                    const CudaOptions& options) {
    require_cuda_device();
    const SimulationState state = initial_state(particles);
    if (c.dimension == 2)
        return std::make_unique<gpu::CudaSimulation<2>>(c, particles.constants, state, false,
                                                        options);
    return std::make_unique<gpu::CudaSimulation<3>>(c, particles.constants, state, false, options);
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const SimulationState& state,
                                                    const CudaOptions& options) {
    require_cuda_device();
    const DerivedConstants derived = restored_constants(c, state);
    if (c.dimension == 2)
        return std::make_unique<gpu::CudaSimulation<2>>(c, derived, state, true, options);
    return std::make_unique<gpu::CudaSimulation<3>>(c, derived, state, true, options);
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const CudaOptions& options) {
    require_cuda_device(); // before the (possibly long) particle generation
    return make_cuda_simulation(c, generate_particles(c), options);
}

namespace {

/// How much wider the halo is for kept lists (initial_slab's list_reach): their skin, where
/// the plan's corrector reads lists and they are kept (choose_kernels' rule), else 0.
double kept_list_reach(const Case& c, const CudaOptions& options, double support) {
    const PlanRequest request{options.corrector, options.interaction != CudaInteraction::queued,
                              true};
    return gpu::keeps_lists(corrector_neighbours(c, request), options)
               ? static_cast<double>(options.list_skin) * support
               : 0.0;
}

/// This process's GPU: the one of its host whose index is its rank among the host's processes
/// (cuda_device_of_process). Collective: a process without a GPU stops them all.
void select_device(const Communicator& comm) {
    const int device = cuda_device_of_process(comm.local_rank());
    if (comm.min(device >= 0 ? 1.0 : 0.0) == 0.0)
        throw BackendUnavailable(
            "a run over several GPUs takes one GPU per process: a host has more processes than "
            "GPUs (this one: " +
            std::to_string(cuda_device_count()) +
            " GPU(s)); start at most that many processes per host, "
            "or give --backend cpu");
    SLUICE_CUDA_CHECK(cudaSetDevice(device));
}

} // namespace

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const Communicator& comm,
                                                    const CudaOptions& options) {
    select_device(comm);
    const ParticleSet particles = generate_particles(c);
    SlabStart start =
        initial_slab(c, particles, comm, kept_list_reach(c, options, particles.constants.support));
    if (c.dimension == 2)
        return std::make_unique<gpu::CudaSimulation<2>>(c, particles.constants, start.state, false,
                                                        options, &comm, std::move(start.slabs),
                                                        start.total_particles);
    return std::make_unique<gpu::CudaSimulation<3>>(c, particles.constants, start.state, false,
                                                    options, &comm, std::move(start.slabs),
                                                    start.total_particles);
}

std::unique_ptr<GpuSimulation> make_cuda_simulation(const Case& c, const Communicator& comm,
                                                    const SimulationState& piece,
                                                    const SlabDecomposition& slabs,
                                                    std::uint64_t total_particles,
                                                    const CudaOptions& options) {
    select_device(comm);
    SlabResume resume =
        resume_slab(c, piece, slabs,
                    kept_list_reach(c, options, derive_constants(c, piece.fluid_height).support));
    if (c.dimension == 2)
        return std::make_unique<gpu::CudaSimulation<2>>(c, resume.derived, piece, true, options,
                                                        &comm, std::move(resume.slabs),
                                                        total_particles);
    return std::make_unique<gpu::CudaSimulation<3>>(c, resume.derived, piece, true, options, &comm,
                                                    std::move(resume.slabs), total_particles);
}

} // namespace sluice
