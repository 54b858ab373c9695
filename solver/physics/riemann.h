#pragma once
/// \file riemann.h
/// The Riemann-based weakly compressible pair terms of Zhang, Hu & Adams (2017, "A weakly
/// compressible SPH method based on a low-dissipation Riemann solver", J. Comput. Phys. 335,
/// 605–620), the `formulation="riemann"` of a case (physics.h's InteractionVisitor calls them).
///
/// Each pair i, j poses a one-dimensional Riemann problem along the line of centres
/// e_ij = (x_j − x_i)/r with the left state (ρ_i, U_L = v_i·e_ij, p_i) and the right state
/// (ρ_j, U_R = v_j·e_ij, p_j). Its linearised (acoustic) solution with the reference impedance
/// ρ0·c0 (Zhang et al. 2017; SPHinXsys's AcousticRiemannSolver takes the same constant
/// impedance) is
///
///   U* = (U_L + U_R)/2 + (p_L − p_R)/(2 ρ0 c0),
///   p* = (p_L + p_R)/2 + ½ ρ0 β (U_L − U_R),   β = min(η·max(U_L − U_R, 0), c0),
///
/// β being their low-dissipation limiter: the full acoustic dissipation ½ρ0c0ΔU only
/// where the pair closes at ΔU ≥ c0/η, less for slower compression, none in expansion, where
/// a dissipative pressure would be a tension. η = 3 as in the paper (the limiter's slope:
/// dissipation grows like 3ΔU²ρ0/2, a quadratic — von Neumann–Richtmyer — artificial
/// pressure). The pair terms are then (their eqs. for the momentum and continuity equations)
///
///   dv_i/dt = −2 Σ_j m_j p*/(ρ_i ρ_j) ∇_i W_ij,
///   dρ_i/dt = 2 ρ_i Σ_j (m_j/ρ_j) (v_i − v*)·∇_i W_ij,
///
/// with v* = U* e_ij + (the pair's mean velocity across e_ij), so that only U* matters:
/// (v_i − v*)·∇W = (U_L − U*)(e_ij·∇_iW_ij) and e_ij·∇_iW_ij = −r F (kernels.h: ∇_iW = r_ij F).
/// There is no artificial viscosity: the Riemann solver dissipates.
///
/// Walls (fluid i, wall particle j): the right state is the wall particle's, as mDBC gives it
/// (mdbc.h): the fluid's pressure at its ghost node carried hydrostatically to the particle
/// (the wall state of Adami et al. 2012 that Zhang et al. use) and the fluid's velocity at the
/// node mirrored in the wall — its normal component reversed, the tangential one kept (the
/// free-slip state; with the Riemann terms mDBC always gives it, case reader), so that
/// U_L − U_R is twice the fluid's normal approach and a fluid sliding along a wall feels no
/// dissipation (a no-slip mirror, 2v_w − v_g, made the sliding front of a dam break close on the
/// floor's particles ahead of it and braked it). Continuity sees the wall's own velocity, as in
/// the classical terms (physics.h). DBC walls: their own density's pressure and velocity.
///
/// Hydrostatics: the continuity term's (p_i − p_j)/(ρ0 c0) diffuses pressure like a density
/// diffusion with δ ≈ r/(2h); on a hydrostatic column truncated at the free surface it would
/// drift the density as Molteni's diffusion does. The hydrostatic difference ρ0 g (z_j − z_i)
/// is taken off the jump first, as Fourtakas et al. (2019, Comp. Fluids 190) do for
/// the density diffusion, so still water stays still (tests/solver/physics/test_riemann.cpp).

#include "neighbours/vec.h"

#include <cmath>

namespace sluice {

/// η of the limiter β = min(η·max(ΔU, 0), c0) (Zhang, Hu & Adams 2017; dimensionless).
constexpr float riemann_limiter_default = 3.0f;

/// ΔU = U_L − U_R of a pair (m/s) from v_ij·r_ij (v_ij = v_i − v_j, r_ij = x_i − x_j) and 1/r:
/// positive when the pair closes.
SLUICE_HD SLUICE_INLINE float riemann_velocity_jump(float vr, float inv_r) {
    return -vr * inv_r;
}

/// p* of the limited linearised solver (Pa): the pair's mean pressure plus ½ρ0βΔU.
SLUICE_HD SLUICE_INLINE float riemann_star_pressure(float p_i, float p_j, float du, float rho0,
                                                    float c0, float eta) {
    const float beta = fminf(eta * fmaxf(du, 0.0f), c0);
    return 0.5f * (p_i + p_j) + 0.5f * rho0 * beta * du;
}

/// The continuity term of one pair (kg/(m³·s)):
/// 2ρ_i (m_j/ρ_j)(U_L − U*)(−r F) = ρ_i (m_j/ρ_j)(ΔU − Δp/(ρ0c0))(−r F),
/// Δp = p_i − p_j − ρ0 g (z_j − z_i) (the dynamic jump, the file comment); r·F = fac·r.
SLUICE_HD SLUICE_INLINE float riemann_density_rate(float rho_i, float volume_j, float du,
                                                   float dp_dynamic, float inv_rho0_c0, float r,
                                                   float fac) {
    return rho_i * volume_j * (du - dp_dynamic * inv_rho0_c0) * (-r * fac);
}

/// The momentum term's factor of r_ij (1/s²): dv_i/dt −= factor·r_ij, factor = 2 m p*F/(ρ_iρ_j).
SLUICE_HD SLUICE_INLINE float riemann_momentum_factor(float mass, float p_star, float rho_i,
                                                      float rho_j, float fac) {
    return 2.0f * mass * p_star * fac / (rho_i * rho_j);
}

} // namespace sluice
