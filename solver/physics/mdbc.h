#pragma once
/// \file mdbc.h
/// Modified dynamic boundary conditions (mDBC; English, Domínguez, Vacondio, Crespo, Stansby,
/// Lind, Chiapponi, Gómez-Gesteira, Comp. Part. Mech. 9 (2022) 1–15, doi
/// 10.1007/s40571-021-00403-3) as host/device code both backends run.
///
/// Every wall particle b has a ghost node x_g = x_b + g_b, its mirror through the wall surface
/// into the fluid (case/wall_normals.h gives g_b from the geometry). Its density is the
/// first-order-corrected SPH interpolation of the fluid at x_g (Liu & Liu 2006, Appl. Numer.
/// Math. 56, 19–36, eqs. 20–22; English et al. 2022 eqs. 8–10): with V_j = m_j/ρ_j and
/// r_jg = x_j − x_g over the fluid neighbours j of x_g,
///
///   | Σ V W       Σ V W r_jg^T      | | ρ_g  |   | Σ m W  |
///   | Σ V ∇W      Σ V ∇W ⊗ r_jg     | | ∇ρ_g | = | Σ m ∇W |,   ∇W = ∇_g W(x_g − x_j),
///
/// exact for a linear density field, and is extrapolated back: ρ_b = ρ_g + (x_b − x_g)·∇ρ_g
/// (English et al. 2022 eq. 11). Where the matrix is ill-conditioned, |det A| < 10⁻³ (A is
/// dimensionless in the first column and row scaling above; the threshold is DualSPHysics's
/// `determlimit` for mDBC's first order), the Shepard value ρ_g = Σ m W / Σ V W is taken
/// instead (zeroth order, no extrapolation); with no fluid within the kernel support of x_g,
/// ρ_b = ρ0. The result is held at ≥ ρ0 (as DBC walls, integrators.h: a wall never pulls the
/// fluid in; DualSPHysics clamps its wall densities the same way).
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
#include "physics/physics.h"

#include <cstdint>

namespace sluice {

enum class WallSlip : std::uint8_t { no_slip, free_slip };

/// |det A| below which the corrected interpolation falls back to Shepard's (dimensionless).
constexpr float mdbc_determinant_limit = 1e-3f;

/// The sums of the corrected interpolation at one ghost node (file comment). Row/column 0 is
/// the value, 1…D the gradient's components.
template <int D>
struct GhostSums {
    float a[D + 1][D + 1] = {}; ///< A (first row: Σ V W, Σ V W r_jg; then Σ V ∇W, Σ V ∇W ⊗ r_jg)
    float b[D + 1] = {};        ///< right-hand side: Σ m W, Σ m ∇W (kg/m³, kg/m⁴)
    Vec<D> velocity{};          ///< Σ V W v_j (m/s), over a[0][0] the Shepard velocity
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
        const NeighbourMotion<D> m = particles.motion(j);
        if (!m.fluid)
            return;
        const float r = sqrtf(r2);
        const float w = kernel.value(r);
        const float fac = kernel.grad_factor(r); // ∇_g W = rij·fac
        const float volume = mass / m.density;
        const float vw = volume * w;
        // r_jg = x_j − x_g = −rij
        sums.a[0][0] += vw;
        sums.b[0] += mass * w;
        sums.velocity = sums.velocity + vw * m.velocity;
        for (int k = 0; k < D; ++k) {
            const float vgrad = volume * fac * rij[k];
            sums.a[0][k + 1] -= vw * rij[k];
            sums.a[k + 1][0] += vgrad;
            sums.b[k + 1] += mass * fac * rij[k];
            for (int l = 0; l < D; ++l)
                sums.a[k + 1][l + 1] -= vgrad * rij[l];
        }
    }
};

