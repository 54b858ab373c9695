// The BodyLoads pass of the CUDA backend (step_plan.h): each floating body's particles' loads
// summed on the device (bodies_kernels.cuh) and over every GPU (NCCL, on the stream); the Motion
// pass (motion.cu) turns the sums into loads and moves the bodies. Nothing is read back.

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/bodies_kernels.cuh"
#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/dispatch.cuh"
#include "neighbours/cuda_check.h"

#include <algorithm>

namespace sluice::gpu {

namespace {

template <int D>
struct LaunchBodyLoads {
    CudaSimulation<D>* simulation;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_body_loads<QueryT>(view, kernel);
    }
};

} // namespace

/// Bodies whose sums a block keeps in shared memory (body_particle_sums doubles each, 48 KiB).
constexpr std::uint32_t shared_sum_bodies = 48 * 1024 / (body_particle_sums * sizeof(double));

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_body_loads(const ViewT& view, const KernelT& kernel) {
    const auto count = static_cast<std::uint32_t>(body_tables_.bodies.size());
    std::uint32_t* listed = d_body_member_count_.get();
    SLUICE_CUDA_CHECK(cudaMemsetAsync(listed, 0, sizeof(std::uint32_t), stream_));
    body_members_kernel<<<blocks_for(n_, block_size), block_size, 0, stream_>>>(
        view, n_, id_[current_].get(), d_tags(), d_body_contact_.get(), count, d_body_buried_.get(),
        d_body_members_.get(), listed);
    SLUICE_CUDA_CHECK_LAUNCH();
    // A warp per listed particle, grid-stride: at most the bodies' particles, a few blocks per
    // multiprocessor.
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    const bool shared = count <= shared_sum_bodies;
    const std::size_t shared_bytes = shared ? body_particle_sums * count * sizeof(double) : 0;
    const unsigned blocks =
        std::max(1u, std::min(blocks_for(32u * body_member_capacity_, block_size),
                              static_cast<unsigned>(8 * multiprocessors_)));
    body_loads_kernel<QueryT><<<blocks, block_size, shared_bytes, stream_>>>(
        view, particles, kernel, plan_.fluid, id_[current_].get(), d_body_members_.get(), listed,
        d_body_contact_.get(), count, d_body_states_.get(), walls_view(), plan_.contact,
        d_body_sums_.get(), shared);
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
void CudaSimulation<D>::sum_body_loads() {
    const auto count = static_cast<std::uint32_t>(body_tables_.bodies.size());
    SLUICE_CUDA_CHECK(cudaMemsetAsync(d_body_sums_.get(), 0,
                                      body_particle_sums * count * sizeof(double), stream_));
    dispatch_neighbour_query<D>(plan_.query, view_,
                                with_kernel(LaunchBodyLoads<D>{this}, plan_.kernel));
    if (nccl_)
        nccl_->sum(d_body_sums_.get(), static_cast<int>(body_particle_sums * count), stream_);
    mark(motion);
}

template void CudaSimulation<2>::sum_body_loads();
template void CudaSimulation<3>::sum_body_loads();

} // namespace sluice::gpu
