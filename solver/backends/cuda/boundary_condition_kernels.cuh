#pragma once
/// \file boundary_condition_kernels.cuh
/// The kernel of the CUDA backend's mDBC pass (boundary_condition.cu; physics/mdbc.h).

#include "backends/cuda/interaction_kernels.cuh"
#include "backends/cuda/step_kernels.cuh"
#include "physics/mdbc.h"

#include <cstdint>

namespace sluice::gpu {

/// Whether particle i (of the last build's order) takes the mDBC pass: an owned wall particle
/// whose id has a ghost offset (the predicate of the pass's list, cub::DeviceSelect::If).
template <int D>
struct TakesGhostNode {
    const Float4* motions;
    const std::uint32_t* ids;
    const Vec<D>* ghost_offsets;
    std::uint32_t wall_ids;
    const std::uint32_t* tags; ///< several GPUs, else null
    __device__ __forceinline__ bool operator()(std::uint32_t i) const {
        if (tags != nullptr && is_halo(tags[i]))
            return false;
        if (decode_type(motion_signed_density<D>(detail::load_motion(motions + i))) !=
            ParticleType::boundary)
            return false;
        const std::uint32_t id = ids[i];
        return id < wall_ids && norm2(ghost_offsets[id]) != 0.0f; // zero: never near fluid
    }
};

/// A ghost node's sums over its kept list (visit_listed's pair interface; the list holds fluid
/// particles only, GhostNodeLists).
template <int D, class VisitorT>
struct ListedGhostNode {
    VisitorT& node;
    template <class PRho2T>
    __device__ __forceinline__ void visit(std::uint32_t, const Vec<D>& rij, float r2,
                                          const NeighbourMotion<D>& m, PRho2T&&) {
        node.add(rij, r2, m);
    }
};

/// The mDBC pass's block, and at least 8 of them per multiprocessor (64 registers a thread):
/// half the warps active instead of 31 %, which on the 10⁶ case at t = 0 made the pass 0.126–0.127
/// ms instead of 0.137–0.138 per step, the few bytes spilled in the solve included (one H200).
constexpr int mdbc_block = 128;

/// One thread per entry k < *count of `walls` (the particles TakesGhostNode selected, in the
/// last build's order: a warp's lanes are 32 wall particles next to each other, where a thread
/// per particle left most lanes of a warp near a wall idle on fluid particles): the binned wall
/// particle i = walls[k] takes mdbc_particle's density and velocity, written into its motion entry
/// and its p/ρ² (the 3D position's padding, the 2D motion's w), both where the interaction pass
/// reads them (`positions`: the view's; `motions`: the state's). The ghost node's query reads
/// fluid particles only and the kernel writes wall particles only, so no thread reads what
/// another writes (a wall's entry loaded by a query is discarded: its type is the same before
/// and after). `dry` (until null: none): a wall particle whose ghost node has no fluid within
/// R + margin is certified dry as the interaction pass certifies dry walls (DryWalls: the fluid
/// must travel the rest of the margin first) and skipped until then: its state stays ρ0 and
/// the wall's velocity, what mdbc_wall_state gave it with no fluid in reach. Wet ones (certificate
/// −1) take the plain query, and the wider one every few builds (retry_wet). `lists` (kept
/// lists with ghost node lists, GhostNodeLists; indices null: none): a wet node whose list holds
/// (lists_hold; moved: the largest move since the build) sums over it instead of the query,
/// the same neighbours summed in the list's order (core, then the shell's entries within R),
/// and counts itself in scalars->ghost_list_nodes.
/// `moving`: moving walls (empty: none), whose ghost offsets turn with their objects and whose
/// velocity and acceleration enter mdbc_wall_state.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void __launch_bounds__(mdbc_block, 8)
    mdbc_kernel(ViewT view, Vec<D>* __restrict__ positions, Float4* motions, KernelT kernel,
                FluidConstants c, WallSlip slip, std::uint32_t n,
                const std::uint32_t* __restrict__ walls, const std::uint32_t* __restrict__ count,
                const std::uint32_t* __restrict__ ids, const Vec<D>* __restrict__ ghost_offsets,
                DryWalls dry, NeighbourLists lists, StepScalars* __restrict__ scalars,
                MovingWallsView<D> moving) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= *count)
        return;
    const std::uint32_t i = walls[k];
    Vec<D> x{};
    if (!load_if_binned(view, i, n, x))
        return;
    const std::uint32_t id = ids[i];
    Vec<D> to_ghost = ghost_offsets[id];
    Vec<D> wall_velocity{}, wall_acceleration{};
    if (const std::uint16_t k = moving.object_of(id); k != no_object) {
        // the node turns and moves with its object (physics/motion.h)
        to_ghost = rigid_rotate(moving.states[k], to_ghost);
        wall_velocity = rigid_velocity(moving.states[k], plain_position(x));
        wall_acceleration = rigid_acceleration(moving.states[k], plain_position(x));
    }
    const PackedParticlesView<D> particles{view.positions, motions};
    const Vec<D> ghost = plain_position(x) + to_ghost;
    using Visitor = GhostNodeVisitor<D, KernelT, PackedParticlesView<D>>;
    Visitor visitor{particles, kernel, c.mass};
    bool certify = false;
    float now = 0.0f;
    if (dry.until != nullptr) {
        now = dry_travel_now(dry);
        const float until = dry.until[i];
        if (now < until)
            return;
        certify = until >= 0.0f || dry.retry_wet;
    }
    ListExtent extent;
    if (certify) {
        certify_dry_wall<QueryT>(view, ghost, particles, dry, now, i, visitor);
    } else if (lists.indices != nullptr && lists_hold(lists) &&
               unpack_list_extent(detail::load_pbm(lists.counts + i), lists.capacity, extent)) {
        ListedGhostNode<D, Visitor> listed{visitor};
        visit_listed(list_groups(lists, i), extent, lists.capacity, view.positions, motions, ghost,
                     view.radius2, listed);
        atomicAdd(&scalars->ghost_list_nodes, 1u);
    } else {
        for_each_neighbour<QueryT>(view, ghost, visitor);
    }
    const WallState<D> w =
        mdbc_wall_state(visitor.sums, to_ghost, wall_velocity, wall_acceleration, c, slip);
    Vec<D> packed_position;
    Float4 packed_motion;
    pack_particle<D>(c, plain_position(x), w.velocity, w.density, ParticleType::boundary,
                     packed_position, packed_motion);
    motions[i] = packed_motion;
    if constexpr (D == 3)
        positions[i].c[3] = packed_position.c[3];
}

} // namespace sluice::gpu