/// Solves the (N × N) system a·x = b in double by Gaussian elimination with partial pivoting;
/// returns det(a) (0 when singular, x then unspecified).
template <int N>
SLUICE_HD SLUICE_INLINE double solve_small(const float (&a_in)[N][N], const float (&b_in)[N],
                                           double (&x)[N]) {
    double a[N][N], b[N];
    for (int r = 0; r < N; ++r) {
        b[r] = b_in[r];
        for (int c = 0; c < N; ++c)
            a[r][c] = a_in[r][c];
    }
    double det = 1.0;
    for (int k = 0; k < N; ++k) {
        int pivot = k;
        for (int r = k + 1; r < N; ++r)
            if (fabs(a[r][k]) > fabs(a[pivot][k]))
                pivot = r;
        if (a[pivot][k] == 0.0)
            return 0.0;
        if (pivot != k) {
            det = -det;
            for (int c = 0; c < N; ++c) {
                const double t = a[k][c];
                a[k][c] = a[pivot][c];
                a[pivot][c] = t;
            }
            const double t = b[k];
            b[k] = b[pivot];
            b[pivot] = t;
        }
        det *= a[k][k];
        for (int r = k + 1; r < N; ++r) {
            const double f = a[r][k] / a[k][k];
            for (int c = k; c < N; ++c)
                a[r][c] -= f * a[k][c];
            b[r] -= f * b[k];
        }
    }
    for (int r = N - 1; r >= 0; --r) {
        double s = b[r];
        for (int c = r + 1; c < N; ++c)
            s -= a[r][c] * x[c];
        x[r] = s / a[r][r];
    }
    return det;
}

/// What mDBC gives a wall particle.
template <int D>
struct WallState {
    float density;   ///< kg/m³, ≥ ρ0
    Vec<D> velocity; ///< m/s, as the pair terms see the wall particle
};

/// The wall particle's density and velocity from its ghost node's sums (file comment).
/// `to_ghost` = x_g − x_b (m, nonzero); `wall_velocity` v_w (m/s).
template <int D>
SLUICE_HD SLUICE_INLINE WallState<D> mdbc_wall_state(const GhostSums<D>& s, const Vec<D>& to_ghost,
                                                     const Vec<D>& wall_velocity, float rho0,
                                                     WallSlip slip) {
    WallState<D> out{rho0, wall_velocity};
    const float shepard = s.a[0][0];
    if (!(shepard > 0.0f))
        return out; // no fluid in reach of the ghost node
    double x[D + 1];
    const double det = solve_small<D + 1>(s.a, s.b, x);
    float rho = 0.0f;
    if (fabs(det) >= mdbc_determinant_limit && fabs(x[0]) < 1e30) { // NaN fails too
        double extrapolated = x[0];                                 // ρ_g + (x_b − x_g)·∇ρ_g
        for (int k = 0; k < D; ++k)
            extrapolated -= static_cast<double>(to_ghost[k]) * x[k + 1];
        rho = static_cast<float>(extrapolated);
    } else {
        rho = s.b[0] / shepard;
    }
    out.density = fmaxf(rho, rho0);
    const Vec<D> v_ghost = (1.0f / shepard) * s.velocity;
    if (slip == WallSlip::no_slip) {
        out.velocity = 2.0f * wall_velocity - v_ghost;
    } else {
        const Vec<D> n = (1.0f / sqrtf(norm2(to_ghost))) * to_ghost;
        out.velocity = v_ghost - (2.0f * dot(v_ghost - wall_velocity, n)) * n;
    }
    return out;
}

/// The wall state of particle b with ghost offset `to_ghost` from one neighbour query.
template <class QueryT, class ViewT, class KernelT, class ParticlesT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE WallState<D> mdbc_particle(const ViewT& view, const ParticlesT& particles,
                                                   const KernelT& kernel, const FluidConstants& c,
                                                   const Vec<D>& position, const Vec<D>& to_ghost,
                                                   WallSlip slip) {
    GhostNodeVisitor<D, KernelT, ParticlesT> visitor{particles, kernel, c.mass};
    for_each_neighbour<QueryT>(view, position + to_ghost, visitor);
    return mdbc_wall_state(visitor.sums, to_ghost, Vec<D>{}, c.rho0, slip);
}

} // namespace sluice
