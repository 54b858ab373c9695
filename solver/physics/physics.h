#pragma once
/// \file physics.h
/// WCSPH physics terms as host/device code: the CPU backend loops over particles with them, the
/// CUDA backend will run the same functions from a thin kernel. Formulas follow DualSPHysics
/// (Crespo et al. 2015, CPC 187; Domínguez et al. 2022, Comp. Part. Mech. 9) unless noted.
///
/// Conventions: particle arrays are in bin order; r_ij = x_i − x_j, v_ij = v_i − v_j;
/// ∇_i W_ij = r_ij · F (kernels.h); the vertical axis is component D−1, gravity points along −it.

#include "io/snapshot.h"
#include "neighbours/query.h"
#include "neighbours/vec.h"
#include "physics/delta_sph.h"
#include "physics/kernels.h"
#include "physics/motion.h"
#include "physics/riemann.h"
#include "physics/shifting.h"

#include <cstdint>

namespace sluice {

enum class ViscosityModel : std::uint8_t { artificial_monaghan1992, laminar_lo_shao2002 };
enum class DensityDiffusion : std::uint8_t { none, molteni2009, fourtakas2019, antuono2010 };
/// The pair terms' form: the classical WCSPH terms of DualSPHysics (this file) or the
/// Riemann-based ones of Zhang, Hu & Adams (2017, riemann.h).
enum class Formulation : std::uint8_t { classical, riemann_zhang2017 };

/// Constants of the interaction, built on the host (constants.h) and passed by value.
struct FluidConstants {
    float rho0 = 1000.0f;   ///< reference density ρ0 (kg/m³)
    float inv_rho0 = 1e-3f; ///< 1/ρ0
    float gamma = 7.0f;     ///< Tait exponent γ
    float inv_gamma = 1.0f / 7.0f;
    float b = 0.0f;        ///< Tait coefficient B = c0²ρ0/γ (Pa)
    float c0 = 0.0f;       ///< speed of sound (m/s)
    float mass = 0.0f;     ///< particle mass m = ρ0·dp^D (kg), the same for all particles
    float h = 0.0f;        ///< smoothing length (m)
    float eta2 = 0.0f;     ///< η² = 0.01·h² (m²), keeps 1/(r² + η²) finite
    float gravity = 9.81f; ///< |g| (m/s²), acting along −(component D−1)
    ViscosityModel viscosity = ViscosityModel::artificial_monaghan1992;
    float alpha = 0.01f; ///< artificial viscosity α (dimensionless)
    float nu = 0.0f;     ///< laminar kinematic viscosity ν (m²/s)
    DensityDiffusion diffusion = DensityDiffusion::molteni2009;
    float ddt_coef = 0.0f;   ///< 2·δ·h·c0 (m²/s), density diffusion prefactor
    float hydro_coef = 0.0f; ///< ρ0·g/B (1/m), Fourtakas's hydrostatic density difference
    /// DBC: wall particles take the continuity sum; mDBC: they take no sums (their density
    /// comes from their ghost node, mdbc.h).
    bool wall_continuity = true;
    /// mDBC with moving walls (physics/motion.h): a fluid particle's continuity sum sees a wall
    /// neighbour at that wall's own velocity, read from its object's motion
    /// (ParticlesT::wall_velocity); DBC walls carry theirs in their velocity.
    bool moving_walls = false;
    ShiftingConstants shifting; ///< particle shifting (shifting.h), off by default
    Formulation formulation = Formulation::classical;
    float riemann_eta = riemann_limiter_default; ///< η of the Riemann limiter (riemann.h)
    float inv_rho0_c0 = 0.0f; ///< 1/(ρ0 c0) (m²·s/kg), the Riemann solver's impedance
};

/// Tait equation of state (Batchelor 1967; Monaghan 1994; Crespo et al. 2015 eq. 16):
/// \f$p = B((\rho/\rho_0)^\gamma - 1)\f$ (Pa).
SLUICE_HD SLUICE_INLINE float tait_pressure(const FluidConstants& c, float rho) {
    return c.b * (powf(rho * c.inv_rho0, c.gamma) - 1.0f);
}

/// Inverse of the Tait equation: the density at pressure p (kg/m³).
SLUICE_HD SLUICE_INLINE float tait_density(const FluidConstants& c, float p) {
    return c.rho0 * powf(1.0f + p / c.b, c.inv_gamma);
}

/// Molteni & Colagrossi (2009) density diffusion, one pair (Crespo et al. 2015 eq. 14):
/// \f$2\delta h c_0 (\rho_j - \rho_i)\, \frac{\mathbf r_{ji}\cdot\nabla_i W_{ij}}{r^2+\eta^2}
/// \frac{m_j}{\rho_j}\f$, written with r_ji·∇_iW = −r²F. Positive when j is denser: it
/// diffuses density, like an SPH Laplacian (Brookshaw 1985). inv_rr2 = 1/(r² + η²), which the
/// pair computes once for this term, μ_ij and the laminar term.
SLUICE_HD SLUICE_INLINE float density_diffusion_molteni2009(const FluidConstants& c, float drho_ji,
                                                            float fac, float r2, float inv_rr2,
                                                            float rho_j) {
    return c.ddt_coef * drho_ji * (-fac * r2 * inv_rr2) * (c.mass / rho_j);
}

/// Fourtakas et al. (2019, Comp. Fluids 190) diffuse only the dynamic part of the density: the
/// hydrostatic difference \f$\rho^H_{ji} = \rho_0[(1 + \rho_0 g (z_i - z_j)/B)^{1/\gamma} - 1]\f$
/// (Tait inverted for p = ρ0·g·(z_i − z_j)) is taken off ρ_j − ρ_i before the Molteni term.
/// dz_ij = z_i − z_j (m); inv_rr2 = 1/(r² + η²).
SLUICE_HD SLUICE_INLINE float density_diffusion_fourtakas2019(const FluidConstants& c,
                                                              float drho_ji, float dz_ij, float fac,
                                                              float r2, float inv_rr2,
                                                              float rho_j) {
    const float rho_h_ji = c.rho0 * (powf(1.0f + c.hydro_coef * dz_ij, c.inv_gamma) - 1.0f);
    return density_diffusion_molteni2009(c, drho_ji - rho_h_ji, fac, r2, inv_rr2, rho_j);
}

/// Monaghan (1992) artificial viscosity Π_ij (m⁵/(kg·s²), the same units as p/ρ²):
/// \f$\Pi_{ij} = -\alpha \bar c\, \mu_{ij} / \bar\rho_{ij}\f$ for approaching pairs
/// (v_ij·r_ij < 0), else 0; \f$\mu_{ij} = h\,\mathbf v_{ij}\cdot\mathbf r_{ij}/(r^2+\eta^2)\f$,
/// \f$\bar\rho = (\rho_i+\rho_j)/2\f$, \f$\bar c = c_0\f$ as in DualSPHysics
/// (Crespo et al. 2015 eq. 9).
SLUICE_HD SLUICE_INLINE float viscosity_monaghan1992(const FluidConstants& c, float mu_ij,
                                                     float rho_i, float rho_j) {
    return mu_ij < 0.0f ? -c.alpha * c.c0 * mu_ij / (0.5f * (rho_i + rho_j)) : 0.0f;
}

/// Lo & Shao (2002) laminar viscosity, the factor of v_ij in dv_i/dt (1/s):
/// \f$\frac{4\nu\, m_j\, \mathbf r_{ij}\cdot\nabla_i W_{ij}}{(\rho_i+\rho_j)(r^2+\eta^2)}\f$
/// (Crespo et al. 2015 eq. 10, with ν0 = ν); inv_rr2 = 1/(r² + η²).
SLUICE_HD SLUICE_INLINE float viscosity_lo_shao2002(const FluidConstants& c, float fac, float r2,
                                                    float inv_rr2, float rho_i, float rho_j) {
    return 4.0f * c.nu * c.mass * (r2 * fac * inv_rr2) / (rho_i + rho_j);
}

/// Which viscosity, density diffusion and formulation the pair terms take, and whether they sum
/// the shifting's (shifting.h): RuntimeModel reads them from FluidConstants at every pair (any
/// case); FixedModel<V, Dd, F, S> fixes them at compile time, so the other models' code leaves
/// the loop (and its registers the kernel). On the H100 the interaction pass of the default physics
/// (Monaghan viscosity, Molteni diffusion) took 8 % less time with it (solver/BENCHMARK.md); the
/// sums are the same operations in the same order. DualSPHysics templates its interaction on
/// the same choices (Domínguez et al. 2022 §3).
struct RuntimeModel {
    static constexpr bool can_shift = true; ///< shifting velocities may be summed and stored
    SLUICE_HD SLUICE_INLINE static ViscosityModel viscosity(const FluidConstants& c) {
        return c.viscosity;
    }
    SLUICE_HD SLUICE_INLINE static DensityDiffusion diffusion(const FluidConstants& c) {
        return c.diffusion;
    }
    SLUICE_HD SLUICE_INLINE static bool shifting(const FluidConstants& c) { return c.shifting.on; }
    SLUICE_HD SLUICE_INLINE static bool moving_walls(const FluidConstants& c) {
        return c.moving_walls;
    }
    SLUICE_HD SLUICE_INLINE static Formulation formulation(const FluidConstants& c) {
        return c.formulation;
    }
};

template <ViscosityModel V, DensityDiffusion Dd, Formulation F = Formulation::classical,
          bool Shifting = false>
struct FixedModel {
    static constexpr bool can_shift = Shifting;
    SLUICE_HD SLUICE_INLINE static constexpr ViscosityModel viscosity(const FluidConstants&) {
        return V;
    }
    SLUICE_HD SLUICE_INLINE static constexpr DensityDiffusion diffusion(const FluidConstants&) {
        return Dd;
    }
    SLUICE_HD SLUICE_INLINE static constexpr bool shifting(const FluidConstants&) {
        return Shifting;
    }
    SLUICE_HD SLUICE_INLINE static constexpr bool moving_walls(const FluidConstants&) {
        return false;
    }
    SLUICE_HD SLUICE_INLINE static constexpr Formulation formulation(const FluidConstants&) {
        return F;
    }
    /// Whether a case's constants are this model's (never with mDBC's moving walls).
    static bool matches(const FluidConstants& c) {
        return c.viscosity == V && c.diffusion == Dd && c.shifting.on == Shifting &&
               !c.moving_walls && c.formulation == F;
    }
};

/// DualSPHysics's default physics, and the shipped 3D cases'; with particle shifting, the pass that
/// sums it.
using MonaghanMolteniModel =
    FixedModel<ViscosityModel::artificial_monaghan1992, DensityDiffusion::molteni2009>;
using MonaghanMolteniShiftingModel =
    FixedModel<ViscosityModel::artificial_monaghan1992, DensityDiffusion::molteni2009,
               Formulation::classical, true>;
/// The load cases' physics (cases/dambreak3d.xml, lobovsky2d.xml): Zhang, Hu & Adams's Riemann
/// terms (no artificial viscosity: α = 0, no other diffusion; set_formulation), the pass that sums
/// the shifting and the one that does not.
using RiemannShiftingModel =
    FixedModel<ViscosityModel::artificial_monaghan1992, DensityDiffusion::none,
               Formulation::riemann_zhang2017, true>;
using RiemannModel = FixedModel<ViscosityModel::artificial_monaghan1992, DensityDiffusion::none,
                                Formulation::riemann_zhang2017, false>;

/// Neighbour j as the pair terms see it.
template <int D>
struct NeighbourMotion {
    Vec<D> velocity; ///< m/s
    float density;   ///< kg/m³
    bool fluid;      ///< false for boundary particles
};

/// Read-only particle arrays in bin order (device pointers on the CUDA backend).
template <int D>
struct ParticlesView {
    const Vec<D>* velocity = nullptr; ///< m/s
    const float* density = nullptr;   ///< kg/m³
    const float* pressure = nullptr;  ///< Pa, tait_pressure(density), computed before the pass
    const ParticleType* type = nullptr;
    /// mDBC with moving walls (FluidConstants::moving_walls): the ids and the walls' motion.
    const std::uint32_t* id = nullptr;
    MovingWallsView<D> walls{};
    /// diffusion antuono2010: the renormalised density gradients (delta_sph.h), else unset.
    const Vec<D>* density_gradient = nullptr;

