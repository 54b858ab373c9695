#pragma once
/// \file bodies_kernels.cuh
/// The CUDA backend's floating bodies (bodies.cu, motion.cu): the BodyLoads pass's kernel, a
/// thread per particle that sums a body particle's share of its body's loads
/// (physics/body_loads.h) into the body's sums, and the bodies' update in the Motion pass
/// (physics/rigid_body.h), one thread for every body.

#include "backends/cuda/packed_particles.h"
#include "backends/cuda/step_kernels.cuh"
#include "neighbours/query.h"
#include "physics/body_loads.h"
#include "physics/rigid_body.h"

namespace sluice::gpu {

/// The floating bodies as the Motion pass's kernel takes them (device pointers; count 0: none).
struct FloatingBodiesView {
    const RigidBodyData* bodies = nullptr;
    BodyState* states = nullptr;
    BodyLoads* loads = nullptr; ///< written: the loads each update used
    const SpringData* springs = nullptr;
    const double* sums = nullptr;         ///< the last BodyLoads pass's, body_particle_sums each
    const std::uint8_t* floats = nullptr; ///< per object: it is a body's (skip its tables)
    std::uint32_t count = 0, spring_count = 0;
};

/// The block's threads ask for the cache lines of the bodies' data (constants, states, loads,
/// springs, sums) in L1 before advance_floating_bodies's one thread reads them one after another
/// (the kernel with one body on an H200: 12.7 µs before, 10.7–11.4 µs with it).
__device__ inline void prefetch_floating_bodies(const FloatingBodiesView& f) {
    constexpr std::size_t line = 128;
    const auto prefetch = [](const void* p, std::size_t bytes) {
        const char* c = static_cast<const char*>(p);
        for (std::size_t o = threadIdx.x * line; o < bytes; o += blockDim.x * line)
            asm volatile("prefetch.global.L1 [%0];" ::"l"(c + o));
    };
    prefetch(f.bodies, f.count * sizeof(RigidBodyData));
    prefetch(f.states, f.count * sizeof(BodyState));
    prefetch(f.loads, f.count * sizeof(BodyLoads));
    prefetch(f.sums, f.count * body_particle_sums * sizeof(double));
    prefetch(f.springs, f.spring_count * sizeof(SpringData));
}

/// One thread: every body's loads from the sums and its springs, then its update over the stage
/// of the step that starts at `time` with dt; its particles' motion state into states[object].
/// Returns the bodies' largest speed now (m/s).
__device__ inline float advance_floating_bodies(const FloatingBodiesView& f, BodyStage stage,
                                                double time, double dt, RigidMotionF* states) {
    body_loads_from_sums(f.sums, f.bodies, f.states, f.count, f.springs, f.spring_count, f.loads);
    float fastest = 0.0f;
    for (std::uint32_t b = 0; b < f.count; ++b) {
        const RigidBodyData& body = f.bodies[b];
        advance_body(body, f.states[b], f.loads[b], stage, time, dt);
        const RigidState s = body_rigid_state(body, f.states[b]);
        states[body.object] = to_float(s);
        fastest = fmaxf(fastest, static_cast<float>(s.speed_bound));
    }
    return fastest;
}

/// The BodyLoads pass, first kernel: the owned, binned particles of the bodies (ids in a body's
/// range; the id is read first, so the others cost one load) that are not buried in their body
/// (`buried` by id: BodyTables::buried) listed into members[0, *listed) (one atomic per warp),
/// for the second kernel's warps.
template <class ViewT, int D = ViewT::dimension>
__global__ void __launch_bounds__(block_size)
    body_members_kernel(ViewT view, std::uint32_t n, const std::uint32_t* __restrict__ ids,
                        const std::uint32_t* __restrict__ tags, const BodyContactData* bodies,
                        std::uint32_t count, const std::uint8_t* __restrict__ buried,
                        std::uint32_t* __restrict__ members, std::uint32_t* __restrict__ listed) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    const std::uint32_t id = i < n ? ids[i] : 0u;
    bool member = i < n && body_of_id(bodies, count, id) < count && buried[id] == 0 &&
                  (tags == nullptr || !is_halo(tags[i]));
    Vec<D> x;
    member = member && load_if_binned(view, i, n, x);
    const unsigned full = 0xffffffffu;
    const unsigned ballot = __ballot_sync(full, member);
    if (ballot == 0u)
        return;
    const unsigned lane = threadIdx.x % 32u;
    std::uint32_t base = 0;
    if (lane == 0)
        base = atomicAdd(listed, static_cast<std::uint32_t>(__popc(ballot)));
    base = __shfl_sync(full, base, 0);
    if (member)
        members[base + static_cast<std::uint32_t>(__popc(ballot & ((1u << lane) - 1u)))] = i;
}

