// The CUDA backend (cuda_backend.h): the WCSPH step of cpu_backend.cpp on the device. This file
// holds CudaSimulation's members for the step's orchestration; the kernels are step_kernels.cuh's,
// the snapshot copies snapshot_pool.cuh's, the snapshot, state and gauge members
// cuda_simulation_outputs.cuh's.

// Eigen (case model, particle generation) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"

#include "case/constants.h"
#include "neighbours/cuda_check.h"
#include "neighbours/cuda_gather.cuh"

#include <cub/device/device_partition.cuh>

#include <cstdio>
#include <limits>
#include <numeric>
#include <sstream>
#include <utility>
#include <variant>

namespace sluice {

namespace gpu {

template <int D>
CudaSimulation<D>::CudaSimulation(const Case& c, const DerivedConstants& derived,
                                  const SimulationState& state, bool restored,
                                  const CudaOptions& options)
    : derived_(derived), fluid_(make_fluid_constants(c, derived_)),
      kernel_(make_kernel<D>(c.physics.kernel, derived_.h)), query_(c.neighbours.query),
      layout_(c.neighbours.construction == Construction::linked_list ? Layout::index
                                                                     : c.neighbours.layout),
      integrator_(c.physics.integrator), verlet_reset_(c.physics.verlet_reset_steps),
      cfl_(c.constants.cfl),
      density_min_(static_cast<float>(c.physics.density_min_ratio * c.constants.rho0)),
      density_max_(static_cast<float>(c.physics.density_max_ratio * c.constants.rho0)),
      grid_(make_grid<D>(to_vec<D>(c.domain.min), to_vec<D>(c.domain.max),
                         static_cast<float>(derived_.support), c.neighbours.bin_width)),
      radius_(static_cast<float>(derived_.support)), options_(options),
      n_(static_cast<std::uint32_t>(state.size())),
      boundary_count_(static_cast<std::uint32_t>(
          std::count(state.type.begin(), state.type.end(), ParticleType::boundary))),
      builder_(c.neighbours.construction), fluid_height_(state.fluid_height), time_(state.time),
      dt_(state.last_dt), steps_(state.steps),
      binned_(n_ - static_cast<std::uint32_t>(state.excluded.size())),
      recorded_exclusions_(n_ - binned_) {
    // Packed in the state's order, except that particles outside the domain go last (the order
    // an index layout keeps; a reorder layout sorts anyway). At t = 0 the domain must hold every
    // particle (the CPU backend's rule and message); a restored state's excluded particles lie
    // outside it.
    std::vector<std::uint32_t> order;
    order.reserve(n_);
    for (int pass = 0; pass < 2; ++pass)
        for (std::uint32_t i = 0; i < n_; ++i)
            if (grid_.contains(from_array3<D>(state.position[i])) == (pass == 0))
                order.push_back(i);
    std::vector<Vec<D>> position(n_);
    std::vector<Float4> motion(n_);
    std::vector<Vec<D>> velocity(n_);
    std::vector<std::uint32_t> id(n_);
    std::vector<float> density(n_);
    std::uint32_t outside = 0, first_outside = 0;
    for (std::uint32_t k = 0; k < n_; ++k) {
        const std::uint32_t i = order[k];
        const Vec<D> x = from_array3<D>(state.position[i]);
        if (!grid_.contains(x) && outside++ == 0)
            first_outside = i;
        velocity[k] = from_array3<D>(state.velocity[i]);
        id[k] = state.id[i];
        density[k] = state.density[i];
        pack_particle<D>(fluid_, x, velocity[k], state.density[i], state.type[i], position[k],
                         motion[k]);
    }
    if (outside && !restored) {
        std::ostringstream msg;
        msg << outside << " particle(s) lie outside the domain at t = 0, e.g. id "
            << state.id[first_outside] << " at "
            << describe(from_array3<D>(state.position[first_outside]))
            << " m; the domain must contain every particle";
        throw std::invalid_argument(msg.str());
    }

    if (trace_)
        std::fprintf(stderr, "[sluice cuda] %u particles, %u bins: allocating\n", n_,
                     grid_.bin_count());
    SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_)
        SLUICE_CUDA_CHECK(cudaEventCreate(&e));
    // Everything a step touches is allocated here.
    builder_.reserve(n_, grid_.bin_count());
    position_[0].allocate(n_, account_);
    if (layout_ == Layout::index)
        position_[1].allocate(n_, account_);
    for (int b = 0; b < 2; ++b) {
        motion_[b].allocate(n_, account_);
        id_[b].allocate(n_, account_);
    }
    derivatives_.allocate(n_, account_);
    const bool symplectic = integrator_ == IntegratorKind::symplectic;
    if (symplectic)
        previous_position_.allocate(n_, account_);
    for (int b = 0; b < (symplectic ? 1 : 2); ++b) {
        previous_velocity_[b].allocate(n_, account_);
        previous_density_[b].allocate(n_, account_);
    }
    scalars_.allocate(1, account_);
    host_scalars_.allocate(1);
    if (layout_ == Layout::index) {
        SLUICE_CUDA_CHECK(cub::DevicePartition::Flagged(
            nullptr, partition_temp_bytes_, static_cast<const std::uint32_t*>(nullptr),
            static_cast<const unsigned char*>(nullptr), static_cast<std::uint32_t*>(nullptr),
            static_cast<std::uint32_t*>(nullptr), static_cast<int>(n_)));
        partition_temp_.allocate(std::max<std::size_t>(partition_temp_bytes_, 1), account_);
        partition_count_.allocate(1, account_);
        static_assert(sizeof(Float4) >= 2 * sizeof(std::uint32_t) + 1,
                      "the compaction's scratch arrays must fit in the derivatives");
    }

