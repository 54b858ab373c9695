// The BoundaryCondition pass of the CUDA backend (step_plan.h; mDBC, physics/mdbc.h): the wall
// particles with a ghost node selected in the last build's order (cub::DeviceSelect::If), then
// one launch of mdbc_kernel over them, the instantiation chosen from the plan's traversal,
// layout and smoothing kernel as the interaction pass's.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/boundary_condition_kernels.cuh"
#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/dispatch.cuh"
#include "case/ghost_offsets.h"
#include "neighbours/cuda_check.h"

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
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
    const std::uint32_t most = std::min(n_, ghost_offset_count_);
    if (most == 0)
        return; // no wall particle has a ghost node (nor a grid of zero blocks to launch)
    DryWalls dry;
    if (dry_ghosts_) { // certificates for the ghost nodes, after a build (no corrector skin)
        dry.until = dry_until_[current_].get();
        dry.travel = travel_.get();
        dry.margin = dry_margin_;
        dry.reach = plan_.radius + dry_margin_;
        dry.reach2 = dry.reach * dry.reach;
        dry.retry_wet = steps_ % 16 == 0;
    }
    // Kept lists with ghost node lists (rebuild()): read while the particles' largest move
    // since the build holds them.
    NeighbourLists lists;
    if (ghost_lists_) {
        lists = neighbour_lists();
        lists.moved = list_moved_.get();
    }
    // The wall particles with a ghost node, in the build's order (their count stays on the
    // device: the kernel's grid covers every wall id, each process's most). One process with
    // kept lists: the particles keep their order and their types from one build to the next, so
    // the selection of the build's step serves until the next.
    if (!(ghost_walls_selected_ && keep_lists_ && !comm_)) {
        const TakesGhostNode<D> takes{motion_[current_].get(), id_[current_].get(),
                                      ghost_offsets_.get(), ghost_offset_count_, d_tags()};
        std::size_t temp_bytes = ghost_walls_temp_bytes_;
        SLUICE_CUDA_CHECK(cub::DeviceSelect::If(
            ghost_walls_temp_.get(), temp_bytes, thrust::counting_iterator<std::uint32_t>(0),
            ghost_walls_.get(), ghost_wall_count_.get(), n_, takes, stream_));
        ghost_walls_selected_ = true;
    }
    // The view's positions are the ones the interaction pass reads (reorder: the build's
    // sorted copy; index: the state's), so their p/ρ² padding is written there.
    mdbc_kernel<QueryT><<<blocks_for(most, mdbc_block), mdbc_block, 0, stream_>>>(
        view, const_cast<Vec<D>*>(view.positions), motion_[current_].get(), kernel, plan_.fluid,
        plan_.slip, n_, ghost_walls_.get(), ghost_wall_count_.get(), id_[current_].get(),
        ghost_offsets_.get(), dry, lists, scalars_.get(), walls_view());
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
    // The pass's list of wall particles (at most every particle) and CUB's selection storage.
    ghost_walls_.allocate(capacity_, account_);
    ghost_wall_count_.allocate(1, account_);
    SLUICE_CUDA_CHECK(cub::DeviceSelect::If(
        nullptr, ghost_walls_temp_bytes_, thrust::counting_iterator<std::uint32_t>(0),
        ghost_walls_.get(), ghost_wall_count_.get(), capacity_,
        TakesGhostNode<D>{nullptr, nullptr, nullptr, 0, nullptr}, stream_));
    ghost_walls_temp_.allocate(ghost_walls_temp_bytes_, account_);
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
