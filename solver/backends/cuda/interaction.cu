// The Interaction pass of the CUDA backend (step_plan.h): one launch of the interaction kernel
// (interaction_kernels.cuh) per pass, the kernel instantiation chosen once per launch from the
// plan's traversal, layout and smoothing kernel and from the backend's interaction scheme
// (direct, queued, in step, adaptive), with the dry wall particles' certificates and the
// corrector's neighbour lists; then the pass's maxima over every GPU.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/dispatch.cuh"
#include "backends/cuda/interaction_kernels.cuh"
#include "neighbours/cuda_check.h"

#include <type_traits>
#include <variant>

namespace sluice::gpu {

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
struct LaunchInteraction {
    CudaSimulation<D>* simulation;
    DryWalls dry;
    NeighbourLists lists;
    Vec<D>* shift;
    FluidConstants fluid;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_interaction<QueryT>(view, kernel, dry, lists, shift, fluid);
    }
};

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_interaction(const ViewT& view, const KernelT& kernel,
                                           const DryWalls& dry, const NeighbourLists& lists,
                                           Vec<D>* shift, const FluidConstants& fluid) {
    PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    if (fluid.moving_walls) { // mDBC: continuity reads a moving wall's own velocity
        particles.ids = id_[current_].get();
        particles.walls = walls_view();
    }
    const unsigned blocks = blocks_for(n_, interaction_block);
    if (fluid.diffusion == DensityDiffusion::antuono2010) { // δ-SPH's gradients first
        density_gradient_kernel<QueryT><<<blocks, interaction_block, 0, stream_>>>(
            view, particles, kernel, fluid.mass, n_, density_gradient_.get());
        SLUICE_CUDA_CHECK_LAUNCH();
        particles.density_gradient = density_gradient_.get();
    }
    if (options_.interaction != CudaInteraction::queued) {
        // The default physics, with shifting, and the load cases' (Riemann, with and without
        // shifting) with their models fixed at compile time (physics.h; the default physics
        // with shifting and the load cases' with Wendland's kernel only, to bound the
        // instantiations), else any; a model that cannot shift gets no shift store, and only
        // the default physics' pass skips dry walls (interaction_kernel's dry_capable). The
        // in-step walk where the traversal takes a row as one range of a reorder layout; the
        // corrector's lists where the traversal is in bin order over a reorder layout.
        const auto launch = [&](auto in_step, auto list_mode) {
            const auto run = [&](auto* model) { // the model by its pointer type
                using ModelT = std::remove_pointer_t<decltype(model)>;
                constexpr bool dry_capable = std::is_same_v<ModelT, MonaghanMolteniModel>;
                interaction_kernel<QueryT, ViewT, KernelT, 0, ModelT, decltype(in_step)::value,
                                   decltype(list_mode)::value>
                    <<<blocks, interaction_block, 0, stream_>>>(
                        view, particles, kernel, fluid, n_, derivatives_.get(),
                        ModelT::can_shift ? shift : nullptr, scalars_.get(), d_tags(),
                        dry_capable ? dry : DryWalls{}, lists);
            };
            if constexpr (std::is_same_v<KernelT, WendlandC2<D>>) {
                if (RiemannShiftingModel::matches(fluid))
                    return run(static_cast<RiemannShiftingModel*>(nullptr));
                if (MonaghanMolteniShiftingModel::matches(fluid))
                    return run(static_cast<MonaghanMolteniShiftingModel*>(nullptr));
                if (RiemannModel::matches(fluid)) // the pass that sums no shifting
                    return run(static_cast<RiemannModel*>(nullptr));
            }
            if (MonaghanMolteniModel::matches(fluid))
                return run(static_cast<MonaghanMolteniModel*>(nullptr));
            run(static_cast<RuntimeModel*>(nullptr));
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
            view, particles, kernel, fluid, n_, derivatives_.get(), shift, scalars_.get(), d_tags(),
            DryWalls{}, NeighbourLists{});
    }
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
void CudaSimulation<D>::interact(InteractionRole role) {
    DryWalls dry;
    if (dry_walls_ &&
        role != InteractionRole::verlet) { // the default physics' direct pass (constructor)
        dry.until = dry_until_[current_].get();
        dry.travel = travel_.get();
        dry.pass_skin =
            role == InteractionRole::corrector ? &scalars_.get()->predictor_skin : nullptr;
        dry.margin = dry_margin_;
        dry.reach = plan_.radius + dry_margin_;
        dry.reach2 = dry.reach * dry.reach;
        dry.retry_wet = steps_ % 16 == 0;
        dry.relative = plan_.moving_walls ? 2.0f : 1.0f;
    }
    NeighbourLists lists;
    if (lists_ && role != InteractionRole::verlet) {
        lists = neighbour_lists();
        if (keep_lists_) { // written with the build (rebuild()), read while the skin holds
            lists.moved = role == InteractionRole::predictor ? list_moved_.get()
                                                             : &scalars_.get()->predictor_skin;
        } else { // the step's: written by the predictor's pass, read by the corrector's
            lists.write = role == InteractionRole::predictor;
            lists.wall_speed = plan_.wall_speed_bound;
            lists.wall_speed_now = plan_.floating ? wall_speed_.get() : nullptr;
            lists.dt_bound = list_dt_bound_;
            lists.speed_max = list_speed_max_;
            lists.dt = &scalars_.get()->dt_float;
        }
    }
    // The predictor's pass takes no shifting (StepPlan::interaction_constants).
    const FluidConstants fluid = plan_.interaction_constants(role);
    Vec<D>* const shift = fluid.shifting.on ? shift_velocity_.get() : nullptr;
    dispatch_neighbour_query<D>(
        plan_.query, view_,
        with_kernel(LaunchInteraction<D>{this, dry, lists, shift, fluid}, plan_.kernel));
    mark(interaction);
    // Several GPUs: the predictor's maxima over every GPU (float bits of non-negative floats)
    // for dt; the corrector's go with the step's one reduction (finish_step).
    if (nccl_ && role != InteractionRole::corrector) {
        nccl_->max(&scalars_.get()->acceleration_max2_bits, 2, stream_);
        mark(waiting);
    }
}

template void CudaSimulation<2>::adapt_interaction(double);
template void CudaSimulation<2>::interact(InteractionRole);
template void CudaSimulation<3>::adapt_interaction(double);
template void CudaSimulation<3>::interact(InteractionRole);
} // namespace sluice::gpu