    /// What the pair terms read of neighbour j first (the interface every particle layout
    /// offers InteractionVisitor; packed_particles.h has the GPU's).
    SLUICE_HD SLUICE_INLINE NeighbourMotion<D> motion(std::uint32_t j) const {
        return {velocity[j], density[j], type[j] == ParticleType::fluid};
    }
    /// p_j/ρ_j² (m⁵/(kg·s²)); rho_j = motion(j).density.
    SLUICE_HD SLUICE_INLINE float p_rho2(std::uint32_t j, float rho_j) const {
        return pressure[j] / (rho_j * rho_j);
    }
    /// Wall particle j's own velocity at its position x_j (m/s; moving walls only).
    SLUICE_HD SLUICE_INLINE Vec<D> wall_velocity(std::uint32_t j, const Vec<D>& x_j) const {
        return walls.wall_velocity(id[j], x_j);
    }
    /// ⟨∇ρ⟩_j^L (kg/m⁴; diffusion antuono2010 only).
    SLUICE_HD SLUICE_INLINE Vec<D> gradient(std::uint32_t j) const { return density_gradient[j]; }
};

/// What one interaction pass computes for a particle.
template <int D>
struct Derivatives {
    Vec<D> acceleration{};     ///< dv/dt (m/s²), gravity included; zero for boundary particles
    float density_rate = 0.0f; ///< dρ/dt (kg/(m³·s))
    float mu_max = 0.0f;       ///< max_j |h v_ij·r_ij/(r²+η²)| (m/s), for the time-step limit
    Vec<D> shift_velocity{};   ///< with shifting, fluid: u_s (m/s, shifting.h); else zero
};

/// The momentum pair term of particle i with neighbour j (Crespo et al. 2015 eqs. 7, 9, 10):
/// adds \f$-m_j (p_i/\rho_i^2 + p_j/\rho_j^2 + \Pi_{ij}) \nabla_i W_{ij}\f$ (+ the laminar
/// term) to `acceleration`; with the Riemann formulation the pressure and dissipation term
/// \f$-2 m_j p^*/(\rho_i\rho_j) \nabla_i W_{ij}\f$ instead (riemann.h; no artificial viscosity,
/// the laminar term as above). The interaction pass (InteractionVisitor) and the force on a body
/// (forces.h) both take it from here. ModelT as InteractionVisitor's.
template <class ModelT, int D>
SLUICE_HD SLUICE_INLINE void
add_momentum_pair(const FluidConstants& c, float p_rho2_i, float p_rho2_j, float mu_ij, float rho_i,
                  float rho_j, float fac, float r2, float inv_rr2, const Vec<D>& vij,
                  const Vec<D>& rij, Vec<D>& acceleration) {
    if (ModelT::formulation(c) == Formulation::riemann_zhang2017) {
        if (r2 > 0.0f) { // i itself: no direction, no term
            const float du = riemann_velocity_jump(dot(vij, rij), 1.0f / sqrtf(r2));
            const float p_star =
                riemann_star_pressure(p_rho2_i * rho_i * rho_i, p_rho2_j * rho_j * rho_j, du,
                                      c.rho0, c.c0, c.riemann_eta);
            acceleration -= riemann_momentum_factor(c.mass, p_star, rho_i, rho_j, fac) * rij;
        }
        if (ModelT::viscosity(c) == ViscosityModel::laminar_lo_shao2002)
            acceleration += viscosity_lo_shao2002(c, fac, r2, inv_rr2, rho_i, rho_j) * vij;
        return;
    }
    float pair = p_rho2_i + p_rho2_j;
    if (ModelT::viscosity(c) == ViscosityModel::artificial_monaghan1992)
        pair += viscosity_monaghan1992(c, mu_ij, rho_i, rho_j);
    else
        acceleration += viscosity_lo_shao2002(c, fac, r2, inv_rr2, rho_i, rho_j) * vij;
    acceleration -= (c.mass * pair * fac) * rij;
}

/// The sums over the neighbours j of one particle i (Crespo et al. 2015 eqs. 2–3, 7–14):
/// - continuity, all pairs: \f$\frac{d\rho_i}{dt} = \sum_j m_j\, \mathbf v_{ij}\cdot\nabla_i
///   W_{ij}\f$ (+ density diffusion between fluid particles only, as DualSPHysics);
/// - momentum, fluid i only: \f$\frac{d\mathbf v_i}{dt} = -\sum_j m_j (p_i/\rho_i^2 +
///   p_j/\rho_j^2 + \Pi_{ij}) \nabla_i W_{ij}\f$ (+ laminar term) — the symmetric form, so pair
///   forces cancel (Monaghan 1992, 2005). Gravity is added by interact_particle.
/// Boundary particles i (DBC, Crespo et al. 2007) take only the continuity sum, over their fluid
/// neighbours (as DualSPHysics: walls at rest add +0 with each other anyway, and two moving
/// objects' walls must not compress each other); with mDBC (c.wall_continuity false) they take
/// none (the backends skip them: their density comes from their ghost node, mdbc.h), and a
/// fluid particle's continuity sum sees a wall neighbour at the wall's own velocity (0 for a
/// fixed wall; with moving walls its object's, ModelT::moving_walls) while its viscous terms see
/// the velocity mDBC gave the wall (no-slip or free-slip).
/// With c.formulation riemann_zhang2017 a fluid particle's continuity and pressure terms are
/// the Riemann pair terms instead (riemann.h; no artificial viscosity), the diffusions and the
/// laminar term as above; boundary particles' sums do not change.
/// The visitor sees only true neighbours (r < 2h) including i itself (r = 0, adds nothing).
/// ParticlesT is the particle layout: ParticlesView<D> (CPU, arrays of each quantity) or the
/// CUDA backend's PackedParticlesView<D>; it provides motion(j) and p_rho2(j, ρ_j). ModelT:
/// RuntimeModel, or a FixedModel that matches c.
template <int D, class KernelT, class ParticlesT = ParticlesView<D>, class ModelT = RuntimeModel>
struct InteractionVisitor {
    ParticlesT particles;
    KernelT kernel;
    FluidConstants c;
    // particle i
    Vec<D> vel_i;
    float rho_i;
    float p_rho2_i; ///< p_i/ρ_i²
    bool fluid_i;
    Vec<D> pos_i{}; ///< m; read only with ModelT::moving_walls (a wall neighbour's position)
    /// ⟨∇ρ⟩_i^L (kg/m⁴), diffusion antuono2010 only (set after construction).
    Vec<D> grad_rho_i{};
    // sums
    Derivatives<D> sum{};
    ShiftingSums<D> shift{};

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>& rij, float r2) {
        visit(j, rij, r2, particles.motion(j),
              [&](float rho_j) { return particles.p_rho2(j, rho_j); });
    }

