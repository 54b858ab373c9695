#pragma once
/// \file forces.h
/// The force and moment of the fluid on a boundary object, from the step's own pair terms
/// (physics.h, add_momentum_pair): each wall particle b of the object takes
///   f_b = m_b Σ_{j fluid} −m_j (p_b/ρ_b² + p_j/ρ_j² + Π_bj) ∇_b W_bj  (+ the laminar term),
/// which by the symmetry of the pair terms (Monaghan 2005, Rep. Prog. Phys. 68 §3.2) is minus
/// the sum of the forces that b's pairs put on the fluid; the object's force is Σ_b f_b and its
/// moment Σ_b (x_b − c) × f_b about a point c. N (3D) or N/m (2D: per unit width); wall–wall
/// pairs give nothing (DualSPHysics sums the same for its floating bodies, Domínguez et al. 2022
/// §2.6). Gravity on the object itself is not included: this is the fluid's load. With the
/// Riemann formulation (riemann.h) the pair's pressure is the Riemann solver's p*, the same
/// term that acts on the fluid: f_b = −m_b Σ_j 2 m_j p*/(ρ_b ρ_j) ∇_b W_bj.

#include "neighbours/query.h"
#include "neighbours/vec.h"
#include "physics/physics.h"

#include <cstdint>

namespace sluice {

/// Sums the momentum pair terms of wall particle b's fluid neighbours; the query calls it with
/// r_bj = x_b − x_j and r² for r < R. ParticlesT offers motion(j) and p_rho2(j, ρ_j) (physics.h).
template <int D, class KernelT, class ParticlesT>
struct WallForceVisitor {
    ParticlesT particles;
    KernelT kernel;
    FluidConstants c;
    Vec<D> vel_b;   ///< m/s, as the pair terms see the wall (mDBC: the velocity mDBC gave it)
    float rho_b;    ///< kg/m³
    float p_rho2_b; ///< p_b/ρ_b²
    Vec<D> acceleration{};

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>& rij, float r2) {
        visit(j, rij, r2, particles.motion(j));
    }
    /// The pair terms of neighbour j whose motion the caller has loaded (BodyLoadVisitor).
    SLUICE_HD SLUICE_INLINE void visit(std::uint32_t j, const Vec<D>& rij, float r2,
                                       const NeighbourMotion<D>& mj) {
        if (!mj.fluid)
            return;
        const float fac = kernel.grad_factor(sqrtf(r2));
        const Vec<D> vij = vel_b - mj.velocity;
        const float inv_rr2 = 1.0f / (r2 + c.eta2);
        const float mu_ij = c.h * dot(vij, rij) * inv_rr2;
        add_momentum_pair<RuntimeModel>(c, p_rho2_b, particles.p_rho2(j, mj.density), mu_ij, rho_b,
                                        mj.density, fac, r2, inv_rr2, vij, rij, acceleration);
    }
    /// f_b (N or N/m).
    SLUICE_HD SLUICE_INLINE Vec<D> force() const { return c.mass * acceleration; }
};

/// The moment (x − c) × f about c, as (x, y, z) components (2D: only y, the others 0).
template <int D>
SLUICE_HD SLUICE_INLINE void moment_about(const Vec<D>& x, const Vec<D>& c, const Vec<D>& f,
                                          double out[3]) {
    float r[3], g[3], m[3];
    detail::to_xyz(x - c, r);
    detail::to_xyz(f, g);
    detail::cross3f(r, g, m);
    out[0] = m[0], out[1] = m[1], out[2] = m[2];
}

} // namespace sluice
