#pragma once
/// \file step_kernels.cuh
/// What the kernels of the CUDA backend's passes share: block sizes, the per-particle tags of a
/// run over several GPUs, the step's scalars (the one block the host reads back per step) and
/// the block reductions into them, and the last build's order. The kernels themselves sit beside
/// their passes: interaction_kernels.cuh, integration_kernels.cuh, check_kernels.cuh,
/// gauge_kernels.cuh, slab_kernels.cuh. Per-particle physics is physics/'s and
/// packed_particles.h's; these files only map it onto threads.

#include "backends/cuda/packed_particles.h"
#include "neighbours/grid.h"
#include "neighbours/query.h"
#include "neighbours/warp_query.cuh"
#include "physics/gauges.h"

#include <cub/block/block_reduce.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sluice::gpu {

constexpr int block_size = 256;        ///< element-wise kernels
constexpr int interaction_block = 128; ///< interaction kernels (a multiple of 32)
/// The in-step walk (warp_query.cuh): queue slots per thread.
constexpr int in_step_capacity = 16;

inline unsigned blocks_for(std::uint32_t n, int block) {
    return static_cast<unsigned>((static_cast<std::uint64_t>(n) + block - 1) / block);
}

/// Per particle of a run over several GPUs (the tags_ array): an owned particle not sent, a
/// halo copy (its place in the halo received, from below then above), or an owned particle sent
/// as a halo copy (its place in the halo sent, to below then above).
constexpr std::uint32_t tag_owned = 0xffffffffu;
constexpr std::uint32_t tag_halo = 0x80000000u;
constexpr std::uint32_t tag_sent = 0x40000000u;
constexpr std::uint32_t tag_slot = 0x3fffffffu;

SLUICE_HD SLUICE_INLINE bool is_halo(std::uint32_t tag) {
    return tag != tag_owned && (tag & tag_halo) != 0;
}

struct MaxOp {
    __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct KeyMaxOp {
    __device__ __forceinline__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
        return a > b ? a : b;
    }
};

/// The scalars of a step, in device memory; the host reads them once, at the end of the step.
struct StepScalars {
    double dt;            ///< s, from the first interaction pass
    float dt_float;       ///< static_cast<float>(dt), what the schemes take
    std::uint32_t binned; ///< pbm[nbins] of the last build
    // Several GPUs: the words from acceleration_max2_bits on are all-reduced (max) by one call at
    // the end of the step (finish_step), the first two also after the predictor's pass (dt).
    std::uint32_t acceleration_max2_bits; ///< float bits of max |a|² over fluid particles
    std::uint32_t mu_max_bits;            ///< float bits of max μ
    /// Symplectic, reorder: the largest move along any axis since the step's build (m), after
    /// the predictor and after the corrector: the skin of the reused structure (query.h). With
    /// kept lists, the largest move in space since the build they date from
    /// (BuildOrder::skin_move), maybe an earlier step's.
    float predictor_skin;
    float step_skin;
    /// Several GPUs: float bits of the largest speed of an owned fluid particle after the step
    /// (the check that no particle moved further than the halo allows).
    std::uint32_t speed_max_bits;
    /// The box of the particles inside the domain after the step, as ordered_key (gauges.h;
    /// 0: none): [a] of +x_a (upper corner), [3 + a] of −x_a (lower).
    std::uint32_t box_keys[6];
    /// Kept lists: 1 when a pass found their skin used up and walked (NeighbourLists::walked).
    std::uint32_t lists_walked;
    /// Kept lists: particles the last build held that are outside the domain after the step
    /// (bounding_box_kernel): the next step builds, which excludes them.
    std::uint32_t left_domain;
    std::uint32_t bad_count; ///< particles that failed the check (several GPUs: the most of one)
    /// Particles inside the domain after the step but outside the grid the step built on
    /// (bounding_box_kernel): each moved further than the build grid's margin (several GPUs:
    /// the most of one).
    std::uint32_t escaped;
    /// Several GPUs: the particles this step's build excluded that no exclusion record holds
    /// yet (0 on every GPU: no process has exclusions to report; Simulation::
    /// exclusions_elsewhere).
    std::uint32_t newly_excluded;
    /// mDBC with ghost node lists (GhostNodeLists): the ghost nodes the step's BoundaryCondition
    /// pass summed over their lists (one process's; not all-reduced).
    std::uint32_t ghost_list_nodes;
};

