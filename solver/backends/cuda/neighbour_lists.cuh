#pragma once
/// \file neighbour_lists.cuh
/// The CUDA backend's neighbour lists: where they lie (NeighbourLists, list_groups), how an entry
/// is appended (ListAppender), how far they reach beyond R (list_slack) and when a pass may read
/// them (lists_hold). interaction_kernels.cuh writes the corrector's lists in its build pass and
/// reads every list; list_build_kernels.cuh builds the kept lists.

#include "backends/cuda/step_kernels.cuh"

#include <cstddef>
#include <cstdint>

namespace sluice::gpu {

/// The corrector's neighbour lists (CorrectorNeighbours::lists; symplectic, reorder layout, a
/// traversal in bin order; over several GPUs a halo copy keeps its index from one pass to the
/// next, refresh_halo rewriting its data in place). The build pass lists, per particle i, every
/// candidate j that the predictor can bring within R: the symplectic predictor moves fluid particle
/// j by dt/2 · v_j and no wall particle (integrators.h), and dt ≤ cfl · h / c0 (time_step: dt_cv ≤
/// h/c0), so a pair within R after it lay within R + dt_bound/2 · (|v_i| + |v_j|) before. The
/// build pass's query reaches R + dt_bound/2 · (|v_i| + the largest fluid speed), and each
/// candidate beyond R is listed when it lies within its pair's own reach (a slow pair's is R and
/// a rounding slack). The corrector's pass reads each list instead of walking the predictor's
/// structure again, in the walk's order with the same test on the same r_ij: the same sums.
/// A step whose dt exceeded dt_bound (none does) walks, as without lists. `indices` null: none.
struct NeighbourLists {
    /// Entries in groups of four (list_groups): group g of the particle in lane l of warp w at
    /// uint4 [(w · capacity/4 + g) · 32 + l]; capacity is a multiple of 4.
    std::uint32_t* indices = nullptr;
    /// Per particle: its entries, or more than capacity when it has no list (a lane that did not
    /// query, or one whose candidates overflowed it).
    std::uint32_t* counts = nullptr;
    std::uint32_t capacity = 0;
    bool write = false; ///< the build pass (else the corrector's: read)
    /// A wall particle lists its fluid neighbours only: wall-wall pairs add nothing
    /// (physics.h), so the sums are the same without them.
    bool walls_list_fluid = false;
    float dt_bound = 0.0f;  ///< s: cfl · h / c0, rounded up
    float speed_max = 0.0f; ///< write: the largest fluid speed of state n (m/s), rounded up
    /// Moving walls: no wall particle moves faster over the run (m/s; 0 with walls at rest),
    /// the predictor's move of a wall being at most dt/2 times it.
    float wall_speed = 0.0f;
    const float* dt = nullptr; ///< read: the step's dt (s; device)
    /// Kept lists (CudaOptions::list_skin; dt_bound, speed_max and wall_speed then 0): the
    /// build (list_build_kernels.cuh) lists every candidate within R + skin (m) and a rounding
    /// slack, and a pass reads them while 2 · *moved ≤ skin, *moved (device) being the largest
    /// move in space of any particle since that build (the view's skin; BuildOrder::origin);
    /// else it walks. 0: the corrector's lists of the step (dt_bound above).
    float skin = 0.0f;
    const float* moved = nullptr;
    /// Kept lists: set to 1 by a pass that found the skin used up (it walked instead).
    std::uint32_t* walked = nullptr;
};

/// Whether a reading pass may use the lists: kept lists while no pair can have closed their
/// skin (R + skin at the build, two particles each at most *moved away from where they were);
/// the corrector's lists of the step when its dt kept to the bound they were built for.
__device__ __forceinline__ bool lists_hold(const NeighbourLists& lists) {
    if (lists.skin > 0.0f)
        return 2.0f * __ldg(lists.moved) <= lists.skin;
    return __ldg(lists.dt) <= lists.dt_bound;
}

/// A count for a particle without a list.
constexpr std::uint32_t no_list = 0xffffffffu;

/// What an interaction pass does with NeighbourLists (an interaction kernel's template
/// argument, so that each pass holds only its own code and registers): nothing, write them
/// (the build pass) or read them (the corrector's; with kept lists, written by
/// build_lists_kernel, every pass).
enum class ListMode { none, write, read };

/// Particle i's first group of four entries; group g lies g · 32 groups further: a warp's lanes
/// read their g-th groups as one 512-byte span, four entries each with one 16-byte load.
/// capacity is a multiple of 4.
__device__ __forceinline__ uint4* list_groups(const NeighbourLists& lists, std::uint32_t i) {
    return reinterpret_cast<uint4*>(lists.indices) +
           static_cast<std::size_t>(i / 32) * (lists.capacity / 4) * 32 + i % 32;
}

/// Appends a particle's entries to its list four at a time, one 16-byte store each (a lane
/// that walks its rows out of step with the warp's others then stores a quarter as often as with
/// single words, each store a separate transaction; Nsight Compute on the developed flow found
/// the list build bound by the L2 cache). Entries past `capacity` are counted, not stored;
/// finish() stores the last, partial group.
struct ListAppender {
    uint4* groups;
    std::uint32_t capacity;
    std::uint32_t count = 0;
    uint4 pending{};

    __device__ __forceinline__ void push(std::uint32_t j) {
        const std::uint32_t slot = count & 3u;
        if (slot == 0)
            pending.x = j;
        else if (slot == 1)
            pending.y = j;
        else if (slot == 2)
            pending.z = j;
        else
            pending.w = j;
        ++count;
        if (slot == 3 && count <= capacity)
            groups[(count / 4 - 1) * 32] = pending;
    }
    __device__ __forceinline__ void finish() {
        if ((count & 3u) != 0 && count <= capacity)
            groups[(count / 4) * 32] = pending;
    }
};

/// The lists' slack over the reach of a pair at x: more than the float rounding of the predicted
/// positions and of the distances (generous: it only lengthens lists).
template <int D>
__device__ __forceinline__ float list_slack(float radius, const Vec<D>& x) {
    constexpr float epsilon = 1.1920929e-7f; // FLT_EPSILON
    float magnitude = radius;
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        magnitude += fabsf(x[k]);
    return 1e-4f * radius + 64.0f * epsilon * magnitude;
}

} // namespace sluice::gpu
