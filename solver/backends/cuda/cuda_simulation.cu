// The CUDA backend (cuda_backend.h): the WCSPH step of cpu_backend.cpp on the device. This file
// holds CudaSimulation's members for the step's orchestration; the kernels are step_kernels.cuh's,
// the snapshot copies snapshot_pool.cuh's, the snapshot, state and gauge members
// cuda_simulation_outputs.cuh's.

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
#include <utility>
#include <variant>

namespace sluice {

namespace gpu {

namespace {

float float_from_bits(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/// `grid` less one bin at each side of every axis that has more than two.
template <int D>
GridSpec<D> interior_grid(GridSpec<D> grid) {
    for (int a = 0; a < D; ++a)
        if (grid.dims[a] > 2) {
            grid.origin[a] += grid.bin_size;
            grid.dims[a] -= 2;
        }
    return grid;
}

} // namespace

template <int D>
CudaSimulation<D>::CudaSimulation(const Case& c, const DerivedConstants& derived,
                                  const SimulationState& state, bool restored,
                                  const CudaOptions& options, const Communicator* comm,
                                  SlabDecomposition slabs, std::uint64_t total_particles)
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
      build_grid_(grid_), radius_(static_cast<float>(derived_.support)), options_(options),
      n_(static_cast<std::uint32_t>(state.size())),
      boundary_count_(static_cast<std::uint32_t>(
          std::count(state.type.begin(), state.type.end(), ParticleType::boundary))),
      builder_(c.neighbours.construction), fluid_height_(state.fluid_height), time_(state.time),
      dt_(state.last_dt), steps_(state.steps),
      binned_(n_ - static_cast<std::uint32_t>(state.excluded.size())),
      recorded_exclusions_(n_ - binned_), comm_(comm), slabs_(std::move(slabs)),
      total_particles_(comm ? total_particles : n_),
      capacity_(static_cast<std::uint32_t>(comm ? total_particles : n_)) {
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
    bool walls_at_rest = true;    // dry wall particles are exact only then (DryWalls)
    double fluid_speed_max = 0.0; // m/s, the corrector's lists' first bound
    for (std::uint32_t k = 0; k < n_; ++k) {
        const std::uint32_t i = order[k];
        const Vec<D> x = from_array3<D>(state.position[i]);
        if (!grid_.contains(x) && outside++ == 0)
            first_outside = i;
        velocity[k] = from_array3<D>(state.velocity[i]);
        if (state.type[i] != ParticleType::fluid)
            for (int a = 0; a < D; ++a)
                walls_at_rest = walls_at_rest && velocity[k][a] == 0.0f;
        else
            fluid_speed_max =
                std::max(fluid_speed_max, std::sqrt(static_cast<double>(norm2(velocity[k]))));
        id[k] = state.id[i];
        density[k] = state.density[i];
        pack_particle<D>(fluid_, x, velocity[k], state.density[i], state.type[i], position[k],
                         motion[k]);
    }
    std::array<double, D> box_lo, box_hi; // of the particles inside the domain
    box_lo.fill(HUGE_VAL);
    box_hi.fill(-HUGE_VAL);
    for (std::uint32_t k = 0; k < n_; ++k)
        if (grid_.contains(plain_position(position[k])))
            for (int a = 0; a < D; ++a) {
                box_lo[a] = std::min<double>(box_lo[a], position[k][a]);
                box_hi[a] = std::max<double>(box_hi[a], position[k][a]);
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

    if (trace_)
        std::fprintf(stderr, "[sluice cuda] %u particles, %u bins: allocating\n", n_,
                     grid_.bin_count());
    SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& e : events_)
        SLUICE_CUDA_CHECK(cudaEventCreate(&e));
    // Everything a step touches is allocated here.
    builder_.reserve(capacity_, grid_.bin_count());
    position_[0].allocate(capacity_, account_);
    if (layout_ == Layout::index || comm_) // several GPUs: distribute() writes the other
        position_[1].allocate(capacity_, account_);
    for (int b = 0; b < 2; ++b) {
        motion_[b].allocate(capacity_, account_);
        id_[b].allocate(capacity_, account_);
    }
    derivatives_.allocate(capacity_, account_);
    const bool symplectic = integrator_ == IntegratorKind::symplectic;
    if (symplectic)
        previous_position_.allocate(capacity_, account_);
    for (int b = 0; b < (symplectic ? 1 : 2); ++b) {
        previous_velocity_[b].allocate(capacity_, account_);
        previous_density_[b].allocate(capacity_, account_);
    }
    scalars_.allocate(1, account_);
    if (comm_) {
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
        balance_interval_ = c.run.balance_interval;
        SLUICE_CUDA_CHECK(
            cudaMemsetAsync(tags_[0].get(), 0xff, capacity_ * sizeof(std::uint32_t), stream_));
        try {
            nccl_ = std::make_unique<NcclComm>(*comm_);
        } catch (const TransportUnavailable& e) {
            throw BackendUnavailable(e.what());
        }
    }
    host_scalars_.allocate(1);
    // The in-step walk takes a row of bins as one range of a reorder layout (halo copies walk
    // with their warps and query nothing). Over several GPUs each chooses for itself: the
    // kernels sum alike, so a choice changes the state by rounding only.
    const bool in_step_applies =
        layout_ == Layout::reorder &&
        std::visit([](auto q) { return !detail::bin_by_bin<decltype(q)>; }, query_);
    in_step_now_ = in_step_applies && options_.interaction == CudaInteraction::in_step;
    adaptive_ = in_step_applies && options_.interaction == CudaInteraction::adaptive &&
                options_.stage_timing;
    walls_at_rest_ = walls_at_rest;
    dry_walls_ = options_.skip_dry_walls && symplectic && layout_ == Layout::reorder &&
                 walls_at_rest && MonaghanMolteniModel::matches(fluid_) &&
                 options_.interaction != CudaInteraction::queued;
    if (dry_walls_) {
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
        dry_margin_ = radius_ / 3.0f;
        if (comm_)
            dry_margin_ =
                std::min(dry_margin_, static_cast<float>(0.9 * (slabs_.halo_width - radius_)));
    }
    // Several GPUs: a halo copy keeps its index from the predictor's pass to the corrector's
    // (refresh_halo rewrites its data in place), and the largest speed is every GPU's.
    lists_ = options_.corrector == CorrectorNeighbours::lists && reuse_for_corrector() &&
             options_.interaction != CudaInteraction::queued &&
             std::visit([](auto q) { return !detail::in_label_order<decltype(q)>; }, query_);
    if (lists_) {
        list_capacity_ = options_.corrector_list_entries > 0 ? options_.corrector_list_entries
                                                             : corrector_list_capacity(c);
        // time_step (integrators.h) from the same float constants: dt ≤ cfl · h / c0.
        const double dt_bound = options_.corrector_list_dt_scale * cfl_ *
                                static_cast<double>(fluid_.h) / static_cast<double>(fluid_.c0);
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
    if (layout_ == Layout::index) {
        SLUICE_CUDA_CHECK(cub::DevicePartition::Flagged(
            nullptr, partition_temp_bytes_, static_cast<const std::uint32_t*>(nullptr),
            static_cast<const unsigned char*>(nullptr), static_cast<std::uint32_t*>(nullptr),
            static_cast<std::uint32_t*>(nullptr), static_cast<int>(capacity_)));
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
    exclusions_ = ExclusionLog(total_particles_);
    exclusions_.mark_reported(state.excluded);
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
                                            "checks",       "halo",    "migration",   "waiting"};
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
    view_ = builder_.build_view(positions(), n_, build_grid_, radius_, OutsidePolicy::exclude,
                                layout_, stream_);
    mark(construction);
    if (layout_ == Layout::reorder) {
        const int next = 1 - current_;
        // Tags (several GPUs) and dry-wall certificates are null where the run has none.
        gather(stream_, builder_.d_permutation(), n_,
               GatherPair<Float4>{motion_[current_].get(), motion_[next].get()},
               GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get()},
               GatherPair<std::uint32_t>{tags_[current_].get(), tags_[next].get()},
               GatherPair<float>{dry_until_[current_].get(), dry_until_[next].get()});
        current_ = next;
    }
    if (comm_)
        index_slots();
    view_ready_ = true;
    mark(reorder);
}

template <int D>
void CudaSimulation<D>::adapt_interaction(double interaction_seconds) {
    // steps_ counts the step just timed; a step whose number before it was a multiple of 16
    // also looked again at wet walls (interact()), so it is neither averaged nor a probe.
    const bool looked_again = dry_walls_ && (steps_ - 1) % 16 == 0;
    if (probing_) {
        probing_ = false;
        next_probe_ = steps_ + probe_interval;
        if (interaction_seconds < 0.98 * interaction_mean_)
            interaction_mean_ = interaction_seconds; // the probed kernel stays
        else
            in_step_now_ = !in_step_now_;
        return;
    }
    if (!looked_again)
        interaction_mean_ = interaction_mean_ == 0.0
                                ? interaction_seconds
                                : 0.9 * interaction_mean_ + 0.1 * interaction_seconds;
    const bool next_looks_again = dry_walls_ && steps_ % 16 == 0;
    if (steps_ >= next_probe_ && !next_looks_again && interaction_mean_ > 0.0) {
        probing_ = true;
        in_step_now_ = !in_step_now_;
    }
}

template <int D>
BuildOrder<D> CudaSimulation<D>::build_order(bool reused) const {
    const bool sorted = layout_ == Layout::reorder;
    return BuildOrder<D>{view_positions(), sorted ? d_binned() : nullptr,
                         sorted && !reused ? builder_.d_permutation() : nullptr, build_grid_};
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
        view_positions(), n_, build_grid_, index, inside);
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
           GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get()},
           GatherPair<std::uint32_t>{tags_[current_].get(), tags_[next].get()}); // several GPUs
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
    DryWalls dry;
    NeighbourLists lists;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_interaction<QueryT>(view, kernel, dry, lists);
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
void CudaSimulation<D>::launch_interaction(const ViewT& view, const KernelT& kernel,
                                           const DryWalls& dry, const NeighbourLists& lists) {
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    const unsigned blocks = blocks_for(n_, interaction_block);
    if (options_.interaction != CudaInteraction::queued) {
        // The default physics with its models fixed at compile time (physics.h), else any; the
        // in-step walk where the traversal takes a row as one range of a reorder layout; the
        // corrector's lists where the traversal is in bin order over a reorder layout.
        const auto launch = [&](auto in_step, auto list_mode) {
            if (MonaghanMolteniModel::matches(fluid_))
                interaction_kernel<QueryT, ViewT, KernelT, 0, MonaghanMolteniModel, in_step(),
                                   list_mode()><<<blocks, interaction_block, 0, stream_>>>(
                    view, particles, kernel, fluid_, n_, derivatives_.get(), scalars_.get(),
                    d_tags(), dry, lists);
            else
                interaction_kernel<QueryT, ViewT, KernelT, 0, RuntimeModel, in_step(), list_mode()>
                    <<<blocks, interaction_block, 0, stream_>>>(view, particles, kernel, fluid_, n_,
                                                                derivatives_.get(), scalars_.get(),
                                                                d_tags(), DryWalls{}, lists);
        };
        constexpr bool walks_reorder = std::is_same_v<ViewT, NeighbourView<D>>;
        constexpr bool in_step_capable = walks_reorder && !detail::bin_by_bin<QueryT>;
        constexpr bool list_capable = walks_reorder && !detail::in_label_order<QueryT>;
        using NoLists = std::integral_constant<ListMode, ListMode::none>;
        using WriteLists = std::integral_constant<ListMode, ListMode::write>;
        using ReadLists = std::integral_constant<ListMode, ListMode::read>;
        // The build pass (in step or not) writes the lists, the corrector's reads them directly.
        const auto walk = [&](auto in_step) {
            if constexpr (list_capable) {
                if (lists.indices != nullptr) {
                    if (lists.write)
                        launch(in_step, WriteLists{});
                    else
                        launch(std::false_type{}, ReadLists{});
                    return;
                }
            }
            launch(in_step, NoLists{});
        };
        if constexpr (in_step_capable) {
            if (in_step_now_) {
                walk(std::true_type{});
                SLUICE_CUDA_CHECK_LAUNCH();
                return;
            }
        }
        walk(std::false_type{});
    } else {
        constexpr int capacity = queue_capacity<D>;
        constexpr std::size_t shared = sizeof(std::uint32_t) * capacity * interaction_block;
        auto* function = &interaction_kernel<QueryT, ViewT, KernelT, capacity, RuntimeModel>;
        // Above 48 KB of shared memory (queue + CUB's storage) a kernel must opt in; once per
        // instantiation.
        static const bool configured = [function] {
            SLUICE_CUDA_CHECK(cudaFuncSetAttribute(
                function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
            return true;
        }();
        (void)configured;
        function<<<blocks, interaction_block, shared, stream_>>>(
            view, particles, kernel, fluid_, n_, derivatives_.get(), scalars_.get(), d_tags(),
            DryWalls{}, NeighbourLists{});
    }
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
void CudaSimulation<D>::interact(Pass pass) {
    DryWalls dry;
    if (dry_walls_ && pass != Pass::other) { // the default physics' direct pass (constructor)
        dry.until = dry_until_[current_].get();
        dry.travel = travel_.get();
        dry.pass_skin = pass == Pass::corrector ? &scalars_.get()->predictor_skin : nullptr;
        dry.margin = dry_margin_;
        dry.reach = radius_ + dry_margin_;
        dry.reach2 = dry.reach * dry.reach;
        dry.retry_wet = steps_ % 16 == 0;
    }
    NeighbourLists lists;
    if (lists_ && pass != Pass::other) {
        lists.indices = list_indices_.get();
        lists.counts = list_counts_.get();
        lists.capacity = list_capacity_;
        lists.write = pass == Pass::build;
        lists.walls_list_fluid = walls_at_rest_;
        lists.dt_bound = list_dt_bound_;
        lists.speed_max = list_speed_max_;
        lists.dt = &scalars_.get()->dt_float;
    }
    dispatch_neighbour_query<D>(query_, view_,
                                with_kernel(LaunchInteraction<D>{this, dry, lists}, kernel_));
    mark(interaction);
    if (nccl_) { // the pass's maxima over every GPU (float bits of non-negative floats)
        nccl_->max(&scalars_.get()->acceleration_max2_bits, 2, stream_);
        mark(waiting);
    }
}

template <int D>
void CudaSimulation<D>::step() {
    if (options_.stage_timing) {
        event_count_ = 0;
        SLUICE_CUDA_CHECK(cudaEventRecord(events_[event_count_++], stream_));
    }
    SLUICE_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, sizeof(StepScalars), stream_));
    if (comm_)
        distribute();
    const unsigned blocks = blocks_for(n_, block_size);
    if (integrator_ == IntegratorKind::symplectic) {
        // Predictor with the derivatives of state n, then a corrector with those of n+½, on the
        // predictor's neighbour structure (reorder layout) or on a new one.
        const bool reused = reuse_for_corrector();
        const bool skins = reused || dry_walls_; // the largest moves: skins, the fluid's travel
        StepScalars* const scalars = scalars_.get();
        rebuild();
        interact(Pass::build);
        time_step_kernel<<<1, 1, 0, stream_>>>(fluid_, cfl_, scalars);
        SLUICE_CUDA_CHECK_LAUNCH();
        predict_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_position_.get(), previous_velocity_[0].get(), previous_density_[0].get(), n_,
            fluid_, scalars, skins ? &scalars->predictor_skin : nullptr);
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        mark(integration);
        if (comm_) { // the halo at n+½, and the skin covering its moves too
            refresh_halo(reused ? &scalars->predictor_skin : nullptr);
            mark(halo);
            if (dry_walls_) { // the corrector's certificates: every GPU's fluid moved so far
                nccl_->max(reinterpret_cast<std::uint32_t*>(&scalars->predictor_skin), 1, stream_);
                mark(waiting);
            }
        }
        // The corrector's neighbours: the predictor's structure over the predicted positions,
        // widened by how far they moved (exact, query.h), or a new build.
        if (reused)
            reuse_view(&scalars->predictor_skin);
        else
            rebuild();
        interact(Pass::corrector);
        correct_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(reused), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_position_.get(), previous_velocity_[0].get(), previous_density_[0].get(), n_,
            fluid_, density_min_, density_max_, scalars, skins ? &scalars->step_skin : nullptr,
            d_tags(), comm_ || lists_);
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        if (reused) // gauges after the step query the state through it
            reuse_view(&scalars->step_skin);
        mark(integration);
    } else {
        rebuild();
        interact(Pass::other);
        time_step_kernel<<<1, 1, 0, stream_>>>(fluid_, cfl_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        const bool euler = steps_ % static_cast<std::uint64_t>(verlet_reset_) == 0;
        const int in = previous_current_, out = 1 - previous_current_;
        verlet_kernel<D><<<blocks, block_size, 0, stream_>>>(
            build_order(), integration_output(), motion_[current_].get(), derivatives_.get(),
            previous_velocity_[in].get(), previous_density_[in].get(),
            previous_velocity_[out].get(), previous_density_[out].get(), n_, euler, fluid_,
            density_min_, density_max_, scalars_.get(), d_tags());
        SLUICE_CUDA_CHECK_LAUNCH();
        integration_written();
        previous_current_ = out;
        mark(integration);
    }
    if (n_ > 0) {
        bounding_box_kernel<D>
            <<<std::min(blocks_for(n_, block_size), box_blocks), block_size, 0, stream_>>>(
                positions(), n_, grid_, interior_grid(grid_), build_grid_, scalars_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    if (nccl_) { // failures, escapes, the largest speed and the box over every GPU
        mark(checks);
        nccl_->sum(&scalars_.get()->bad_count, 2, stream_);
        // With dry walls, the skins too (they sit just before): the fluid's travel below
        // bounds every GPU's fluid.
        if (dry_walls_)
            nccl_->max(reinterpret_cast<std::uint32_t*>(&scalars_.get()->predictor_skin), 9,
                       stream_);
        else
            nccl_->max(&scalars_.get()->speed_max_bits, 7, stream_);
        mark(waiting);
    }
    finish_step_kernel<<<1, 1, 0, stream_>>>(d_binned(), scalars_.get(),
                                             dry_walls_ ? travel_.get() : nullptr);
    SLUICE_CUDA_CHECK_LAUNCH();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(host_scalars_.get(), scalars_.get(), sizeof(StepScalars),
                                      cudaMemcpyDeviceToHost, stream_));
    mark(checks);
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (gauge_results_)
        gauge_results_->complete_pending(); // samples begun before this step are done too

    double interaction_seconds = 0.0;
    for (int k = 1; k < event_count_; ++k) {
        float ms = 0.0f;
        SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
        stage_seconds_[event_stage_[k]] += 1e-3 * ms;
        if (event_stage_[k] == interaction)
            interaction_seconds += 1e-3 * ms;
    }
    const StepScalars s = *host_scalars_.get();
    dt_ = s.dt;
    time_ += dt_;
    ++steps_;
    if (in_step_now_)
        ++in_step_steps_;
    if (lists_) {
        if (s.dt_float <= list_dt_bound_) // as the corrector's pass decided
            ++corrector_list_steps_;
        list_speed_max_ = float_from_bits(s.speed_max_bits) * (1.0f + 1e-5f);
    }
    if (adaptive_)
        adapt_interaction(interaction_seconds);
    binned_ = s.binned;
    if (s.bad_count)
        fail(s.bad_count);
    // A build on predicted positions (the corrector's, when it rebuilds) held only what lay in
    // build_grid_: a particle that moved out of it, further than the search radius in a step,
    // would have been left out. The CFL condition keeps moves far below that.
    if (s.escaped && integrator_ == IntegratorKind::symplectic && !reuse_for_corrector()) {
        std::ostringstream msg;
        msg << "simulation failed at step " << steps_ << ", t = " << time_ << " s: " << s.escaped
            << " particle(s) moved further than the search radius (" << radius_
            << " m) in one step; lower the case's cfl";
        throw SimulationFailure(msg.str());
    }
    if (comm_)
        if (const std::string why = move_beyond_halo(
                slabs_, steps_, time_, dt_, float_from_bits(s.speed_max_bits), largest_speed_,
                std::sqrt(static_cast<double>(float_from_bits(s.acceleration_max2_bits))));
            !why.empty())
            throw SimulationFailure(why);
    if (layout_ == Layout::index && n_ - binned_ != recorded_exclusions_)
        move_excluded_last();
    record_exclusions();
    if (comm_ && balance_interval_ > 0 &&
        steps_ % static_cast<std::uint64_t>(balance_interval_) == 0)
        balance();
    std::array<double, D> box_lo, box_hi;
    for (int a = 0; a < D; ++a) {
        const bool any = s.box_keys[a] != 0;
        box_hi[a] = any ? from_ordered_key(s.box_keys[a]) : -HUGE_VAL;
        box_lo[a] = any ? -from_ordered_key(s.box_keys[3 + a]) : HUGE_VAL;
    }
    cover(box_lo, box_hi);
}

template <int D>
void CudaSimulation<D>::cover(std::array<double, D> lo, std::array<double, D> hi) {
    if (!(lo[0] <= hi[0])) { // no particle inside the domain: a build holds none anyway
        build_grid_ = grid_;
        return;
    }
    for (int a = 0; a < D; ++a) {
        lo[a] -= radius_;
        hi[a] += radius_;
    }
    if (comm_) {
        const auto [lower, upper] = slab_reach(slabs_, comm_->rank());
        lo[slabs_.axis] = std::max(lo[slabs_.axis], lower);
        hi[slabs_.axis] = std::min(hi[slabs_.axis], upper);
    }
    build_grid_ = covering_grid<D>(grid_, lo, hi);
}

/// balance()'s estimate of a boundary particle's share of an interaction pass against a fluid
/// particle's: on the H100 at 10^6 particles (solver/BENCHMARK.md, "Tried in issue 9"), skipping
/// every wall particle's neighbour loop saved 0.18 of the pass's 1.32 ms: 0.49 ns per wall
/// particle against 1.69 ns per fluid one. The measured times correct the rest.
constexpr double boundary_work_share = 0.3;

template <int D>
void CudaSimulation<D>::balance() {
    const auto started = std::chrono::steady_clock::now();
    const std::vector<double> seconds =
        work_since_balance(*comm_, step_work_seconds(stage_seconds_), balanced_seconds_);
    // Owned particles per bin column (integer counts: the same sums in any order), over every
    // process: each column's estimated work.
    const auto columns = static_cast<std::uint32_t>(bin_columns(slabs_));
    SLUICE_CUDA_CHECK(cudaMemsetAsync(column_counts_.get(), 0,
                                      2 * std::size_t{columns} * sizeof(std::uint32_t), stream_));
    if (binned_ > 0) {
        column_counts_kernel<D><<<blocks_for(binned_, block_size), block_size, 0, stream_>>>(
            positions(), motion_[current_].get(), tags_[current_].get(), binned_, slabs_.axis,
            slabs_.faces.front(), slabs_.bin, columns, column_counts_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::vector<std::uint32_t> counts =
        download(column_counts_.get(), 2 * std::size_t{columns}, stream_);
    std::vector<double> work_per_bin(columns);
    for (std::size_t k = 0; k < columns; ++k)
        work_per_bin[k] = counts[2 * k] + boundary_work_share * counts[2 * k + 1];
    comm_->sum(work_per_bin.data(), static_cast<int>(columns));
    SlabDecomposition moved = rebalanced_slabs(slabs_, seconds, work_per_bin, balance_tolerance);
    if (moved.faces != slabs_.faces) {
        moved.history.emplace_back(steps_, moved.faces);
        slabs_ = std::move(moved);
    }
    stage_seconds_[waiting] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

template <int D>
void CudaSimulation<D>::fail(std::uint32_t device_bad_count) {
    // The rare path: the whole state comes to the host and the message is made as the CPU
    // backend makes it (offenders by ascending id, at most 5).
    const std::vector<Vec<D>> position = download(positions(), n_, stream_);
    const std::vector<Float4> motion = download(motion_[current_].get(), n_, stream_);
    const std::vector<std::uint32_t> id = download(id_[current_].get(), n_, stream_);
    const std::vector<std::uint32_t> tags = download_tags(n_);
    std::vector<Offender<D>> offenders;
    for (std::uint32_t k = 0; k < n_; ++k) {
        if (is_halo(tags[k])) // its owner reports it
            continue;
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
    if (comm_) { // a halo copy's owner records it
        std::vector<std::uint32_t> tags(tail);
        SLUICE_CUDA_CHECK(cudaMemcpy(tags.data(), tags_[current_].get() + binned_,
                                     tail * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
        std::uint32_t kept = 0;
        for (std::uint32_t k = 0; k < tail; ++k)
            if (!is_halo(tags[k])) {
                id[kept] = id[k];
                position[kept] = position[k];
                ++kept;
            }
        id.resize(kept);
        position.resize(kept);
    }
    exclusions_.record(
        static_cast<std::uint32_t>(id.size()), id.data(),
        [&](std::uint32_t k) { return to_array3(plain_position(position[k])); }, steps_, time_);
}

template <int D>
std::vector<Exclusion> CudaSimulation<D>::take_exclusions() {
    return exclusions_.take();
}

template <int D>
ParticleCounts CudaSimulation<D>::counts() const {
    ParticleCounts counts;
    if (comm_) { // this process's own particles
        const std::vector<std::uint32_t> tags = download_tags(n_);
        const std::vector<Float4> motion = download(motion_[current_].get(), n_, stream_);
        for (std::uint32_t k = 0; k < n_; ++k) {
            if (is_halo(tags[k]))
                continue;
            if (k >= binned_)
                ++counts.excluded;
            else if (decode_type(motion_signed_density<D>(motion[k])) == ParticleType::fluid)
                ++counts.fluid;
            else
                ++counts.boundary;
        }
        return counts;
    }
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
BackendCounters CudaSimulation<D>::counters() const {
    BackendCounters c;
    c.device_bytes = device_bytes();
    c.device_allocations = account_.allocations + builder_.allocation_count();
    c.dry_walls = dry_wall_count();
    c.in_step_steps = in_step_steps_;
    c.corrector_list_steps = corrector_list_steps_;
    return c;
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
    view_ = builder_.build_view(positions(), n_, build_grid_, radius_, OutsidePolicy::exclude,
                                layout_, stream_);
    view_ready_ = false; // this view is not the state's order: a gauge sample rebuilds
    dispatch_neighbour_query<D>(query_, view_, LaunchCount<D>{this, counts.get()});
    return download(counts.get(), n_, stream_);
}

template <int D>
std::uint32_t CudaSimulation<D>::dry_wall_count() const {
    if (!dry_walls_)
        return 0;
    const std::vector<float> until = download(dry_until_[current_].get(), n_, stream_);
    const std::vector<double> travel = download(travel_.get(), 1, stream_);
    return static_cast<std::uint32_t>(std::count_if(
        until.begin(), until.end(), [&](float u) { return static_cast<double>(u) > travel[0]; }));
}

template <int D>
std::vector<std::uint32_t> CudaSimulation<D>::download_tags(std::uint32_t count) const {
    if (!comm_)
        return std::vector<std::uint32_t>(count, tag_owned);
    return download(tags_[current_].get(), count, stream_);
}

template <int D>
std::array<std::uint32_t, 5> CudaSimulation<D>::sort_by_keys(std::uint32_t n,
                                                             const std::uint32_t* order_out) {
    std::size_t bytes = sort_temp_bytes_;
    SLUICE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        sort_temp_.get(), bytes, keys_[0].get(), keys_[1].get(), order_[0].get(),
        const_cast<std::uint32_t*>(order_out), static_cast<int>(n), 0, 3, stream_));
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(host_counts_.get(), class_counts_.get(),
                                      5 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream_));
    SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::array<std::uint32_t, 5> counts{};
    std::copy(host_counts_.get(), host_counts_.get() + 5, counts.begin());
    return counts;
}

/// Counts to and from the neighbouring processes (host, through MPI).
static void exchange_counts(const Communicator& comm, std::uint32_t to_lower,
                            std::uint32_t to_upper, std::uint32_t& from_lower,
                            std::uint32_t& from_upper) {
    auto bytes = [](std::uint32_t v) {
        std::vector<std::byte> b(sizeof v);
        std::memcpy(b.data(), &v, sizeof v);
        return b;
    };
    std::vector<std::byte> lower, upper;
    comm.exchange_with_neighbours(
        comm.rank() > 0 ? bytes(to_lower) : std::vector<std::byte>{},
        comm.rank() + 1 < comm.size() ? bytes(to_upper) : std::vector<std::byte>{}, lower, upper);
    from_lower = lower.empty() ? 0 : ByteReader(lower).get<std::uint32_t>();
    from_upper = upper.empty() ? 0 : ByteReader(upper).get<std::uint32_t>();
}

template <int D>
void CudaSimulation<D>::distribute() {
    const int rank = comm_->rank();
    const double lower = slabs_.lower(rank), upper = slabs_.upper(rank);
    const int axis = slabs_.axis;
    const int next = 1 - current_;
    const bool verlet = integrator_ == IntegratorKind::verlet;
    const int previous_next = 1 - previous_current_;
    Vec<D>* const new_positions = position_[1 - position_current_].get();
    const std::size_t record = sizeof(ParticleRecord<D>);

    // 1. The halo goes; particles that left the slab (not the domain) go to their new owner.
    SLUICE_CUDA_CHECK(cudaMemsetAsync(class_counts_.get(), 0, 8 * sizeof(std::uint32_t), stream_));
    if (n_ > 0) {
        migration_keys_kernel<D><<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
            positions(), tags_[current_].get(), n_, binned_, grid_, axis, lower, upper,
            keys_[0].get(), order_[0].get(), class_counts_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::array<std::uint32_t, 5> moved = sort_by_keys(n_, order_[1].get());
    const std::uint32_t kept = moved[0], frozen = moved[1], down = moved[2], up = moved[3];
    const std::uint32_t* sorted = order_[1].get();
    if (down + up > 0) {
        pack_records_kernel<D><<<blocks_for(down + up, block_size), block_size, 0, stream_>>>(
            sorted + kept + frozen, down + up, positions(), motion_[current_].get(),
            id_[current_].get(), verlet ? previous_velocity_[previous_current_].get() : nullptr,
            verlet ? previous_density_[previous_current_].get() : nullptr, send_records_.get(),
            nullptr, 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    std::uint32_t from_below = 0, from_above = 0;
    exchange_counts(*comm_, down, up, from_below, from_above);
    nccl_->exchange(send_records_.get(), down * record, send_records_.get() + down, up * record,
                    receive_records_.get(), from_below * record,
                    receive_records_.get() + from_below, from_above * record, stream_);
    if (kept > 0) // Verlet's step n−1 and dry-wall certificates where the run has them
        gather(stream_, sorted, kept, GatherPair<Vec<D>>{positions(), new_positions},
               GatherPair<Float4>{motion_[current_].get(), motion_[next].get()},
               GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get()},
               GatherPair<Vec<D>>{verlet ? previous_velocity_[previous_current_].get() : nullptr,
                                  previous_velocity_[previous_next].get()},
               GatherPair<float>{verlet ? previous_density_[previous_current_].get() : nullptr,
                                 previous_density_[previous_next].get()},
               GatherPair<float>{dry_until_[current_].get(), dry_until_[next].get()});
    const std::uint32_t arrived = from_below + from_above;
    if (arrived > 0) {
        unpack_records_kernel<D><<<blocks_for(arrived, block_size), block_size, 0, stream_>>>(
            receive_records_.get(), arrived, kept, new_positions, motion_[next].get(),
            id_[next].get(), tags_[next].get(),
            verlet ? previous_velocity_[previous_next].get() : nullptr,
            verlet ? previous_density_[previous_next].get() : nullptr, false, 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::uint32_t active = kept + arrived;
    // Every particle here is owned now (a tag of the last halo sent means nothing any more).
    SLUICE_CUDA_CHECK(
        cudaMemsetAsync(tags_[next].get(), 0xff, active * sizeof(std::uint32_t), stream_));
    mark(migration);

    // 2. The halo: owned particles within halo_width of a face, to the neighbour beyond it.
    SLUICE_CUDA_CHECK(cudaMemsetAsync(class_counts_.get(), 0, 8 * sizeof(std::uint32_t), stream_));
    if (active > 0) {
        halo_keys_kernel<D><<<blocks_for(active, block_size), block_size, 0, stream_>>>(
            new_positions, active, grid_, axis, lower, upper, slabs_.halo_width, rank > 0,
            rank + 1 < comm_->size(), keys_[0].get(), order_[0].get(), class_counts_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::array<std::uint32_t, 5> sending = sort_by_keys(active, order_[2].get());
    sent_below_ = sending[1];
    sent_above_ = sending[2];
    if (sent_below_ + sent_above_ > 0) {
        pack_records_kernel<D>
            <<<blocks_for(sent_below_ + sent_above_, block_size), block_size, 0, stream_>>>(
                order_[2].get() + sending[0], sent_below_ + sent_above_, new_positions,
                motion_[next].get(), id_[next].get(),
                verlet ? previous_velocity_[previous_next].get() : nullptr,
                verlet ? previous_density_[previous_next].get() : nullptr, send_records_.get(),
                tags_[next].get(), 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    exchange_counts(*comm_, sent_below_, sent_above_, received_below_, received_above_);
    nccl_->exchange(send_records_.get(), sent_below_ * record, send_records_.get() + sent_below_,
                    sent_above_ * record, receive_records_.get(), received_below_ * record,
                    receive_records_.get() + received_below_, received_above_ * record, stream_);
    const std::uint32_t received = received_below_ + received_above_;
    if (received > 0) {
        unpack_records_kernel<D><<<blocks_for(received, block_size), block_size, 0, stream_>>>(
            receive_records_.get(), received, active, new_positions, motion_[next].get(),
            id_[next].get(), tags_[next].get(),
            verlet ? previous_velocity_[previous_next].get() : nullptr,
            verlet ? previous_density_[previous_next].get() : nullptr, true, 0);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    // 3. The frozen (excluded) particles last, as the builds keep them.
    const std::uint32_t at = active + received;
    if (at + frozen > capacity_)
        throw std::logic_error("distribute: more particles than the run holds");
    if (frozen > 0) {
        gather(stream_, sorted + kept, frozen, GatherPair<Vec<D>>{positions(), new_positions + at},
               GatherPair<Float4>{motion_[current_].get(), motion_[next].get() + at},
               GatherPair<std::uint32_t>{id_[current_].get(), id_[next].get() + at});
        if (verlet)
            gather(stream_, sorted + kept, frozen,
                   GatherPair<Vec<D>>{previous_velocity_[previous_current_].get(),
                                      previous_velocity_[previous_next].get() + at},
                   GatherPair<float>{previous_density_[previous_current_].get(),
                                     previous_density_[previous_next].get() + at});
        SLUICE_CUDA_CHECK(
            cudaMemsetAsync(tags_[next].get() + at, 0xff, frozen * sizeof(std::uint32_t), stream_));
    }
    if (dry_walls_ && at + frozen > kept) // arrivals, halo copies, frozen: not certified
        SLUICE_CUDA_CHECK(cudaMemsetAsync(dry_until_[next].get() + kept, 0,
                                          (at + frozen - kept) * sizeof(float), stream_));
    n_ = at + frozen;
    binned_ = at;
    recorded_exclusions_ = frozen;
    current_ = next;
    if (verlet)
        previous_current_ = previous_next;
    position_current_ = 1 - position_current_;
    view_ready_ = false;
    mark(halo);
}

template <int D>
void CudaSimulation<D>::index_slots() {
    if (n_ > 0) {
        slot_index_kernel<<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
            tags_[current_].get(), n_, halo_index_.get(), sent_index_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
    }
}

template <int D>
void CudaSimulation<D>::refresh_halo(float* skin) {
    const std::uint32_t sent = sent_below_ + sent_above_;
    const std::uint32_t received = received_below_ + received_above_;
    auto* out = reinterpret_cast<HaloRecord<D>*>(send_records_.get());
    auto* in = reinterpret_cast<HaloRecord<D>*>(receive_records_.get());
    if (sent > 0) {
        pack_halo_kernel<D><<<blocks_for(sent, block_size), block_size, 0, stream_>>>(
            sent_index_.get(), sent, positions(), motion_[current_].get(), out);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
    const std::size_t record = sizeof(HaloRecord<D>);
    nccl_->exchange(out, sent_below_ * record, out + sent_below_, sent_above_ * record, in,
                    received_below_ * record, in + received_below_, received_above_ * record,
                    stream_);
    if (received > 0) {
        unpack_halo_kernel<D><<<blocks_for(received, block_size), block_size, 0, stream_>>>(
            in, received, halo_index_.get(), positions(), motion_[current_].get(), view_positions(),
            skin);
        SLUICE_CUDA_CHECK_LAUNCH();
    }
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

namespace {

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
    SlabStart start = initial_slab(c, particles, comm);
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
    SlabResume resume = resume_slab(c, piece, slabs);
    if (c.dimension == 2)
        return std::make_unique<gpu::CudaSimulation<2>>(c, resume.derived, piece, true, options,
                                                        &comm, std::move(resume.slabs),
                                                        total_particles);
    return std::make_unique<gpu::CudaSimulation<3>>(c, resume.derived, piece, true, options, &comm,
                                                    std::move(resume.slabs), total_particles);
}

} // namespace sluice
