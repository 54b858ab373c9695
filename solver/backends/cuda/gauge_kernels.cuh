#pragma once
/// \file gauge_kernels.cuh
/// The kernels of gauge samples and diagnostics (outputs.cu launches them): kernel sums at query
/// points and wall sensors' sums at wall points one warp each, fronts of the fluid, and the
/// neighbour counts of a fresh build.

#include "backends/cuda/step_kernels.cuh"
#include "physics/gauges.h"

namespace sluice::gpu {

struct CountingVisitor {
    std::uint32_t count = 0;
    template <class VecT>
    __device__ void operator()(std::uint32_t, const VecT&, float) {
        ++count;
    }
};

/// Neighbour counts of a fresh build, scattered to particle ids: the particle at view index k
/// came from state index permutation[k] (bin order; null: k itself), whose id is id[that].
template <class QueryT, class ViewT>
__global__ void count_neighbours_kernel(ViewT view, std::uint32_t n,
                                        const std::uint32_t* __restrict__ permutation,
                                        const std::uint32_t* __restrict__ id,
                                        std::uint32_t* __restrict__ counts_by_id) {
    const std::uint32_t k = blockIdx.x * block_size + threadIdx.x;
    Vec<ViewT::dimension> x;
    if (!load_if_binned(view, k, n, x))
        return;
    CountingVisitor visitor;
    for_each_neighbour<QueryT>(view, x, visitor);
    counts_by_id[id[permutation ? permutation[k] : k]] = visitor.count;
}

/// Gauge sums at query points (physics/gauges.h), one warp per point: the lanes share the
/// point's candidates (for_each_neighbour_shared) and their sums are added by shuffles. A few
/// thousand points one thread each would leave the GPU idle, every thread waiting on its own
/// chain of loads.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void __launch_bounds__(interaction_block)
    gauge_kernel(ViewT view, PackedParticlesView<D> particles, KernelT kernel, FluidConstants c,
                 const Vec<D>* __restrict__ points, std::uint32_t count,
                 GaugeSums<D>* __restrict__ sums) {
    const std::uint32_t k = (blockIdx.x * interaction_block + threadIdx.x) / 32;
    const std::uint32_t lane = threadIdx.x & 31;
    if (k >= count) // whole warps leave together: count is per warp
        return;
    GaugeVisitor<D, KernelT, PackedParticlesView<D>> visitor{particles, kernel, c};
    for_each_neighbour_shared<QueryT>(view, points[k], lane, 32u, visitor);
    GaugeSums<D> s = visitor.sums;
    for (int offset = 16; offset > 0; offset /= 2) {
        s.w += __shfl_down_sync(0xffffffffu, s.w, offset);
        s.w_density += __shfl_down_sync(0xffffffffu, s.w_density, offset);
        s.w_pressure += __shfl_down_sync(0xffffffffu, s.w_pressure, offset);
        SLUICE_UNROLL
        for (int a = 0; a < D; ++a)
            s.w_velocity[a] += __shfl_down_sync(0xffffffffu, s.w_velocity[a], offset);
    }
    if (lane == 0)
        sums[k] = s;
}

/// Wall sensors' sums at wall points (physics/gauges.h, WallSensorVisitor), one warp per point
/// as gauge_kernel.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void __launch_bounds__(interaction_block)
    wall_sensor_kernel(ViewT view, PackedParticlesView<D> particles, KernelT kernel,
                       FluidConstants c, const Vec<D>* __restrict__ points, std::uint32_t count,
                       WallSensorSums<D>* __restrict__ sums) {
    const std::uint32_t k = (blockIdx.x * interaction_block + threadIdx.x) / 32;
    const std::uint32_t lane = threadIdx.x & 31;
    if (k >= count) // whole warps leave together: count is per warp
        return;
    WallSensorVisitor<D, KernelT, PackedParticlesView<D>> visitor{particles, kernel, c};
    for_each_neighbour_shared<QueryT>(view, points[k], lane, 32u, visitor);
    WallSensorSums<D> s = visitor.sums;
    for (int offset = 16; offset > 0; offset /= 2) {
        SLUICE_UNROLL
        for (int r = 0; r <= D; ++r) {
            s.b[r] += __shfl_down_sync(0xffffffffu, s.b[r], offset);
            SLUICE_UNROLL
            for (int q = 0; q <= D; ++q)
                s.a[r][q] += __shfl_down_sync(0xffffffffu, s.a[r][q], offset);
        }
    }
    if (lane == 0)
        sums[k] = s;
}

/// *key = max(*key, the warp's largest `mine`): one atomicMax per warp (0 is "none").
__device__ __forceinline__ void warp_max_into(std::uint32_t* key, std::uint32_t mine) {
    for (int offset = 16; offset > 0; offset /= 2)
        mine = max(mine, __shfl_down_sync(0xffffffffu, mine, offset));
    if ((threadIdx.x & 31) == 0 && mine != 0)
        atomicMax(key, mine);
}

/// The largest ordered_key(sign·x_axis) of the binned fluid particles into *key (0: none).
/// One atomicMax per warp.
template <class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(block_size)
    front_max_kernel(ViewT view, PackedParticlesView<D> particles, std::uint32_t n, int axis,
                     float sign, std::uint32_t* __restrict__ key) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    std::uint32_t mine = 0;
    Vec<D> x;
    if (load_if_binned(view, i, n, x) && particles.motion(i).fluid)
        mine = ordered_key(sign * x[axis]);
    warp_max_into(key, mine);
}

/// The front search without the host: the largest key among fluid particles that have another
/// fluid particle within sqrt(limit2), looking only at those within `window` of the farthest
/// one (*farthest, from front_max_kernel; a negative window: every particle). It runs only if
/// no earlier, narrower pass found one (every `earlier` key is 0), so in the usual case the
/// first pass, one spacing wide, decides and the wider ones return at once.
template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(block_size)
    front_test_kernel(ViewT view, PackedParticlesView<D> particles, std::uint32_t n, int axis,
                      float sign, float window, float limit2,
                      const std::uint32_t* __restrict__ farthest,
                      const std::uint32_t* __restrict__ earlier, int earlier_count,
                      std::uint32_t* __restrict__ key) {
    if (*farthest == 0)
        return;
    for (int e = 0; e < earlier_count; ++e)
        if (earlier[e] != 0)
            return;
    const float threshold = window < 0.0f ? -3.0e38f : from_ordered_key(*farthest) - window;
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    std::uint32_t mine = 0;
    Vec<D> x;
    if (load_if_binned(view, i, n, x) && particles.motion(i).fluid) {
        const float along = sign * x[axis];
        if (along >= threshold) {
            FluidNeighbourVisitor<D, PackedParticlesView<D>> test{particles, i, limit2};
            for_each_neighbour<QueryT>(view, x, test);
            if (test.found)
                mine = ordered_key(along);
        }
    }
    warp_max_into(key, mine);
}

} // namespace sluice::gpu
