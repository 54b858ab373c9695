#pragma once
/// \file gauge_kernels.cuh
/// The kernels of gauge samples and diagnostics (outputs.cu launches them): kernel sums at query
/// points and wall sensors' sums at wall points one warp each, fronts of the fluid, and the
/// neighbour counts of a fresh build.

#include "backends/cuda/step_kernels.cuh"
#include "physics/forces.h"
#include "physics/gauges.h"
#include "physics/motion.h"

#include <type_traits>

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

/// The sums of a struct of floats (GaugeSums, WallSensorSums: every member a float, padding
/// of Vec<3> included) over the warp's lanes into lane 0, by shuffles.
template <class SumsT>
__device__ __forceinline__ void warp_sum_into_lane0(SumsT& s) {
    static_assert(sizeof(SumsT) % sizeof(float) == 0 && std::is_trivially_copyable_v<SumsT>,
                  "sums of floats only");
    float* f = reinterpret_cast<float*>(&s);
    for (int offset = 16; offset > 0; offset /= 2) {
        SLUICE_UNROLL
        for (unsigned w = 0; w < sizeof(SumsT) / sizeof(float); ++w)
            f[w] += __shfl_down_sync(0xffffffffu, f[w], offset);
    }
}

/// Sums at query points, one warp per point: the lanes share the point's candidates
/// (for_each_neighbour_shared) and their sums are added by shuffles. A few thousand points one
/// thread each would leave the GPU idle, every thread waiting on its own chain of loads.
/// VisitorT<D, KernelT, Particles>: GaugeVisitor (fluid sums at probe and level points) or
/// WallSensorVisitor (wall pressure sensors' corrected-interpolation sums; physics/gauges.h).
template <template <int, class, class> class VisitorT, class QueryT, class ViewT, class KernelT,
          int D = ViewT::dimension>
__global__ void __launch_bounds__(interaction_block) point_sums_kernel(
    ViewT view, PackedParticlesView<D> particles, KernelT kernel, FluidConstants c,
    const Vec<D>* __restrict__ points, std::uint32_t count,
    decltype(VisitorT<D, KernelT, PackedParticlesView<D>>::sums)* __restrict__ sums) {
    const std::uint32_t k = (blockIdx.x * interaction_block + threadIdx.x) / 32;
    const std::uint32_t lane = threadIdx.x & 31;
    if (k >= count) // whole warps leave together: count is per warp
        return;
    VisitorT<D, KernelT, PackedParticlesView<D>> visitor{particles, kernel, c};
    for_each_neighbour_shared<QueryT>(view, points[k], lane, 32u, visitor);
    warp_sum_into_lane0(visitor.sums);
    if (lane == 0)
        sums[k] = visitor.sums;
}

/// The fluid fraction φ (GaugeVisitor's w) at points first … first + count − 1 of a regular grid
/// (physics/gauges.h, grid_point), one warp per point as point_sums_kernel, the point generated
/// here rather than read.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void __launch_bounds__(interaction_block)
    fraction_grid_kernel(ViewT view, PackedParticlesView<D> particles, KernelT kernel,
                         FluidConstants c, FractionGrid grid, std::uint32_t count,
                         float* __restrict__ phi) {
    const std::uint32_t k = (blockIdx.x * interaction_block + threadIdx.x) / 32;
    const std::uint32_t lane = threadIdx.x & 31;
    if (k >= count) // whole warps leave together: count is per warp
        return;
    const Vec<D> x = grid_point<D>(grid, grid.first + k);
    GaugeVisitor<D, KernelT, PackedParticlesView<D>> visitor{particles, kernel, c};
    for_each_neighbour_shared<QueryT>(view, x, lane, 32u, visitor);
    warp_sum_into_lane0(visitor.sums);
    if (lane == 0)
        phi[k] = visitor.sums.w;
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

/// The force and moment of the fluid on each body (physics/forces.h): a thread per binned,
/// owned wall particle of a body (ids in its range), its pair terms with its fluid neighbours,
/// then the force and the moment about the body's point (moved with its object, `walls`)
/// added into sums[6 b …] (double atomics: a sample's few thousand wall particles near the
/// fluid; the order of the additions is the device's).
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void __launch_bounds__(block_size)
    body_forces_kernel(ViewT view, PackedParticlesView<D> particles, KernelT kernel,
                       FluidConstants c, std::uint32_t n, const std::uint32_t* __restrict__ ids,
                       const std::uint32_t* __restrict__ tags, const DeviceBody<D>* bodies,
                       std::uint32_t body_count, MovingWallsView<D> walls, double* sums) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    Vec<D> x{};
    if (!load_if_binned(view, i, n, x) || (tags != nullptr && is_halo(tags[i])))
        return;
    const Float4 m = detail::load_motion(particles.motions + i);
    const float signed_rho = motion_signed_density<D>(m);
    if (decode_type(signed_rho) != ParticleType::boundary)
        return;
    const std::uint32_t id = ids[i];
    std::uint32_t b = 0;
    while (b < body_count && id - bodies[b].first_id >= bodies[b].id_count) // unsigned
        ++b;
    if (b == body_count)
        return;
    const float rho = decode_density(signed_rho);
    WallForceVisitor<D, KernelT, PackedParticlesView<D>> visitor{
        particles, kernel, c, motion_velocity<D>(m), rho, packed_p_rho2(x, m)};
    const Vec<D> xb = plain_position(x);
    for_each_neighbour<QueryT>(view, xb, visitor);
    const Vec<D> f = visitor.force();
    if (norm2(f) == 0.0f)
        return;
    Vec<D> point = bodies[b].moment_point;
    if (const std::uint16_t k = walls.object_of(id); k != no_object)
        point = rigid_position(walls.states[k], point);
    double moment[3];
    moment_about(xb, point, f, moment);
    float g[3];
    detail::to_xyz(f, g);
    double* out = sums + 6 * b;
    for (int a = 0; a < 3; ++a) {
        atomicAdd(out + a, static_cast<double>(g[a]));
        atomicAdd(out + 3 + a, moment[a]);
    }
}

} // namespace sluice::gpu
