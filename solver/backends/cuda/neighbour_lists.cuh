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
    /// Per particle: its entries (the corrector's lists), or the core's in the low 16 bits and
    /// the shell's in the high ones (kept lists; ListExtent); no_list when it has no list (a
    /// lane that did not query, one whose candidates overflowed it, or an mDBC wall particle
    /// whose ghost node got no list: GhostNodeLists).
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
    /// Floating bodies (no bound ahead of the run): the walls' largest speed at state n
    /// (device; the Motion pass's), the predictor's move of a body's wall being at most dt/2
    /// times it (physics/rigid_body.h); the larger of the two speeds counts. Null: none.
    const float* wall_speed_now = nullptr;
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
    uint4* groups; ///< the group the first four entries go to
    std::uint32_t capacity;
    /// uint4s from one group to the next: 32 (list_groups), −32 for a list filled from its
    /// last group back (a kept list's shell).
    int stride = 32;
    std::uint32_t count = 0;
    uint4 pending{};

    __device__ __forceinline__ void push(std::uint32_t j) { push_if(j, true); }
    /// push(j) if `take`, else nothing, without a branch around the group's bookkeeping (a
    /// kept list's build pushes each candidate to its core or its shell). Nsight Compute on the
    /// developed flow: 16.7 lanes active instead of 15.1 with a branch, in the same time.
    __device__ __forceinline__ void push_if(std::uint32_t j, bool take) {
        const std::uint32_t slot = count & 3u;
        pending.x = take && slot == 0 ? j : pending.x;
        pending.y = take && slot == 1 ? j : pending.y;
        pending.z = take && slot == 2 ? j : pending.z;
        pending.w = take && slot == 3 ? j : pending.w;
        count += take ? 1u : 0u;
        if (take && slot == 3 && count <= capacity)
            groups[static_cast<int>(count / 4 - 1) * stride] = pending;
    }
    __device__ __forceinline__ void finish() {
        if ((count & 3u) != 0 && count <= capacity)
            groups[static_cast<int>(count / 4) * stride] = pending;
    }
};

/// A kept list's two parts (NeighbourLists::counts): `core`, the candidates within R at the
/// build, from the particle's first group on, and `shell`, those between R and R + skin, from
/// its last group back. Most of the core is still within R when a pass reads it, most of the
/// shell still beyond, so a pass runs the pair terms over the core with a warp's lanes together
/// and only tests the shell (interaction_kernels.cuh, visit_listed). The corrector's lists of a
/// step are all core.
struct ListExtent {
    std::uint32_t core = 0, shell = 0;
};

/// Whether a core and a shell of these counts fit a list of `capacity` entries (whole groups of
/// four each).
__device__ __forceinline__ bool list_extent_fits(std::uint32_t core, std::uint32_t shell,
                                                 std::uint32_t capacity) {
    return (core + 3u) / 4u + (shell + 3u) / 4u <= capacity / 4u;
}

/// counts[i] for a list of `core` and `shell` entries (a corrector's list: all core): no_list
/// when the two parts do not fit its capacity (or a count is past 16 bits) and the particle must
/// walk.
__device__ __forceinline__ std::uint32_t pack_list_extent(std::uint32_t core, std::uint32_t shell,
                                                          std::uint32_t capacity) {
    const bool fits =
        core <= 0xffffu && shell <= 0xffffu && list_extent_fits(core, shell, capacity);
    return fits ? core | shell << 16 : no_list;
}

/// Reads counts[i] (pack_list_extent); false: no list.
__device__ __forceinline__ bool unpack_list_extent(std::uint32_t packed, std::uint32_t capacity,
                                                   ListExtent& extent) {
    extent.core = packed & 0xffffu;
    extent.shell = packed >> 16;
    return list_extent_fits(extent.core, extent.shell, capacity);
}

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
