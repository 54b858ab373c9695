#pragma once
/// \file integration_kernels.cuh
/// The kernels of the TimeStep and Integration passes (integration.cu launches them): dt from the
/// interaction pass's maxima, the symplectic predictor and corrector and the Verlet step
/// (integrators.h) with the fused failure check and largest moves.

#include "backends/cuda/step_kernels.cuh"
#include "physics/integrators.h"

namespace sluice::gpu {

/// dt from the pass's reductions (integrators.h time_step, as the CPU backend computes it);
/// wall_speed (moving walls, else null): their largest speed now (m/s).
static __global__ void time_step_kernel(FluidConstants c, double cfl, StepScalars* scalars,
                                        const float* wall_speed) {
    const float acceleration_max = sqrtf(__uint_as_float(scalars->acceleration_max2_bits));
    const float mu_max = __uint_as_float(scalars->mu_max_bits);
    const double dt =
        time_step(c, cfl, acceleration_max, mu_max, wall_speed != nullptr ? *wall_speed : 0.0f);
    scalars->dt = dt;
    scalars->dt_float = static_cast<float>(dt);
}

/// Symplectic predictor over the build's order: binned particles move (integrators.h); excluded
/// ones keep their position. Reads the build's positions, writes the state's position array
/// (another array; with kept lists, a step without a build reads the state's own, each thread
/// its element before writing it), and state n into previous_* (in this order).
/// largest_move_out (optional): the largest move (BuildOrder::skin_move), the skin of the
/// corrector's reused structure.
template <int D>
__global__ void __launch_bounds__(block_size)
    predict_kernel(BuildOrder<D> order, Vec<D>* position, Float4* __restrict__ motion,
                   const Float4* __restrict__ derivatives, Vec<D>* __restrict__ previous_position,
                   Vec<D>* __restrict__ previous_velocity, float* __restrict__ previous_density,
                   std::uint32_t n, FluidConstants c, const StepScalars* __restrict__ scalars,
                   float* __restrict__ largest_move_out) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    float moved = 0.0f;
    if (i < n) {
        const Vec<D> x = detail::load_position(order.positions + i);
        if (!order.holds(i, x)) {
            position[i] = x;
        } else {
            PreviousState<D> previous;
            const IntegrationResult<D> r =
                predict_packed<D>(c, x, motion[i], derivatives[i], scalars->dt_float, previous);
            position[i] = r.position;
            motion[i] = r.motion;
            previous_position[i] = previous.position;
            previous_velocity[i] = previous.velocity;
            previous_density[i] = previous.density;
            moved = order.skin_move(i, r.position, x);
        }
    }
    if (largest_move_out != nullptr) // the same for every thread: all reach the reduction
        block_max_into(largest_move_out, moved);
}

/// correct_kernel's work for particle i; returns how far it moved since state n, and `held`:
/// whether the build held it (an excluded particle keeps its state, and never moves again).
template <int D>
__device__ __forceinline__ float correct_particle(
    const BuildOrder<D>& order, Vec<D>* position, Float4* __restrict__ motion,
    const Float4* __restrict__ derivatives, const Vec<D>* __restrict__ previous_position,
    const Vec<D>* __restrict__ previous_velocity, const float* __restrict__ previous_density,
    const Vec<D>* __restrict__ shift, std::uint32_t i, FluidConstants c, float density_min,
    float density_max, StepScalars* __restrict__ scalars, bool halo, bool& held) {
    const Vec<D> x = detail::load_position(order.positions + i);
    float moved = 0.0f;
    bool bad;
    held = order.holds(i, x);
    if (!held) {
        position[i] = x;
        bad = state_is_bad(unpack_particle(x, motion[i]), density_min, density_max);
    } else {
        const std::uint32_t from = order.previous_index(i);
        PreviousState<D> previous;
        previous.position = previous_position[from];
        previous.velocity = previous_velocity[from];
        previous.density = previous_density[from];
        Vec<D> shift_i{};
        if (shift != nullptr)
            shift_i = shift[i];
        const IntegrationResult<D> r =
            correct_packed<D>(c, x, motion[i], derivatives[i], scalars->dt_float, previous,
                              shift != nullptr ? &shift_i : nullptr);
        position[i] = r.position;
        motion[i] = r.motion;
        bad = state_is_bad(r.state, density_min, density_max);
        moved = order.skin_move(i, r.position, previous.position);
    }
    if (bad && !halo) // a halo copy's state is its owner's to check
        atomicAdd(&scalars->bad_count, 1u);
    return moved;
}

