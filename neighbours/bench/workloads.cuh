#pragma once
/// \file workloads.cuh
/// The query workloads neighbours_bench times, one thread per particle: counting neighbours and
/// the Circles force update (thesis Alg. 3); and the kernel that counts the candidates, bins and
/// rows each traversal visits.

#include "cuda_check.h"
#include "data_sets.h"
#include "query.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace sluice::bench {

template <int D>
struct CountVisitor {
    std::uint32_t count = 0;
    __device__ void operator()(std::uint32_t, const Vec<D>&, float) { ++count; }
};

/// The Circles model's force (thesis eq. 3.4, Alg. 3): F_ij = k sin(−2π |x_j − x_i| / R) times
/// the unit vector from x_i to x_j, for neighbours other than itself. Like the thesis author's
/// code (sp-2018-08, which the issue's anchors timed), the step is the mean force, not the sum.
template <int D>
struct CirclesVisitor {
    Vec<D> force{};
    std::uint32_t count = 0;
    float inv_radius = 1.0f;
    __device__ void operator()(std::uint32_t, const Vec<D>& rij, float r2) {
        if (r2 > 0.0f) {
            const float separation = sqrtf(r2);
            // sin(−2π d/R) as sinpi(−2 d/R): the same function, with an exact range reduction
            // that needs no local memory (sinf's path for huge arguments does).
            const float k = sinpif(-2.0f * separation * inv_radius) * circles_force;
            force -= (k / separation) * rij; // rij = x_i − x_j points away from j
            ++count;
        }
    }
};

/// counts[k] = neighbours of the k-th particle of the view's positions.
template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(512)
    count_kernel(ViewT view, std::uint32_t n, std::uint32_t* __restrict__ counts) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    CountVisitor<D> visit;
    for_each_neighbour<QueryT>(view, detail::load_position(view.positions + k), visit);
    counts[k] = visit.count;
}

/// out[k] = the k-th particle after one Circles step, clamped to [0, env_max] per axis.
template <class QueryT, class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(512)
    circles_kernel(ViewT view, std::uint32_t n, float env_max, Vec<D>* __restrict__ out) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const Vec<D> x = detail::load_position(view.positions + k);
    CirclesVisitor<D> visit;
    visit.inv_radius = 1.0f / view.radius;
    for_each_neighbour<QueryT>(view, x, visit);
    Vec<D> next = x + (1.0f / static_cast<float>(max(visit.count, 1u))) * visit.force;
    for (int a = 0; a < D; ++a)
        next[a] = fminf(fmaxf(next[a], 0.0f), env_max);
    out[k] = next;
}

/// Candidates (particles in the visited bins), bins and rows of each query: the same block of
/// bins for_each_neighbour visits. Moore reads one range per bin, Strips one per row.
template <class QueryT, int D>
__global__ void
candidates_kernel(NeighbourView<D> view, std::uint32_t n, std::uint32_t* __restrict__ candidates,
                  std::uint32_t* __restrict__ bins, std::uint32_t* __restrict__ rows) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const Vec<D> x = view.positions[k];
    int lo[D], hi[D];
    for (int a = 0; a < D; ++a) {
        lo[a] = view.grid.axis_bin(x[a] - view.radius, a);
        hi[a] = view.grid.axis_bin(x[a] + view.radius, a);
    }
    std::uint32_t c = 0, row_count = 0, bin_count = 0;
    const auto nx = static_cast<std::uint32_t>(view.grid.dims[0]);
    // A row of the block; ChordsQuery narrows it to its chord or skips it (query.h).
    auto add_row = [&](std::uint32_t row, const int(&coordinates)[D]) {
        int lo_x = lo[0], hi_x = hi[0];
        if constexpr (std::is_same_v<QueryT, ChordsQuery>)
            if (!detail::chord_of_row(view, x, coordinates, lo_x, hi_x))
                return;
        c += view.pbm[row + hi_x + 1] - view.pbm[row + lo_x];
        ++row_count;
        bin_count += static_cast<std::uint32_t>(hi_x - lo_x + 1);
    };
    if constexpr (D == 2) {
        for (int by = lo[1]; by <= hi[1]; ++by)
            add_row(static_cast<std::uint32_t>(by) * nx, {0, by});
    } else {
        const auto ny = static_cast<std::uint32_t>(view.grid.dims[1]);
        for (int bz = lo[2]; bz <= hi[2]; ++bz)
            for (int by = lo[1]; by <= hi[1]; ++by)
                add_row((static_cast<std::uint32_t>(bz) * ny + static_cast<std::uint32_t>(by)) * nx,
                        {0, by, bz});
    }
    candidates[k] = c;
    rows[k] = row_count;
    bins[k] = bin_count;
}

/// The query kernels use no shared memory: gives the unified L1/shared storage to L1.
template <class KernelT>
void prefer_l1(KernelT kernel) {
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                           static_cast<int>(cudaSharedmemCarveoutMaxL1)));
}

/// Blocks of `block` threads for n threads.
inline unsigned grid_for(std::uint32_t n, int block) {
    return static_cast<unsigned>((static_cast<std::uint64_t>(n) + block - 1) / block);
}

} // namespace sluice::bench
