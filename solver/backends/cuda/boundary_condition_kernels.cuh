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
/// −1) take the plain query, and the wider one every few builds (retry_wet). `moving`: moving
/// walls (empty: none), whose ghost offsets turn with their objects and whose velocity and
/// acceleration enter mdbc_wall_state.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void
mdbc_kernel(ViewT view, Vec<D>* __restrict__ positions, Float4* motions, KernelT kernel,
            FluidConstants c, WallSlip slip, std::uint32_t n,
            const std::uint32_t* __restrict__ walls, const std::uint32_t* __restrict__ count,
            const std::uint32_t* __restrict__ ids, const Vec<D>* __restrict__ ghost_offsets,
            DryWalls dry, MovingWallsView<D> moving) {
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
    GhostNodeVisitor<D, KernelT, PackedParticlesView<D>> visitor{particles, kernel, c.mass};
    if (dry.until != nullptr) {
        const float now = dry_travel_now(dry);
        const float until = dry.until[i];
        if (now < until)
            return;
        if (until >= 0.0f || dry.retry_wet)
            certify_dry_wall<QueryT>(view, ghost, particles, dry, now, i, visitor);
        else
            for_each_neighbour<QueryT>(view, ghost, visitor);
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
