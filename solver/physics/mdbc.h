#pragma once
/// \file mdbc.h
/// Modified dynamic boundary conditions (mDBC; English, Domínguez, Vacondio, Crespo, Stansby,
/// Lind, Chiapponi, Gómez-Gesteira, Comp. Part. Mech. 9 (2022) 1–15, doi
/// 10.1007/s40571-021-00403-3) as host/device code both backends run.
///
/// Every wall particle b has a ghost node x_g = x_b + g_b, its mirror through the wall surface
/// into the fluid (case/wall_normals.h gives g_b from the geometry). The fluid density at x_g is
/// the first-order-corrected interpolation (corrected_interpolation.h: Liu & Liu 2006; English
/// et al. 2022 eqs. 8–10), Shepard's where the correction matrix is ill-conditioned
/// (|det A| < 10⁻³, DualSPHysics's `determlimit`). The wall particle takes the pressure there
/// carried to itself by the wall's own pressure gradient, the hydrostatic one of a wall at rest:
///   p_b = p(ρ_g) + ρ0 g·(x_b − x_g)     (g the gravity vector)
/// (Adami, Hu & Adams 2012, J. Comput. Phys. 231, eq. 27, here with a_w = 0; a moving wall adds
/// −ρ0 a_w·(x_b − x_g) with its acceleration a_w; the "pressure cloning" of DualSPHysics 5.4's
/// mDBC), and the density of that pressure, ρ_b = ρ(p_b) (Tait inverted).
/// English et al. (2022, eq. 11) extrapolate with the density gradient fitted at the node
/// instead, ρ_b = ρ_g + (x_b − x_g)·∇ρ_g; that gradient includes the fluid's deceleration next
/// to the wall, which a fixed wall does not carry (the momentum equation at the wall, where the
/// fluid moves with it, leaves ρ(g − a_w)), and over the 1–5 dp from node to particle it
/// multiplied the noise of an impact into the wall pressure. With no fluid within the kernel
/// support of x_g, ρ_b = ρ0. The result is held at ≥ ρ0 (as DBC walls, integrators.h: a wall
/// never pulls the fluid in; DualSPHysics clamps its wall densities the same way).
///
/// Wall velocity for the viscous terms (the fluid's momentum equation: artificial or laminar
/// viscosity; the continuity equation sees the wall's own velocity v_w, physics.h, since a
/// mirrored velocity there doubles the compression and expansion of fluid moving to and from a
/// wall: with it the SPHERIC-2 dam break tore fluid off the box to half its density within
/// 0.6 s at every resolution and slip tried): from the Shepard velocity v_g at the ghost node
/// and v_w (0 for fixed walls),
///   no-slip:   v_b = 2 v_w − v_g                     (the fluid's velocity mirrored: zero at the
///   wall) free-slip: v_b = v_g − 2 ((v_g − v_w)·n) n       (tangential kept, normal mirrored)
/// (English et al. 2022 §2.3; DualSPHysics 5.4's SlipMode no-slip and free-slip). With no fluid
/// in reach, v_b = v_w.

#include "neighbours/vec.h"
#include "physics/corrected_interpolation.h"
#include "physics/physics.h"

#include <cstdint>

