#pragma once
/// \file shifting.h
/// Fickian particle shifting for weakly compressible SPH: each fluid particle is moved, beside
/// its advection, down the gradient of the particle concentration, which keeps the particles
/// from clustering and from opening voids and so takes the noise out of the pressure that a
/// disordered distribution gives (Lind et al. 2012, J. Comput. Phys. 231, 1499–1523, eqs. 6–8;
/// in the form DualSPHysics uses, Crespo et al. 2015, CPC 187, §2.5):
///
///   δr_i = −D_i ∇C_i,   ∇C_i = Σ_j (m_j/ρ_j) ∇_i W_ij,   D_i = A h |v_i| dt
///
/// with A = 2 (Skillen et al. 2013, CMAME 265, 163–173, eq. 19: a diffusion coefficient that
/// scales with the distance a particle moves in a step, so a fluid at rest is not shifted).
/// Every neighbour counts in ∇C, wall particles too (DualSPHysics's "full" mode): near a wall
/// the concentration is then even and nothing pushes a particle into it.
///
/// Free surface: beyond the surface the concentration falls to zero, and ∇C would push the
/// surface particles outwards without end. The divergence of the position
/// ∇·r_i = −Σ_j (m_j/ρ_j) r_ij·∇_i W_ij is D inside the fluid and about half of it at the
/// surface (Lee et al. 2008, J. Comput. Phys. 227, 8417–8436): the shift is scaled by
/// A_fsc = (∇·r_i − t)/(D_in − t), clamped to [0, 1], with the threshold t = 1.5 in 2D and 2.75 in
/// 3D (DualSPHysics's ShiftTFS and its free-surface correction) and D_in the interior's value
/// (D for a continuum; the step plan takes the regular lattice's for the kernel, a little
/// below D, lattice_position_divergence), so that particles at the surface are not shifted,
/// those near it less, those of a regular interior in full. Lind et al. (2012, §3.3) instead
/// keep the surface particles' tangential shift; here their whole shift, which points along
/// the surface normal, goes. Not here: Lind's anti-clumping term in ∇C (R = 0.2, n = 4) and
/// DualSPHysics's cap of the shift at 0.1 dp per axis; the shift stays below dt·A·h|v||∇C|.
///
/// The shift is applied once per step with the step's final positions (integrators.h: the
/// symplectic corrector and the Verlet step) from the derivatives pass before it; what a pass
/// stores is the shifting velocity u_s = −A h |v_i| A_fsc ∇C_i (m/s), the displacement being
/// dt·u_s. Velocity and density are not corrected for the move (as DualSPHysics).

#include "neighbours/vec.h"

namespace sluice {

/// The shifting's settings inside FluidConstants (physics.h).
struct ShiftingConstants {
    bool on = false;
    float coef = 2.0f;           ///< A (dimensionless)
    float surface_threshold = 0; ///< t: ∇·r below which a particle is at the free surface
    /// ∇·r inside the fluid: D in the continuum, lattice_position_divergence for the kernel
    float interior_divergence = 0;
};

/// The sums of particle i's shift over its neighbours j (a fluid particle's only).
template <int D>
struct ShiftingSums {
    Vec<D> concentration_gradient{}; ///< ∇C_i (1/m)
    float position_divergence = 0;   ///< ∇·r_i (dimensionless)

    /// Neighbour j at r_ij with ∇_i W = r_ij·fac, its volume m_j/ρ_j (m^D); r2 = |r_ij|².
    SLUICE_HD SLUICE_INLINE void add(const Vec<D>& rij, float r2, float fac, float volume_j) {
        concentration_gradient += (volume_j * fac) * rij;
        position_divergence -= volume_j * fac * r2;
    }
};

/// ∇·r of a particle inside a regular lattice of spacing dp (m; volume dp^D each) for `kernel`
/// (support 2h): Σ_j dp^D r_j² |F(r_j)|, the lattice's quadrature of ∫ −r·∇W dV = D, a little
/// below D (3D at h = 1.3 dp: 2.94; h = √3 dp: 2.99; 2D at h = √2 dp: 1.97). The free-surface
/// ramp takes it as the interior's value, so that a particle of a regular interior is shifted
/// in full. Host code (the step plan).
template <int D, class KernelT>
inline float lattice_position_divergence(const KernelT& kernel, float dp) {
    const float radius = 2.0f * kernel.h;
    const int reach = static_cast<int>(radius / dp) + 1;
    const float volume = D == 3 ? dp * dp * dp : dp * dp;
    double sum = 0.0;
    for (int k = (D == 3 ? -reach : 0); k <= (D == 3 ? reach : 0); ++k)
        for (int j = -reach; j <= reach; ++j)
            for (int i = -reach; i <= reach; ++i) {
                const float r2 = dp * dp * static_cast<float>(i * i + j * j + k * k);
                if (r2 == 0.0f || r2 >= radius * radius)
                    continue;
                sum -= static_cast<double>(volume) * kernel.grad_factor(sqrtf(r2)) * r2;
            }
    return static_cast<float>(sum);
}

/// The shifting velocity u_s (m/s) of a fluid particle of velocity v_i from its sums; h (m).
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> shifting_velocity(const ShiftingConstants& s, float h,
                                                 const Vec<D>& v_i, const ShiftingSums<D>& sums) {
    float surface = (sums.position_divergence - s.surface_threshold) /
                    (s.interior_divergence - s.surface_threshold);
    surface = surface < 0.0f ? 0.0f : (surface > 1.0f ? 1.0f : surface);
    return (-s.coef * h * sqrtf(norm2(v_i)) * surface) * sums.concentration_gradient;
}

} // namespace sluice