    upload(position_[0].get(), position, stream_);
    upload(motion_[0].get(), motion, stream_);
    upload(id_[0].get(), id, stream_);
    if (!symplectic) { // Verlet's step n−1: saved, or at t = 0 the initial state itself
        if (!state.previous_velocity.empty()) {
            std::vector<Vec<D>> previous(n_);
            std::vector<float> previous_density(n_);
            for (std::uint32_t k = 0; k < n_; ++k) {
                previous[k] = from_array3<D>(state.previous_velocity[order[k]]);
                previous_density[k] = state.previous_density[order[k]];
            }
            upload(previous_velocity_[0].get(), previous, stream_);
            upload(previous_density_[0].get(), previous_density, stream_);
        } else {
            upload(previous_velocity_[0].get(), velocity, stream_);
            upload(previous_density_[0].get(), density, stream_);
        }
    }
    SLUICE_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(StepScalars), stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    exclusions_ = ExclusionLog(n_);
    exclusions_.mark_reported(state.excluded);
    if (trace_)
        std::fprintf(stderr, "[sluice cuda] set up\n");
}

template <int D>
CudaSimulation<D>::~CudaSimulation() {
    // Pending work reads the arrays freed below; nothing sensible to do on failure here.
    cudaStreamSynchronize(stream_);
    for (cudaEvent_t e : events_)
        if (e)
            cudaEventDestroy(e);
    cudaStreamDestroy(stream_);
}

template <int D>
void CudaSimulation<D>::mark(Stage finished) {
    if (trace_) {
        // Debugging aid (SLUICE_CUDA_TRACE set): wait for each stage and say so on stderr.
        static const char* const names[] = {"construction", "reorder", "interaction", "integration",
                                            "checks"};
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

template <int D>
void CudaSimulation<D>::rebuild() {
    view_ = builder_.build_view(positions(), n_, grid_, radius_, OutsidePolicy::exclude, layout_,
                                stream_);
    mark(construction);
    if (layout_ == Layout::reorder) {
        const int next = 1 - current_;
        gather(stream_, builder_.d_permutation(), n_,
               GatherPair<Float4>{motion_[current_].get(), motion_[next].get()},
               GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get()});
        current_ = next;
    }
    view_ready_ = true;
    mark(reorder);
}

template <int D>
BuildOrder<D> CudaSimulation<D>::build_order(bool reused) const {
    const bool sorted = layout_ == Layout::reorder;
    return BuildOrder<D>{view_positions(), sorted ? d_binned() : nullptr,
                         sorted && !reused ? builder_.d_permutation() : nullptr, grid_};
}

template <int D>
void CudaSimulation<D>::reuse_view(const float* d_skin) {
    auto& v = std::get<NeighbourView<D>>(view_); // reorder layout only
    v.positions = positions();
    v.skin = d_skin;
}

template <int D>
void CudaSimulation<D>::move_excluded_last() {
    // Scratch in the derivatives (dead until the next interaction pass): indices, the order of
    // the partition, and whether the last build held each particle.
    auto* index = reinterpret_cast<std::uint32_t*>(derivatives_.get());
    std::uint32_t* order = index + n_;
    auto* inside = reinterpret_cast<unsigned char*>(order + n_);
    inside_flags_kernel<D><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
        view_positions(), n_, grid_, index, inside);
    SLUICE_CUDA_CHECK_LAUNCH();
    // Held particles first, in their order; the excluded ones after them (CUB reverses those,
    // whose order nothing relies on).
    std::size_t bytes = partition_temp_bytes_;
    SLUICE_CUDA_CHECK(cub::DevicePartition::Flagged(partition_temp_.get(), bytes, index, inside,
                                                    order, partition_count_.get(),
                                                    static_cast<int>(n_), stream_));
    const int next = 1 - current_;
    gather(stream_, order, n_,
           GatherPair<Vec<D>>{positions(), position_[1 - position_current_].get()},
           GatherPair<Float4>{motion_[current_].get(), motion_[next].get()},
           GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get()});
    position_current_ = 1 - position_current_;
    current_ = next;
    if (integrator_ == IntegratorKind::verlet) {
        const int in = previous_current_, out = 1 - previous_current_;
        gather(stream_, order, n_,
               GatherPair<Vec<D>>{previous_velocity_[in].get(), previous_velocity_[out].get()},
               GatherPair<float>{previous_density_[in].get(), previous_density_[out].get()});
        previous_current_ = out;
    }
    view_ready_ = false; // the view's arrays are no longer the state's order
}

