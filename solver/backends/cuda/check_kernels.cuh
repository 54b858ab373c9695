#pragma once
/// \file check_kernels.cuh
/// The kernels of the Checks pass (checks.cu) and the index layout's compaction (construction.cu):
/// the box of the particles for the next build, which particles the last build held, and the
/// step's last scalars.

#include "backends/cuda/step_kernels.cuh"

namespace sluice::gpu {
/// Blocks of bounding_box_kernel: a grid-stride loop, so that its one atomic per block and value
/// does not queue thousands of blocks on seven addresses.
constexpr unsigned box_blocks = 512;

/// The box of the particles at `positions` (n) that `domain` contains, what the next build holds,
/// into scalars->box_keys (one atomicMax per block and value), and the count of those in
/// `interior` (the domain less a bin at each side, where `built` and `domain` cannot disagree
/// by rounding) outside `built` (the grid this step's builds used) into scalars->escaped.
/// `held` (kept lists, else null): the last build's count (bin order); the held particles now
/// outside the domain, which the next build excludes, go to scalars->left_domain.
template <int D>
__global__ void __launch_bounds__(block_size)
    bounding_box_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> domain,
                        GridSpec<D> interior, GridSpec<D> built, const std::uint32_t* held,
                        StepScalars* __restrict__ scalars) {
    std::uint32_t keys[2 * D] = {};
    std::uint32_t escaped = 0, left = 0;
    const std::uint32_t held_count = held != nullptr ? *held : 0u;
    for (std::uint32_t i = blockIdx.x * block_size + threadIdx.x; i < n;
         i += gridDim.x * block_size) {
        const Vec<D> x = detail::load_position(positions + i);
        if (!domain.contains(x)) {
            left += i < held_count ? 1u : 0u;
            continue;
        }
        SLUICE_UNROLL
        for (int a = 0; a < D; ++a) {
            keys[a] = max(keys[a], ordered_key(x[a]));
            keys[D + a] = max(keys[D + a], ordered_key(-x[a]));
        }
        escaped += interior.contains(x) && !built.contains(x) ? 1u : 0u;
    }
    using BlockReduce = cub::BlockReduce<std::uint32_t, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    SLUICE_UNROLL
    for (int k = 0; k < 2 * D; ++k) {
        const std::uint32_t block = BlockReduce(storage).Reduce(keys[k], KeyMaxOp{});
        __syncthreads(); // storage is reused
        if (threadIdx.x == 0 && block != 0)
            atomicMax(&scalars->box_keys[k < D ? k : 3 + (k - D)], block);
    }
    const std::uint32_t block_escaped = BlockReduce(storage).Sum(escaped);
    if (threadIdx.x == 0 && block_escaped != 0)
        atomicAdd(&scalars->escaped, block_escaped);
    if (held != nullptr) { // the same for every thread
        __syncthreads();   // storage is reused
        const std::uint32_t block_left = BlockReduce(storage).Sum(left);
        if (threadIdx.x == 0 && block_left != 0)
            atomicAdd(&scalars->left_domain, block_left);
    }
}

/// For the index layout's compaction: index[i] = i and inside[i] = whether the build that read
/// `positions` held particle i (in the grid box: bin_key's test under OutsidePolicy::exclude).
template <int D>
__global__ void __launch_bounds__(block_size)
    inside_flags_kernel(const Vec<D>* __restrict__ positions, std::uint32_t n, GridSpec<D> grid,
                        std::uint32_t* __restrict__ index, unsigned char* __restrict__ inside) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    if (i >= n)
        return;
    index[i] = i;
    inside[i] = grid.contains(detail::load_position(positions + i)) ? 1 : 0;
}

/// The step's last scalars: the build's count and (travel not null) the fluid's travel
/// (DryWalls), which grows by the step's largest move in space: √3 × the larger of the
/// predictor's and the corrector's largest move along an axis (both from state n), times
/// `relative` (DryWalls::relative: 2 when walls move too). With kept lists (`moved` not null)
/// the skins are measured from the lists' build, so the travel grows faster than the fluid
/// moved (the certificates, exact either way, expire sooner), and *moved takes the corrector's:
/// the next step's passes start from it (NeighbourLists::moved, the view's skin).
/// Several GPUs: scalars->newly_excluded ← the particles the last build excluded (n − binned)
/// beyond the `recorded` ones (record_exclusions).
static __global__ void newly_excluded_kernel(const std::uint32_t* binned, std::uint32_t n,
                                             std::uint32_t recorded, StepScalars* scalars) {
    const std::uint32_t excluded = n - *binned;
    scalars->newly_excluded = excluded > recorded ? excluded - recorded : 0u;
}

static __global__ void finish_step_kernel(const std::uint32_t* binned, StepScalars* scalars,
                                          double* travel, float relative, float* moved) {
    scalars->binned = *binned;
    if (moved != nullptr)
        *moved = scalars->step_skin;
    if (travel != nullptr)
        *travel += static_cast<double>(relative * root3_up) *
                   static_cast<double>(fmaxf(scalars->predictor_skin, scalars->step_skin));
}
} // namespace sluice::gpu