    /// The pair terms of neighbour j whose motion the caller has loaded already (the CUDA
    /// backend's list pass loads a batch of neighbours ahead); p_rho2_of(ρ_j) gives p_j/ρ_j²
    /// (called only where the momentum term needs it).
    template <class PRho2T>
    SLUICE_HD SLUICE_INLINE void visit(std::uint32_t j, const Vec<D>& rij, float r2,
                                       const NeighbourMotion<D>& mj, const PRho2T& p_rho2_of) {
        if (!fluid_i && !mj.fluid) // wall with wall: nothing (the class comment)
            return;
        const float fac = kernel.grad_factor(sqrtf(r2));
        const Vec<D> vij = vel_i - mj.velocity;
        const float vr = dot(vij, rij);
        const float inv_rr2 = 1.0f / (r2 + c.eta2); // one division for every term below
        const float mu_ij = c.h * vr * inv_rr2;
        sum.mu_max = fmaxf(sum.mu_max, fabsf(mu_ij));
        // Continuity: m_j v_ij·∇W = m_j (v_ij·r_ij) F. An mDBC wall's stored velocity is the
        // viscous terms' (mdbc.h); continuity sees the wall's own: 0 for a fixed wall, its
        // object's for a moving one.
        const float vr_continuity =
            (!c.wall_continuity && !mj.fluid)
                ? (ModelT::moving_walls(c)
                       ? dot(vel_i - particles.wall_velocity(j, pos_i - rij), rij)
                       : dot(vel_i, rij))
                : vr;
        const bool riemann = ModelT::formulation(c) == Formulation::riemann_zhang2017;
        if (!fluid_i || !riemann)
            sum.density_rate += c.mass * vr_continuity * fac;
        if (!fluid_i)
            return;

        const float rho_j = mj.density;
        if (ModelT::shifting(c))
            shift.add(rij, r2, fac, c.mass / rho_j);
        const DensityDiffusion diffusion = ModelT::diffusion(c);
        if (diffusion != DensityDiffusion::none && mj.fluid) {
            const float drho_ji = rho_j - rho_i;
            if (diffusion == DensityDiffusion::fourtakas2019) {
                sum.density_rate += density_diffusion_fourtakas2019(c, drho_ji, rij[D - 1], fac, r2,
                                                                    inv_rr2, rho_j);
            } else {
                const float molteni =
                    density_diffusion_molteni2009(c, drho_ji, fac, r2, inv_rr2, rho_j);
                sum.density_rate += diffusion == DensityDiffusion::molteni2009
                                        ? molteni
                                        : density_diffusion_antuono2010<D>(
                                              molteni, c.ddt_coef, grad_rho_i,
                                              particles.gradient(j), rij, fac, c.mass / rho_j);
            }
        }

        const float p_rho2_j = p_rho2_of(rho_j);
        if (riemann)
            add_riemann_continuity(rij, r2, fac, vr_continuity, rho_j, p_rho2_j);
        add_momentum_pair<ModelT>(c, p_rho2_i, p_rho2_j, mu_ij, rho_i, rho_j, fac, r2, inv_rr2, vij,
                                  rij, sum.acceleration);
    }