/// The BodyLoads pass, second kernel: a warp per listed body particle (grid-stride over
/// *listed), its lanes sharing the walk of its neighbours (for_each_neighbour_shared: a lone
/// thread's walk is a chain of dependent loads, and a body has too few particles to hide it);
/// BodyLoadVisitor's sums are added over the lanes by shuffles, and the particle's fluid and
/// contact forces and their moments about its body's centre go into the block's sums in shared
/// memory (body_particle_sums · count doubles, `shared_sums`), then into sums[body_particle_sums
/// · b …] with one atomic per entry and block; without shared_sums (many bodies) straight there.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
__global__ void __launch_bounds__(block_size)
    body_loads_kernel(ViewT view, PackedParticlesView<D> particles, KernelT kernel,
                      FluidConstants c, const std::uint32_t* __restrict__ ids,
                      const std::uint32_t* __restrict__ members,
                      const std::uint32_t* __restrict__ listed, const BodyContactData* bodies,
                      std::uint32_t count, const BodyState* states, MovingWallsView<D> walls,
                      ContactConstants contact, double* sums, bool shared_sums) {
    extern __shared__ double block_sums[];
    const std::uint32_t entries = body_particle_sums * count;
    if (shared_sums) {
        for (std::uint32_t k = threadIdx.x; k < entries; k += blockDim.x)
            block_sums[k] = 0.0;
        __syncthreads();
    }
    const unsigned full = 0xffffffffu;
    const std::uint32_t lane = threadIdx.x % 32u;
    const std::uint32_t warps = gridDim.x * (block_size / 32);
    const std::uint32_t total = *listed;
    for (std::uint32_t k = (blockIdx.x * block_size + threadIdx.x) / 32u; k < total; k += warps) {
        const std::uint32_t i = members[k];
        const std::uint32_t id = ids[i];
        const std::uint32_t b = body_of_id(bodies, count, id);
        const Vec<D> x = detail::load_position(view.positions + i);
        const Float4 m = detail::load_motion(particles.motions + i);
        const float rho = decode_density(motion_signed_density<D>(m));
        const Vec<D> xb = plain_position(x);
        BodyLoadVisitor<D, KernelT, PackedParticlesView<D>> visitor{
            {particles, kernel, c, motion_velocity<D>(m), rho, packed_p_rho2(x, m)},
            ids,
            bodies,
            count,
            b,
            walls,
            contact,
            xb,
            walls.wall_velocity(id, xb)};
        for_each_neighbour_shared<QueryT>(view, xb, lane, 32u, visitor);
        Vec<D> fluid = visitor.fluid.force(), touch = visitor.contact_force;
        for (int a = 0; a < D; ++a)
            for (int offset = 16; offset > 0; offset /= 2) {
                fluid[a] += __shfl_down_sync(full, fluid[a], offset);
                touch[a] += __shfl_down_sync(full, touch[a], offset);
            }
        if (lane == 0) {
            double local[body_particle_sums] = {};
            body_share(xb, states[b].center, fluid, local);
            body_share(xb, states[b].center, touch, local + 6);
            double* target = (shared_sums ? block_sums : sums) + body_particle_sums * b;
            for (int e = 0; e < body_particle_sums; ++e)
                if (local[e] != 0.0)
                    atomicAdd(target + e, local[e]);
        }
    }
    if (shared_sums) {
        __syncthreads();
        for (std::uint32_t k = threadIdx.x; k < entries; k += blockDim.x)
            if (block_sums[k] != 0.0)
                atomicAdd(sums + k, block_sums[k]);
    }
}

} // namespace sluice::gpu
