// The BoundaryCondition pass of the CUDA backend (step_plan.h; mDBC, physics/mdbc.h): one launch
// of mdbc_kernel over the last build's order, the instantiation chosen from the plan's
// traversal, layout and smoothing kernel as the interaction pass's.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/boundary_condition_kernels.cuh"
#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/dispatch.cuh"
#include "case/ghost_offsets.h"
#include "neighbours/cuda_check.h"

#include <memory>
#include <utility>
#include <vector>

namespace sluice::gpu {

template <int D>
struct LaunchBoundaryCondition {
    CudaSimulation<D>* simulation;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_boundary_condition<QueryT>(view, kernel);
    }
};

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_boundary_condition(const ViewT& view, const KernelT& kernel) {
    constexpr int block = 128;
    DryWalls dry;
    if (dry_ghosts_) { // certificates for the ghost nodes, after a build (no corrector skin)
        dry.until = dry_until_[current_].get();
        dry.travel = travel_.get();
        dry.margin = dry_margin_;
        dry.reach = plan_.radius + dry_margin_;
        dry.reach2 = dry.reach * dry.reach;
        dry.retry_wet = steps_ % 16 == 0;
    }
    // The view's positions are the ones the interaction pass reads (reorder: the build's
    // sorted copy; index: the state's), so their p/ρ² padding is written there.
    mdbc_kernel<QueryT><<<blocks_for(n_, block), block, 0, stream_>>>(
        view, const_cast<Vec<D>*>(view.positions), motion_[current_].get(), kernel, plan_.fluid,
        plan_.slip, n_, id_[current_].get(), ghost_offsets_.get(), ghost_offset_count_, d_tags(),
        dry);
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
void CudaSimulation<D>::upload_ghost_offsets(const Case& c) {
    auto offsets =
        std::make_shared<const std::vector<Vec<D>>>(ghost_offsets<D>(c, derived_.support));
    ghost_offset_count_ = static_cast<std::uint32_t>(offsets->size());
    ghost_offsets_.allocate(offsets->size(), account_);
    if (!offsets->empty())
        SLUICE_CUDA_CHECK(cudaMemcpy(ghost_offsets_.get(), offsets->data(),
                                     offsets->size() * sizeof(Vec<D>), cudaMemcpyHostToDevice));
    h_ghost_offsets_ = std::move(offsets);
}

template <int D>
void CudaSimulation<D>::apply_boundary_condition() {
    dispatch_neighbour_query<D>(plan_.query, view_,
                                with_kernel(LaunchBoundaryCondition<D>{this}, plan_.kernel));
    mark(boundary);
}

template void CudaSimulation<2>::upload_ghost_offsets(const Case&);
template void CudaSimulation<2>::apply_boundary_condition();
template void CudaSimulation<3>::upload_ghost_offsets(const Case&);
template void CudaSimulation<3>::apply_boundary_condition();

} // namespace sluice::gpu
