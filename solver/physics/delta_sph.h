#pragma once
/// \file delta_sph.h
/// The density diffusion of δ-SPH (`diffusion="antuono"`): Antuono, Colagrossi, Marrone &
/// Molteni (2010, "Free-surface flows solved by means of SPH schemes with numerical
/// diffusive terms", Comput. Phys. Commun. 181, 532–549) and Antuono, Colagrossi & Marrone
/// (2012, "Numerical diffusive terms in weakly-compressible SPH schemes", CPC 183,
/// 2570–2580), with shifting the δ⁺-SPH of Sun et al. (2017, CPC 215, 8–27):
///
///   D_i = δ h c0 Σ_j ψ_ji·∇_iW_ij V_j,
///   ψ_ji = 2(ρ_j − ρ_i)(x_j − x_i)/|x_j − x_i|² − (⟨∇ρ⟩_i^L + ⟨∇ρ⟩_j^L),
///
/// where ⟨∇ρ⟩^L is the renormalised density gradient (Randles & Libersky 1996)
///
///   ⟨∇ρ⟩_i^L = L_i Σ_j (ρ_j − ρ_i) ∇_iW_ij V_j,   L_i = [Σ_j ∇_iW_ij ⊗ (x_j − x_i) V_j]^{-1}.
///
/// The first part is Molteni & Colagrossi's term (physics.h); the gradients take from it its
/// first-order error, so that the term vanishes on a linear density field — the hydrostatic
/// column — right up to the free surface, where Molteni's does not (Antuono et al. 2010).
/// V_j = m_j/ρ_j. Like the other diffusions it acts between fluid particles only, and the
/// gradient sums over fluid neighbours only (renormalisation keeps it exact for a linear field
/// on a truncated support: beside a wall, at the surface). Where the matrix is near singular
/// (|det| < corrected_determinant_limit: a particle with few neighbours, spray) the gradient
/// is taken as zero, which leaves Molteni's term there.
///
/// The gradients come from a pass of their own before each interaction pass
/// (pass::DensityGradient), since a pair needs its neighbour's.

#include "neighbours/vec.h"
#include "physics/corrected_interpolation.h"

#include <cstdint>

namespace sluice {

/// The renormalised density gradient's sums at particle i; one per particle.
template <int D>
struct DensityGradientSums {
    float moment[D][D] = {}; ///< Σ V_j ∇_iW ⊗ (x_j − x_i) (dimensionless)
    float gradient[D] = {};  ///< Σ V_j (ρ_j − ρ_i) ∇_iW (kg/m⁴)

    /// Fluid neighbour j: rij = x_i − x_j, fac = F(r) (∇_iW = rij F), its volume and ρ_j − ρ_i.
    SLUICE_HD SLUICE_INLINE void add(const Vec<D>& rij, float fac, float volume_j, float drho_ji) {
        for (int k = 0; k < D; ++k) {
            const float vgrad = volume_j * fac * rij[k];
            gradient[k] += vgrad * drho_ji;
            for (int l = 0; l < D; ++l)
                moment[k][l] -= vgrad * rij[l]; // x_j − x_i = −rij
        }
    }

    /// ⟨∇ρ⟩^L (kg/m⁴): L applied to the sum, or zero where the matrix is near singular.
    SLUICE_HD SLUICE_INLINE Vec<D> renormalised() const {
        double x[D];
        const double det = solve_small<D>(moment, gradient, x);
        Vec<D> g{};
        if (fabs(det) < corrected_determinant_limit)
            return g;
        for (int k = 0; k < D; ++k)
            g[k] = static_cast<float>(x[k]);
        return g;
    }
};

/// Antuono's diffusion of one fluid pair (kg/(m³·s)): Molteni's term (molteni, computed by the
/// caller with the same δ) minus δ h c0 (G_i + G_j)·∇_iW V_j = ½ ddt_coef (G_i + G_j)·r_ij F V_j.
template <int D>
SLUICE_HD SLUICE_INLINE float
density_diffusion_antuono2010(float molteni, float ddt_coef, const Vec<D>& grad_i,
                              const Vec<D>& grad_j, const Vec<D>& rij, float fac, float volume_j) {
    return molteni - 0.5f * ddt_coef * dot(grad_i + grad_j, rij) * fac * volume_j;
}

/// Visits the neighbours of particle i for its renormalised density gradient. ParticlesT as
/// InteractionVisitor's (motion(j)).
template <int D, class KernelT, class ParticlesT>
struct DensityGradientVisitor {
    ParticlesT particles;
    KernelT kernel;
    float mass; ///< m_j (kg), the same for all particles
    float rho_i;
    DensityGradientSums<D> sums{};

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>& rij, float r2) {
        const auto mj = particles.motion(j);
        if (!mj.fluid || r2 == 0.0f)
            return;
        sums.add(rij, kernel.grad_factor(sqrtf(r2)), mass / mj.density, mj.density - rho_i);
    }
};

} // namespace sluice