/// Symplectic corrector over the new build's order (or the predictor's, when its structure is
/// reused: then order.positions is `position` itself, each thread reading its element before
/// writing it), plus the failure check of every particle. previous_* are in the predictor's
/// order: particle i reads them at order.previous_index(i). largest_move_out (optional): the
/// largest move since state n (the predictor's build). tags (several GPUs, else null): halo
/// copies are not checked. track_speed: the largest speed of the (owned) fluid that the build
/// held goes to speed_max_bits.
template <int D>
__global__ void __launch_bounds__(block_size)
    correct_kernel(BuildOrder<D> order, Vec<D>* position, Float4* __restrict__ motion,
                   const Float4* __restrict__ derivatives,
                   const Vec<D>* __restrict__ previous_position,
                   const Vec<D>* __restrict__ previous_velocity,
                   const float* __restrict__ previous_density, const Vec<D>* __restrict__ shift,
                   std::uint32_t n, FluidConstants c, float density_min, float density_max,
                   StepScalars* __restrict__ scalars, float* __restrict__ largest_move_out,
                   const std::uint32_t* __restrict__ tags, bool track_speed) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    float moved = 0.0f, speed = 0.0f;
    if (i < n) {
        const bool halo = tags != nullptr && is_halo(tags[i]);
        bool held;
        moved = correct_particle(order, position, motion, derivatives, previous_position,
                                 previous_velocity, previous_density, shift, i, c, density_min,
                                 density_max, scalars, halo, held);
        if (track_speed && held && !halo) {
            const ParticleState<D> p = unpack_particle(position[i], motion[i]);
            if (p.type == ParticleType::fluid) {
                speed = sqrtf(norm2(p.velocity));
                // Shifting: the step moved it by at most dt·(max(|v_n|, |v_n+1|) + |u_s|).
                if (shift != nullptr)
                    speed = fmaxf(speed, sqrtf(norm2(previous_velocity[order.previous_index(i)]))) +
                            sqrtf(norm2(shift[i]));
            }
        }
    }
    if (largest_move_out != nullptr) // the same for every thread: all reach the reduction
        block_max_into(largest_move_out, moved);
    if (track_speed) // the same for every thread
        block_max_into(reinterpret_cast<float*>(&scalars->speed_max_bits), speed);
}

/// Verlet step over the build's order, plus the failure check. previous_*_in are in the last
/// step's order (read at order.previous_index(i)); previous_*_out receive step n in this one.
/// tags: as correct_kernel's.
template <int D>
__device__ __forceinline__ void verlet_particle(
    const BuildOrder<D>& order, Vec<D>* __restrict__ position, Float4* __restrict__ motion,
    const Float4* __restrict__ derivatives, const Vec<D>* __restrict__ previous_velocity_in,
    const float* __restrict__ previous_density_in, Vec<D>* __restrict__ previous_velocity_out,
    float* __restrict__ previous_density_out, const Vec<D>* __restrict__ shift, std::uint32_t i,
    bool euler, FluidConstants c, float density_min, float density_max,
    StepScalars* __restrict__ scalars, bool halo) {
    const Vec<D> x = detail::load_position(order.positions + i);
    bool bad;
    if (!order.holds(i, x)) {
        position[i] = x;
        bad = state_is_bad(unpack_particle(x, motion[i]), density_min, density_max);
    } else {
        const std::uint32_t from = order.previous_index(i);
        PreviousState<D> previous;
        previous.velocity = previous_velocity_in[from];
        previous.density = previous_density_in[from];
        Vec<D> shift_i{};
        if (shift != nullptr)
            shift_i = shift[i];
        const IntegrationResult<D> r =
            verlet_packed<D>(c, x, motion[i], derivatives[i], scalars->dt_float, euler, previous,
                             shift != nullptr ? &shift_i : nullptr);
        position[i] = r.position;
        motion[i] = r.motion;
        previous_velocity_out[i] = previous.velocity;
        previous_density_out[i] = previous.density;
        bad = state_is_bad(r.state, density_min, density_max);
    }
    if (bad && !halo)
        atomicAdd(&scalars->bad_count, 1u);
}

template <int D>
__global__ void __launch_bounds__(block_size)
    verlet_kernel(BuildOrder<D> order, Vec<D>* __restrict__ position, Float4* __restrict__ motion,
                  const Float4* __restrict__ derivatives,
                  const Vec<D>* __restrict__ previous_velocity_in,
                  const float* __restrict__ previous_density_in,
                  Vec<D>* __restrict__ previous_velocity_out,
                  float* __restrict__ previous_density_out, const Vec<D>* __restrict__ shift,
                  std::uint32_t n, bool euler, FluidConstants c, float density_min,
                  float density_max, StepScalars* __restrict__ scalars,
                  const std::uint32_t* __restrict__ tags) {
    const std::uint32_t i = blockIdx.x * block_size + threadIdx.x;
    float speed = 0.0f;
    if (i < n) {
        const bool halo = tags != nullptr && is_halo(tags[i]);
        verlet_particle(order, position, motion, derivatives, previous_velocity_in,
                        previous_density_in, previous_velocity_out, previous_density_out, shift, i,
                        euler, c, density_min, density_max, scalars, halo);
        if (tags != nullptr && !halo) {
            const ParticleState<D> p = unpack_particle(position[i], motion[i]);
            if (p.type == ParticleType::fluid) {
                speed = sqrtf(norm2(p.velocity));
                // Shifting: the step moved it by at most dt·(max(|v_n|, |v_n+1|) + |u_s|).
                if (shift != nullptr)
                    speed = fmaxf(speed, sqrtf(norm2(previous_velocity_out[i]))) +
                            sqrtf(norm2(shift[i]));
            }
        }
    }
    if (tags != nullptr) // the same for every thread: all reach the reduction
        block_max_into(reinterpret_cast<float*>(&scalars->speed_max_bits), speed);
}

} // namespace sluice::gpu