/// Dispatch functors (named structs: nvcc and generic lambdas in templates do not mix well).

/// Adds the kernel to a (query, view) dispatch: fn(QueryT{}, view, kernel) for the simulation's
/// smoothing kernel (one std::visit), so that a launch needs one functor for all three choices.
template <class FnT, class KernelsT>
struct WithKernel {
    template <class QueryT, class ViewT>
    struct Bound {
        const FnT* fn;
        const ViewT* view;
        template <class KernelT>
        void operator()(const KernelT& kernel) const {
            (*fn)(QueryT{}, *view, kernel);
        }
    };
    FnT fn;
    const KernelsT* kernels;
    template <class QueryT, class ViewT>
    void operator()(QueryT, const ViewT& view) const {
        std::visit(Bound<QueryT, ViewT>{&fn, &view}, *kernels);
    }
};

template <class FnT, class KernelsT>
WithKernel<FnT, KernelsT> with_kernel(FnT fn, const KernelsT& kernels) {
    return {fn, &kernels};
}

template <int D>
struct LaunchInteraction {
    CudaSimulation<D>* simulation;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_interaction<QueryT>(view, kernel);
    }
};

template <int D>
struct LaunchCount {
    CudaSimulation<D>* simulation;
    std::uint32_t* d_counts;
    template <class QueryT, class ViewT>
    void operator()(QueryT, const ViewT& view) const {
        simulation->template launch_count<QueryT>(view, d_counts);
    }
};

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_interaction(const ViewT& view, const KernelT& kernel) {
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    const unsigned blocks = blocks_for(n_, interaction_block);
    if (options_.interaction == CudaInteraction::direct) {
        interaction_kernel<QueryT, ViewT, KernelT, 0><<<blocks, interaction_block, 0, stream_>>>(
            view, particles, kernel, fluid_, n_, derivatives_.get(), scalars_.get());
    } else {
        constexpr int capacity = queue_capacity<D>;
        constexpr std::size_t shared = sizeof(std::uint32_t) * capacity * interaction_block;
        auto* function = &interaction_kernel<QueryT, ViewT, KernelT, capacity>;
        // Above 48 KB of shared memory (queue + CUB's storage) a kernel must opt in; once per
        // instantiation.
        static const bool configured = [function] {
            SLUICE_CUDA_CHECK(cudaFuncSetAttribute(
                function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
            return true;
        }();
        (void)configured;
        function<<<blocks, interaction_block, shared, stream_>>>(
            view, particles, kernel, fluid_, n_, derivatives_.get(), scalars_.get());
    }
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
void CudaSimulation<D>::interact() {
    dispatch_neighbour_query<D>(query_, view_, with_kernel(LaunchInteraction<D>{this}, kernel_));
    mark(interaction);
}

template <int D>
void CudaSimulation<D>::step() {
    if (options_.stage_timing) {
        event_count_ = 0;
        SLUICE_CUDA_CHECK(cudaEventRecord(events_[event_count_++], stream_));
    }
    SLUICE_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(StepScalars), stream_));
    const unsigned blocks = blocks_for(n_, block_size);
    if (integrator_ == IntegratorKind::symplectic) {
        // Predictor with the derivatives of state n, then a corrector with those of n+½, on the
        // predictor's neighbour structure (reorder layout) or on a new one.
        const bool reused = reuse_for_corrector();
        StepScalars* const scalars = scalars_.get();
        rebuild();
        interact();
        time_step_kernel<<<1, 1, 0, stream_>>>(fluid_, cfl_, scalars);
        SLUICE_CUDA_CHECK_LAUNCH();
        predict_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_position_.get(), previous_velocity_[0].get(), previous_density_[0].get(), n_,
            fluid_, scalars, reused ? &scalars->predictor_skin : nullptr);
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        mark(integration);
        // The corrector's neighbours: the predictor's structure over the predicted positions,
        // widened by how far they moved (exact, query.h), or a new build.
        if (reused)
            reuse_view(&scalars->predictor_skin);
        else
            rebuild();
        interact();
        correct_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(reused), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_position_.get(), previous_velocity_[0].get(), previous_density_[0].get(), n_,
            fluid_, density_min_, density_max_, scalars, reused ? &scalars->step_skin : nullptr);
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        if (reused) // gauges after the step query the state through it
            reuse_view(&scalars->step_skin);
        mark(integration);
    } else {
        rebuild();
        interact();
        time_step_kernel<<<1, 1, 0, stream_>>>(fluid_, cfl_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        const bool euler = steps_ % static_cast<std::uint64_t>(verlet_reset_) == 0;
        const int in = previous_current_, out = 1 - previous_current_;
        verlet_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_velocity_[in].get(), previous_density_[in].get(),
            previous_velocity_[out].get(), previous_density_[out].get(), n_, euler, fluid_,
            density_min_, density_max_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        previous_current_ = out;
        mark(integration);
    }
    finish_step_kernel<<<1, 1, 0, stream_>>>(d_binned(), scalars_.get());
    SLUICE_CUDA_CHECK_LAUNCH();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(host_scalars_.get(), scalars_.get(), sizeof(StepScalars),
                                      cudaMemcpyDeviceToHost, stream_));
    mark(checks);
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (gauge_results_)
        gauge_results_->complete_pending(); // samples begun before this step are done too

    for (int k = 1; k < event_count_; ++k) {
        float ms = 0.0f;
        SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
        stage_seconds_[event_stage_[k]] += 1e-3 * ms;
    }
    const StepScalars s = *host_scalars_.get();
    dt_ = s.dt;
    time_ += dt_;
    ++steps_;
    binned_ = s.binned;
    if (s.bad_count)
        fail(s.bad_count);
    if (layout_ == Layout::index && n_ - binned_ != recorded_exclusions_)
        move_excluded_last();
    record_exclusions();
}

