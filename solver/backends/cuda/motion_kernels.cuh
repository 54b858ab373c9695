#pragma once
/// \file motion_kernels.cuh
/// The kernels of the CUDA backend's Motion and Damping passes (motion.cu): the objects' states
/// from the step's time on the device (physics/motion.h), the moving walls placed where their
/// objects have them, and the damping zones' relaxation of the fluid's velocity
/// (physics/damping.h).

#include "backends/cuda/bodies_kernels.cuh"
#include "backends/cuda/step_kernels.cuh"
#include "physics/damping.h"
#include "physics/motion.h"

namespace sluice::gpu {

/// Every object's state at t = time + fraction · dt, dt the step's (scalars; null: t = time),
/// as particles take it (`states`): a prescribed one from its tables, a floating body's from its
/// update over `stage` (advance_floating_bodies, thread 0); the moving walls' largest speed now
/// into *wall_speed, and (speed_max_bits not null) the larger of it and the one before into the
/// step's largest speed, which the halo check bounds every move of the step with. One block; a
/// thread per object.
static __global__ void object_states_kernel(MotionTablesView tables, FloatingBodiesView floating,
                                            BodyStage stage, double time, double fraction,
                                            const StepScalars* scalars, RigidMotionF* states,
                                            float* wall_speed, std::uint32_t* speed_max_bits) {
    const double t = time + (scalars != nullptr ? fraction * scalars->dt : 0.0);
    float fastest = 0.0f;
    for (std::uint32_t k = threadIdx.x; k < tables.objects; k += blockDim.x) {
        if (floating.floats != nullptr && floating.floats[k] != 0)
            continue; // its body's (below)
        const RigidState s = rigid_state(tables, k, t);
        states[k] = to_float(s);
        fastest = fmaxf(fastest, static_cast<float>(s.speed_bound));
    }
    if (floating.count > 0 && scalars != nullptr)
        prefetch_floating_bodies(floating);
    using WarpReduce = cub::WarpReduce<float>;
    __shared__ typename WarpReduce::TempStorage storage;
    float block = WarpReduce(storage).Reduce(fastest, MaxOp{}); // blockDim.x == 32
    if (threadIdx.x == 0) {
        if (floating.count > 0 && scalars != nullptr)
            block =
                fmaxf(block, advance_floating_bodies(floating, stage, time, scalars->dt, states));
        if (speed_max_bits != nullptr)
            atomicMax(speed_max_bits, __float_as_uint(fmaxf(block, *wall_speed)));
        *wall_speed = block;
    }
}

/// The wall particles of moving objects (ids of `walls`) take their objects' positions and,
/// with `set_velocity` (DBC), velocities; a position keeps its padding (3D: p/ρ²). `from`
/// (optional, with skin_out): where each particle was when the structure the next pass walks
/// was built — the build's positions after the predictor, state n (previous_position, at
/// order.previous_index) after the corrector — so that the largest move along an axis goes into
/// *skin_out with the integration's (the reused structure's skin, the dry walls' travel).
template <int D>
__global__ void __launch_bounds__(block_size)
    move_walls_kernel(Vec<D>* __restrict__ position, Float4* __restrict__ motion,
                      const std::uint32_t* __restrict__ ids, MovingWallsView<D> walls,
                      std::uint32_t n, bool set_velocity, BuildOrder<D> order,
                      const Vec<D>* __restrict__ previous_position, float* skin_out) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    float moved = 0.0f;
    if (i < n) {
        const std::uint32_t id = ids[i];
        const std::uint16_t k = walls.object_of(id);
        if (k != no_object) { // only boundary ids have an object
            const Vec<D> old = position[i];
            Vec<D> x = rigid_position(walls.states[k], walls.reference[id]);
            if constexpr (D == 3)
                x.c[3] = old.c[3];
            position[i] = x;
            if (set_velocity) {
                const Vec<D> v = rigid_velocity(walls.states[k], x);
                Float4 m = motion[i];
                m.x = v[0];
                m.y = v[1];
                if constexpr (D == 3)
                    m.z = v[2];
                motion[i] = m;
            }
            if (skin_out != nullptr) {
                const Vec<D> before = previous_position != nullptr
                                          ? previous_position[order.previous_index(i)]
                                          : detail::load_position(order.positions + i);
                moved = order.skin_move(i, x, before);
            }
        }
    }
    if (skin_out != nullptr) // the same for every thread: all reach the reduction
        block_max_into(skin_out, moved);
}

/// Damping zones: each fluid particle in the build's order (binned, not a halo copy) takes
/// damping_factor over the step's dt on its velocity.
template <int D>
__global__ void __launch_bounds__(block_size)
    damping_kernel(const Vec<D>* __restrict__ position, Float4* __restrict__ motion,
                   BuildOrder<D> order, std::uint32_t n, const DampingZoneData<D>* zones,
                   std::uint32_t zone_count, const StepScalars* __restrict__ scalars,
                   const std::uint32_t* __restrict__ tags) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    if (i >= n || (tags != nullptr && is_halo(tags[i])))
        return;
    const Vec<D> x = detail::load_position(position + i);
    if (!order.holds(i, detail::load_position(order.positions + i)))
        return;
    Float4 m = motion[i];
    if (decode_type(motion_signed_density<D>(m)) != ParticleType::fluid)
        return;
    const float f = damping_factor(zones, zone_count, plain_position(x), scalars->dt_float);
    if (f == 1.0f)
        return;
    m.x *= f;
    m.y *= f;
    if constexpr (D == 3)
        m.z *= f;
    motion[i] = m;
}

} // namespace sluice::gpu
