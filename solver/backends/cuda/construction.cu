// The Construction and ReuseStructure passes of the CUDA backend (step_plan.h): the neighbour
// structure on the state's positions and the gather of the particle arrays into its order
// (reorder layout), the index layout's compaction of excluded particles, the corrector's reuse
// of the predictor's structure, and the part of the domain grid the builds cover.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/check_kernels.cuh"
#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/list_build_kernels.cuh"
#include "neighbours/cuda_check.h"
#include "neighbours/cuda_gather.cuh"
#include "parallel/slab_start.h"

#include <cub/device/device_partition.cuh>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace sluice::gpu {

/// The kept lists' build over the plan's (query, view): a reorder layout and a traversal in bin
/// order, which kept lists take (choose_kernels); other combinations never get here.
template <int D>
struct LaunchListBuild {
    CudaSimulation<D>* simulation;
    template <class QueryT, class ViewT>
    void operator()(QueryT, const ViewT& view) const {
        if constexpr (std::is_same_v<ViewT, NeighbourView<D>> && !detail::in_label_order<QueryT>)
            simulation->template launch_list_build<QueryT>(view);
    }
};

template <int D>
void CudaSimulation<D>::rebuild() {
    if (keep_lists_ && !build_next_) {
        // Kept lists: the last build's structure (the arrays are still in its order) over the
        // state's positions, their largest move since the build as its skin (query.h: exact).
        auto& v = std::get<NeighbourView<D>>(view_); // lists: reorder layout only
        v.positions = positions();
        v.skin = list_moved_.get();
        ++list_age_;
        ++kept_list_steps_;
        mark(construction);
        mark(reorder);
        return;
    }
    list_age_ = 0;
    ghost_walls_selected_ = false; // the mDBC pass selects its wall particles anew
    build_view();
    mark(construction);
    if (plan_.layout == Layout::reorder) {
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
    if (keep_lists_) {
        // The lists' particles have not moved yet.
        SLUICE_CUDA_CHECK(cudaMemsetAsync(list_moved_.get(), 0, sizeof(float), stream_));
        dispatch_neighbour_query<D>(plan_.query, view_, LaunchListBuild<D>{this});
        mark(construction);
    }
}

template <int D>
void CudaSimulation<D>::build_view() {
    fence_gauge_reads(); // the structure (and, reordered, the state) a sample may still read
    view_ = builder_.build_view(positions(), n_, build_grid_, plan_.radius, OutsidePolicy::exclude,
                                plan_.layout, stream_);
}

template <int D>
NeighbourLists CudaSimulation<D>::neighbour_lists() const {
    NeighbourLists lists;
    lists.indices = list_indices_.get();
    lists.counts = list_counts_.get();
    lists.capacity = list_capacity_;
    lists.walls_list_fluid = true; // wall-wall pairs add nothing (physics.h)
    if (keep_lists_) {
        lists.skin = list_skin_;
        lists.walked = &scalars_.get()->lists_walked;
    }
    return lists;
}

template <int D>
template <class QueryT, class ViewT>
void CudaSimulation<D>::launch_list_build(const ViewT& view) {
    build_lists_kernel<QueryT>
        <<<blocks_for(n_, interaction_block), interaction_block, 0, stream_>>>(
            view, motion_[current_].get(), n_, neighbour_lists(), plan_.fluid.wall_continuity,
            d_tags(), ghost_node_lists());
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
GhostNodeLists<D> CudaSimulation<D>::ghost_node_lists() const {
    GhostNodeLists<D> ghosts;
    if (!ghost_lists_)
        return ghosts;
    ghosts.ids = id_[current_].get();
    ghosts.offsets = ghost_offsets_.get();
    ghosts.wall_ids = ghost_offset_count_;
    if (dry_ghosts_) {
        ghosts.dry_until = dry_until_[current_].get();
        ghosts.travel = travel_.get();
    }
    return ghosts;
}

template <int D>
BuildOrder<D> CudaSimulation<D>::build_order(bool reused) const {
    const bool sorted = plan_.layout == Layout::reorder;
    BuildOrder<D> order{view_positions(), sorted ? d_binned() : nullptr,
                        sorted && !reused && list_age_ == 0 ? builder_.d_permutation() : nullptr,
                        build_grid_};
    if (keep_lists_) // the builder's sorted copy: nothing writes it until the next build
        order.origin = builder_.d_sorted_positions();
    return order;
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
    if (plan_.integrator == IntegratorKind::verlet) {
        const int in = previous_current_, out = 1 - previous_current_;
        gather(stream_, order, n_,
               GatherPair<Vec<D>>{previous_velocity_[in].get(), previous_velocity_[out].get()},
               GatherPair<float>{previous_density_[in].get(), previous_density_[out].get()});
        previous_current_ = out;
    }
    view_ready_ = false; // the view's arrays are no longer the state's order
}

template <int D>
void CudaSimulation<D>::cover(std::array<double, D> lo, std::array<double, D> hi) {
    if (!(lo[0] <= hi[0])) { // no particle inside the domain: a build holds none anyway
        build_grid_ = plan_.grid;
        return;
    }
    for (int a = 0; a < D; ++a) {
        lo[a] -= plan_.radius;
        hi[a] += plan_.radius;
    }
    if (comm_) {
        const auto [lower, upper] = slab_reach(slabs_, comm_->rank());
        lo[slabs_.axis] = std::max(lo[slabs_.axis], lower);
        hi[slabs_.axis] = std::min(hi[slabs_.axis], upper);
    }
    build_grid_ = covering_grid<D>(plan_.grid, lo, hi);
}

template void CudaSimulation<2>::rebuild();
template void CudaSimulation<2>::build_view();
template NeighbourLists CudaSimulation<2>::neighbour_lists() const;
template BuildOrder<2> CudaSimulation<2>::build_order(bool) const;
template void CudaSimulation<2>::reuse_view(const float*);
template void CudaSimulation<2>::move_excluded_last();
template void CudaSimulation<2>::cover(std::array<double, 2>, std::array<double, 2>);
template void CudaSimulation<3>::rebuild();
template void CudaSimulation<3>::build_view();
template NeighbourLists CudaSimulation<3>::neighbour_lists() const;
template BuildOrder<3> CudaSimulation<3>::build_order(bool) const;
template void CudaSimulation<3>::reuse_view(const float*);
template void CudaSimulation<3>::move_excluded_last();
template void CudaSimulation<3>::cover(std::array<double, 3>, std::array<double, 3>);
} // namespace sluice::gpu
