// CudaSimulation::sample_fraction_grid: the fluid fraction on a regular grid, the points made on
// the device (gauge_kernels.cuh, fraction_grid_kernel), only φ copied back (simulation.h).

// Eigen (case model) is host-only here: no __device__ annotations.
#define EIGEN_NO_CUDA

#include "backends/cuda/cuda_simulation.cuh"
#include "backends/cuda/dispatch.cuh"
#include "backends/cuda/gauge_kernels.cuh"
#include "neighbours/cuda_check.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace sluice::gpu {

namespace {

/// Points per launch: a warp each, so 32 × this threads stay below 2^32.
constexpr std::uint64_t points_per_launch = std::uint64_t{1} << 26;

template <int D>
struct LaunchFractionGrid {
    CudaSimulation<D>* simulation;
    const FractionGrid* grid;
    std::uint32_t count;
    template <class QueryT, class ViewT, class KernelT>
    void operator()(QueryT, const ViewT& view, const KernelT& kernel) const {
        simulation->template launch_fraction_grid<QueryT>(view, kernel, *grid, count);
    }
};

} // namespace

template <int D>
template <class QueryT, class ViewT, class KernelT>
void CudaSimulation<D>::launch_fraction_grid(const ViewT& view, const KernelT& kernel,
                                             const FractionGrid& grid, std::uint32_t count) {
    const PackedParticlesView<D> particles{view.positions, motion_[current_].get()};
    fraction_grid_kernel<QueryT, ViewT, KernelT>
        <<<blocks_for(32u * count, interaction_block), interaction_block, 0, stream_>>>(
            view, particles, kernel, plan_.fluid, grid, count, fraction_grid_.get());
    SLUICE_CUDA_CHECK_LAUNCH();
}

template <int D>
std::vector<float> CudaSimulation<D>::sample_fraction_grid(const FractionGrid& grid) {
    if (comm_)
        throw std::logic_error("sample_fraction_grid: one process only");
    prepare_view_for_sampling();
    std::vector<float> phi(grid.points);
    const std::size_t chunk = static_cast<std::size_t>(std::min(grid.points, points_per_launch));
    if (chunk > fraction_capacity_) { // grown on demand, never in a step
        fraction_grid_.allocate(chunk, account_);
        fraction_capacity_ = chunk;
    }
    for (std::uint64_t done = 0; done < grid.points; done += chunk) {
        FractionGrid part = grid;
        part.first = grid.first + done;
        part.points = std::min<std::uint64_t>(chunk, grid.points - done);
        const auto count = static_cast<std::uint32_t>(part.points);
        dispatch_neighbour_query<D>(
            plan_.query, view_,
            with_kernel(LaunchFractionGrid<D>{this, &part, count}, plan_.kernel));
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(phi.data() + done, fraction_grid_.get(),
                                          count * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_)); // phi is pageable, the buffer reused
    }
    return phi;
}

template std::vector<float> CudaSimulation<2>::sample_fraction_grid(const FractionGrid&);
template std::vector<float> CudaSimulation<3>::sample_fraction_grid(const FractionGrid&);

} // namespace sluice::gpu