template <int D>
void CudaSimulation<D>::fail(std::uint32_t device_bad_count) {
    // The rare path: the whole state comes to the host and the message is made as the CPU
    // backend makes it (offenders by ascending id, at most 5).
    const std::vector<Vec<D>> position = download(positions(), n_, stream_);
    const std::vector<Float4> motion = download(motion_[current_].get(), n_, stream_);
    const std::vector<std::uint32_t> id = download(id_[current_].get(), n_, stream_);
    std::vector<Offender<D>> offenders;
    for (std::uint32_t k = 0; k < n_; ++k) {
        const ParticleState<D> p = unpack_particle(position[k], motion[k]);
        if (state_is_bad(p, density_min_, density_max_))
            offenders.push_back({id[k], p.type, p.density, p.position, p.velocity});
    }
    const std::size_t bad_count = offenders.empty() ? device_bad_count : offenders.size();
    throw SimulationFailure(
        failure_message(steps_, time_, bad_count, density_min_, density_max_, offenders));
}

template <int D>
void CudaSimulation<D>::record_exclusions() {
    // Excluded particles stay excluded (sorted after the binned ones), so there are new ones
    // only when the excluded count grew: otherwise nothing crosses to the host.
    if (n_ - binned_ == recorded_exclusions_)
        return;
    recorded_exclusions_ = n_ - binned_;
    const std::uint32_t tail = n_ - binned_;
    std::vector<std::uint32_t> id(tail);
    std::vector<Vec<D>> position(tail);
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(id.data(), id_[current_].get() + binned_,
                                      tail * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                      stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(position.data(), positions() + binned_, tail * sizeof(Vec<D>),
                                      cudaMemcpyDeviceToHost, stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    exclusions_.record(
        tail, id.data(), [&](std::uint32_t k) { return to_array3(plain_position(position[k])); },
        steps_, time_);
}

template <int D>
std::vector<Exclusion> CudaSimulation<D>::take_exclusions() {
    return exclusions_.take();
}

template <int D>
ParticleCounts CudaSimulation<D>::counts() const {
    ParticleCounts counts;
    counts.boundary = boundary_count_;
    counts.fluid = binned_ - boundary_count_; // boundary particles never leave the domain
    counts.excluded = n_ - binned_;
    return counts;
}

template <int D>
StageTimes CudaSimulation<D>::stage_times() const {
    return named_stage_times(stage_seconds_,
                             gauge_results_ ? gauge_results_->device_seconds() : 0.0);
}

template <int D>
std::size_t CudaSimulation<D>::device_bytes() const {
    return account_.bytes + builder_.device_bytes() + (snapshots_ ? snapshots_->device_bytes() : 0);
}

template <int D>
template <class QueryT, class ViewT>
void CudaSimulation<D>::launch_count(const ViewT& view, std::uint32_t* d_counts_by_id) {
    if (n_ == 0)
        return;
    count_neighbours_kernel<QueryT><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
        view, n_, indexes_input_order<ViewT> ? nullptr : builder_.d_permutation(),
        id_[current_].get(), d_counts_by_id);
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
std::vector<std::uint32_t> CudaSimulation<D>::neighbour_counts() {
    DeviceMemoryAccount scratch;
    DeviceArray<std::uint32_t> counts;
    counts.allocate(n_, scratch);
    SLUICE_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, n_ * sizeof(std::uint32_t), stream_));
    // A fresh build of the current positions; the state arrays are not reordered (the next
    // step builds again from them).
    view_ = builder_.build_view(positions(), n_, grid_, radius_, OutsidePolicy::exclude, layout_,
                                stream_);
    view_ready_ = false; // this view is not the state's order: a gauge sample rebuilds
    dispatch_neighbour_query<D>(query_, view_, LaunchCount<D>{this, counts.get()});
    return download(counts.get(), n_, stream_);
}

} // namespace gpu

} // namespace sluice

// The members that hand out snapshots, states and gauges, in this translation unit too.
#include "backends/cuda/cuda_simulation_outputs.cuh"

namespace sluice {

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

} // namespace sluice