namespace sluice {

enum class WallSlip : std::uint8_t { no_slip, free_slip };

/// The sums at one ghost node: the corrected interpolation's of the fluid density
/// (corrected_interpolation.h, f_j = ρ_j) and the Shepard sum of the fluid velocity.
template <int D>
struct GhostSums {
    CorrectedSums<D> density;
    Vec<D> velocity{}; ///< Σ V W v_j (m/s), over density.a[0][0] the Shepard velocity
};

/// Accumulates GhostSums over the fluid neighbours of a ghost node x_g. The query calls it with
/// rij = x_g − x_j and r2 = |rij|² for r < R (neighbours/query.h). ParticlesT offers motion(j).
template <int D, class KernelT, class ParticlesT>
struct GhostNodeVisitor {
    ParticlesT particles;
    KernelT kernel;
    float mass; ///< m_j (kg), the same for every particle
    GhostSums<D> sums{};

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>& rij, float r2) {
        add(rij, r2, particles.motion(j));
    }
    /// One neighbour j, its motion m already loaded (a reader of neighbour lists has it): the
    /// sums take fluid particles only.
    SLUICE_HD SLUICE_INLINE void add(const Vec<D>& rij, float r2, const NeighbourMotion<D>& m) {
        if (!m.fluid)
            return;
        const float r = sqrtf(r2);
        const float volume = mass / m.density;
        const float vw = volume * kernel.value(r);
        sums.density.add(rij, vw, volume * kernel.grad_factor(r), m.density);
        sums.velocity = sums.velocity + vw * m.velocity;
    }
};

/// What mDBC gives a wall particle.
template <int D>
struct WallState {
    float density;   ///< kg/m³, ≥ ρ0
    Vec<D> velocity; ///< m/s, as the pair terms see the wall particle
};

/// The wall particle's density and velocity from its ghost node's sums (file comment).
/// `to_ghost` = x_g − x_b (m, nonzero); `wall_velocity` v_w (m/s) and `wall_acceleration` a_w
/// (m/s²) of the wall at the particle (0 for a fixed wall); c: ρ0, the Tait constants and |g|
/// (along −(component D−1)).
template <int D>
SLUICE_HD SLUICE_INLINE WallState<D>
mdbc_wall_state(const GhostSums<D>& s, const Vec<D>& to_ghost, const Vec<D>& wall_velocity,
                const Vec<D>& wall_acceleration, const FluidConstants& c, WallSlip slip) {
    WallState<D> out{c.rho0, wall_velocity};
    const float shepard = s.density.a[0][0];
    if (!(shepard > 0.0f))
        return out; // no fluid in reach of the ghost node
    double x[D + 1];
    corrected_value(s.density, x); // first order, or Shepard's: the density at the node
    // p_b = p_g + ρ0 (g − a_w)·(x_b − x_g) (Adami et al. 2012 eq. 27), g = −|g| e_z:
    // ρ0 |g| (z_g − z_b) + ρ0 a_w·(x_g − x_b)
    const float p_wall = tait_pressure(c, static_cast<float>(x[0])) +
                         c.rho0 * (c.gravity * to_ghost[D - 1] + dot(wall_acceleration, to_ghost));
    out.density = p_wall > 0.0f ? tait_density(c, p_wall) : c.rho0;
    out.density = fmaxf(out.density, c.rho0);
    const Vec<D> v_ghost = (1.0f / shepard) * s.velocity;
    if (slip == WallSlip::no_slip) {
        out.velocity = 2.0f * wall_velocity - v_ghost;
    } else {
        const Vec<D> n = (1.0f / sqrtf(norm2(to_ghost))) * to_ghost;
        out.velocity = v_ghost - (2.0f * dot(v_ghost - wall_velocity, n)) * n;
    }
    return out;
}

/// The wall state of particle b with ghost offset `to_ghost` (its object's rotation applied)
/// from one neighbour query; the wall's velocity and acceleration at b as mdbc_wall_state's.
template <class QueryT, class ViewT, class KernelT, class ParticlesT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE WallState<D>
mdbc_particle(const ViewT& view, const ParticlesT& particles, const KernelT& kernel,
              const FluidConstants& c, const Vec<D>& position, const Vec<D>& to_ghost,
              WallSlip slip, const Vec<D>& wall_velocity = Vec<D>{},
              const Vec<D>& wall_acceleration = Vec<D>{}) {
    GhostNodeVisitor<D, KernelT, ParticlesT> visitor{particles, kernel, c.mass};
    for_each_neighbour<QueryT>(view, position + to_ghost, visitor);
    return mdbc_wall_state(visitor.sums, to_ghost, wall_velocity, wall_acceleration, c, slip);
}

} // namespace sluice