    /// The Riemann continuity term of fluid particle i (riemann.h; its momentum term is
    /// add_momentum_pair's): vr_continuity = (v_i − v_j)·r_ij with a wall's own velocity, as
    /// the classical continuity (the class comment).
    SLUICE_HD SLUICE_INLINE void add_riemann_continuity(const Vec<D>& rij, float r2, float fac,
                                                        float vr_continuity, float rho_j,
                                                        float p_rho2_j) {
        if (r2 == 0.0f) // i itself: no direction, no term
            return;
        const float r = sqrtf(r2);
        const float p_i = p_rho2_i * rho_i * rho_i;
        const float p_j = p_rho2_j * rho_j * rho_j;
        // p_i − p_j less its hydrostatic part ρ0 g (z_j − z_i), z_i − z_j = rij[D−1]
        const float dp_dynamic = p_i - p_j + c.rho0 * c.gravity * rij[D - 1];
        sum.density_rate += riemann_density_rate(rho_i, c.mass / rho_j,
                                                 riemann_velocity_jump(vr_continuity, 1.0f / r),
                                                 dp_dynamic, c.inv_rho0_c0, r, fac);
    }

    /// The derivatives once every neighbour has been visited: the sums plus gravity on fluid.
    SLUICE_HD SLUICE_INLINE Derivatives<D> result() const {
        Derivatives<D> d = sum;
        if (fluid_i) {
            d.acceleration[D - 1] -= c.gravity;
            if (ModelT::shifting(c))
                d.shift_velocity = shifting_velocity(c.shifting, c.h, vel_i, shift);
        }
        return d;
    }
};

/// All derivatives of particle i (the view's index: bin order, or the input order of an index
/// layout) from one neighbour query.
template <class QueryT, class ViewT, class KernelT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE Derivatives<D>
interact_particle(const ViewT& view, const ParticlesView<D>& particles, const KernelT& kernel,
                  const FluidConstants& c, std::uint32_t i) {
    const float rho_i = particles.density[i];
    InteractionVisitor<D, KernelT> visitor{particles,
                                           kernel,
                                           c,
                                           particles.velocity[i],
                                           rho_i,
                                           particles.pressure[i] / (rho_i * rho_i),
                                           particles.type[i] == ParticleType::fluid,
                                           view.positions[i]};
    if (c.diffusion == DensityDiffusion::antuono2010)
        visitor.grad_rho_i = particles.density_gradient[i];
    for_each_neighbour<QueryT>(view, view.positions[i], visitor);
    return visitor.result();
}

} // namespace sluice