/// The words of StepScalars that finish_step all-reduces (max), from acceleration_max2_bits.
constexpr int step_scalar_reduced_words = 16;
static_assert(offsetof(StepScalars, newly_excluded) -
                      offsetof(StepScalars, acceleration_max2_bits) ==
                  (step_scalar_reduced_words - 1) * sizeof(std::uint32_t),
              "the words all-reduced from acceleration_max2_bits on are contiguous");

/// *target = max(*target, the block's largest `mine`) for non-negative floats (their bit
/// patterns order like them): one atomic per block. Every thread of the block must call it.
/// Every call shares one block of shared memory: the barrier first lets thread 0 finish reading
/// the call before. Without it, where a kernel takes two maxima one after the other (the
/// corrector: the largest move, then the largest speed), warps that ran ahead could overwrite
/// the first one's partial results with the second one's: a wrong largest move, which the
/// reused structure's skin and the dry walls' travel take (H100, 10^6 particles, with the
/// corrector's lists taking the speed on one GPU: 1.359 ms per step without, 1.240 with).
__device__ __forceinline__ void block_max_into(float* target, float mine) {
    using BlockReduce = cub::BlockReduce<float, block_size>;
    __shared__ typename BlockReduce::TempStorage storage;
    __syncthreads();
    const float block = BlockReduce(storage).Reduce(mine, MaxOp{});
    if (threadIdx.x == 0 && block > 0.0f)
        atomicMax(reinterpret_cast<unsigned int*>(target), __float_as_uint(block));
}

/// The largest |a_k − b_k| over the axes (m).
template <int D>
__device__ __forceinline__ float largest_move(const Vec<D>& a, const Vec<D>& b) {
    float m = 0.0f;
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        m = fmaxf(m, fabsf(a[k] - b[k]));
    return m;
}

/// Whether the particle at view index i (< n) is in the view's structure, and its position.
/// Bin order (NeighbourView): the first view.size() particles are; an index layout keeps its
/// order, so a particle is in when the build found it inside the grid box (OutsidePolicy::exclude,
/// the backend's policy: the same test as bin_key's).
template <class ViewT, int D = ViewT::dimension>
__device__ __forceinline__ bool load_if_binned(const ViewT& view, std::uint32_t i, std::uint32_t n,
                                               Vec<D>& x) {
    if constexpr (indexes_input_order<ViewT>) {
        if (i >= n)
            return false;
        x = detail::load_position(view.positions + i);
        return view.grid.contains(x);
    } else {
        const std::uint32_t binned = detail::load_pbm(view.pbm + view.grid.bin_count());
        if (i >= binned || i >= n)
            return false;
        x = detail::load_position(view.positions + i);
        return true;
    }
}

/// What the integration kernels need of the last build: its positions (bin order, or the state's
/// order in an index layout) and which particles it held; `binned` (→ pbm[nbins]) for bin order,
/// null for an index layout, where the grid test decides; `permutation` maps an index to the
/// one previous_* arrays were written at (bin order: the predictor's order; null: the same).
template <int D>
struct BuildOrder {
    const Vec<D>* positions;
    const std::uint32_t* binned;
    const std::uint32_t* permutation;
    GridSpec<D> grid;
    /// Kept lists: where each particle was at the build the lists and the structure date from
    /// (the builder's sorted copy; the order has not changed since), which the largest moves
    /// (the skins) are measured from; null: from state n, the step's own build.
    const Vec<D>* origin = nullptr;

    __device__ __forceinline__ bool holds(std::uint32_t i, const Vec<D>& x) const {
        return binned ? i < *binned : grid.contains(x);
    }
    __device__ __forceinline__ std::uint32_t previous_index(std::uint32_t i) const {
        return permutation ? permutation[i] : i;
    }
    /// How far particle i, now at x, moved for the skins: with kept lists the distance in space
    /// from origin[i] (which bounds the move along every axis too, so the reused structure's
    /// walk stays exact, and the lists' test needs no √3); else the largest move along an axis
    /// from `start`, where it was at the step's build.
    __device__ __forceinline__ float skin_move(std::uint32_t i, const Vec<D>& x,
                                               const Vec<D>& start) const {
        if (origin == nullptr)
            return largest_move(x, start);
        const Vec<D> o = detail::load_position(origin + i);
        float s = 0.0f;
        SLUICE_UNROLL
        for (int k = 0; k < D; ++k)
            s += (x[k] - o[k]) * (x[k] - o[k]);
        return sqrtf(s);
    }
};

/// √3 rounded up (the largest move in space over the largest along an axis, 3D).
constexpr float root3_up = 1.7320511f;

} // namespace sluice::gpu
