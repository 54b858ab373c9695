#pragma once
/// \file integrators.h
/// Per-particle time integration and the variable time step, shared by the CPU backend and the
/// CUDA kernels. Schemes as DualSPHysics (Crespo et al. 2015, CPC 187, §2.6–2.7).
///
/// Boundary particles (DBC) never move; their density follows the same update and is clamped to
/// ≥ ρ0 so that they do not pull fluid particles in (DualSPHysics JSphCpu::ComputeSymplecticCorr).

#include "neighbours/vec.h"
#include "physics/physics.h"

#include <cstdint>

namespace sluice {

/// Mutable particle arrays in bin order. `previous_*` hold, for the symplectic scheme, the state
/// at the start of the step (n); for Verlet, velocity and density of step n−1
/// (previous_position unused).
template <int D>
struct IntegratorArrays {
    Vec<D>* position = nullptr;
    Vec<D>* velocity = nullptr;
    float* density = nullptr;
    Vec<D>* previous_position = nullptr;
    Vec<D>* previous_velocity = nullptr;
    float* previous_density = nullptr;
    const Vec<D>* acceleration = nullptr; ///< from the last interaction pass
    const float* density_rate = nullptr;
    const ParticleType* type = nullptr;
    /// With shifting (shifting.h): the shifting velocity u_s from the last interaction pass,
    /// which the symplectic corrector and the Verlet step add as dt·u_s; null: none.
    const Vec<D>* shift_velocity = nullptr;
};

SLUICE_HD SLUICE_INLINE float boundary_density(float rho, float rho0) {
    return rho < rho0 ? rho0 : rho;
}

/// Symplectic predictor (Leimkuhler et al. 1996; Crespo et al. 2015 eq. 22), with the
/// derivatives F^n, D^n of state n: saves state n into previous_*, then
/// ρ^{n+½} = ρ^n + dt/2·D^n, v^{n+½} = v^n + dt/2·F^n, r^{n+½} = r^n + dt/2·v^n.
template <int D>
SLUICE_HD SLUICE_INLINE void symplectic_predict(const IntegratorArrays<D>& a, std::uint32_t i,
                                                float dt, float rho0) {
    const float half_dt = 0.5f * dt;
    const float rho = a.density[i];
    a.previous_density[i] = rho;
    a.previous_position[i] = a.position[i];
    a.previous_velocity[i] = a.velocity[i];
    const float rho_half = rho + half_dt * a.density_rate[i];
    if (a.type[i] != ParticleType::fluid) {
        a.density[i] = boundary_density(rho_half, rho0);
        return;
    }
    a.density[i] = rho_half;
    a.position[i] += half_dt * a.velocity[i];
    a.velocity[i] += half_dt * a.acceleration[i];
}

/// Symplectic corrector (Crespo et al. 2015 eqs. 23–24), with the derivatives at n+½:
/// v^{n+1} = v^n + dt·F^{n+½}, r^{n+1} = r^n + dt·(v^n + v^{n+1})/2,
/// ρ^{n+1} = ρ^n (2 − ε)/(2 + ε) with ε = −(D^{n+½}/ρ^{n+½})·dt; with shifting, + dt·u_s.
template <int D>
SLUICE_HD SLUICE_INLINE void symplectic_correct(const IntegratorArrays<D>& a, std::uint32_t i,
                                                float dt, float rho0) {
    const float eps = -(a.density_rate[i] / a.density[i]) * dt;
    const float rho = a.previous_density[i] * (2.0f - eps) / (2.0f + eps);
    if (a.type[i] != ParticleType::fluid) {
        a.density[i] = boundary_density(rho, rho0);
        return;
    }
    a.density[i] = rho;
    const Vec<D> v_old = a.previous_velocity[i];
    const Vec<D> v_new = v_old + dt * a.acceleration[i];
    a.velocity[i] = v_new;
    a.position[i] = a.previous_position[i] + (0.5f * dt) * (v_old + v_new);
    if (a.shift_velocity)
        a.position[i] += dt * a.shift_velocity[i];
}

/// Verlet (Verlet 1967; Crespo et al. 2015 eqs. 19–21): r^{n+1} = r^n + dt·v^n + dt²/2·F^n,
/// v^{n+1} = v^{n−1} + 2dt·F^n, ρ^{n+1} = ρ^{n−1} + 2dt·D^n. With `euler` (every verletReset
/// steps, eq. 21) v^{n+1} = v^n + dt·F^n and ρ^{n+1} = ρ^n + dt·D^n, which decouples the odd and
/// even sequences. previous_* (n−1) take the values of step n.
template <int D>
SLUICE_HD SLUICE_INLINE void verlet_update(const IntegratorArrays<D>& a, std::uint32_t i, float dt,
                                           bool euler, float rho0) {
    const float rho = a.density[i];
    const float span = euler ? dt : 2.0f * dt;
    const float rho_new = (euler ? rho : a.previous_density[i]) + span * a.density_rate[i];
    a.previous_density[i] = rho;
    if (a.type[i] != ParticleType::fluid) {
        a.density[i] = boundary_density(rho_new, rho0);
        return;
    }
    a.density[i] = rho_new;
    const Vec<D> v = a.velocity[i];
    const Vec<D> f = a.acceleration[i];
    a.velocity[i] = (euler ? v : a.previous_velocity[i]) + span * f;
    a.previous_velocity[i] = v;
    a.position[i] += dt * v + (0.5f * dt * dt) * f;
    if (a.shift_velocity)
        a.position[i] += dt * a.shift_velocity[i];
}

/// Variable time step (Monaghan & Kos 1999; Crespo et al. 2015 eqs. 25–26):
/// dt = CFL·min(dt_f, dt_cv), dt_f = min_i sqrt(h/|f_i|), dt_cv = h/(c0 + max_ij μ_ij);
/// with laminar viscosity also dt ≤ 0.125·h²/ν, the viscous diffusion limit (Morris et al. 1997,
/// as DualSPHysics's laminar model). acceleration_max over fluid particles (m/s²), mu_max (m/s);
/// wall_speed (m/s): moving walls' largest speed, which bounds dt as μ does (a wall moves less
/// than CFL·h per step).
SLUICE_HD SLUICE_INLINE double time_step(const FluidConstants& c, double cfl,
                                         double acceleration_max, double mu_max,
                                         double wall_speed = 0.0) {
    const double h = c.h;
    const double dt_cv = h / (c.c0 + (mu_max > wall_speed ? mu_max : wall_speed));
    const double dt_f = acceleration_max > 0.0 ? sqrt(h / acceleration_max) : dt_cv;
    double dt = cfl * (dt_f < dt_cv ? dt_f : dt_cv);
    if (c.viscosity == ViscosityModel::laminar_lo_shao2002 && c.nu > 0.0f) {
        const double dt_nu = 0.125 * h * h / c.nu;
        dt = dt < dt_nu ? dt : dt_nu;
    }
    return dt;
}

} // namespace sluice
