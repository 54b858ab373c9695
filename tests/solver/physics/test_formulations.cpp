// The Riemann pair terms (physics/riemann.h) and δ-SPH's diffusion (physics/delta_sph.h) on small
// hand-made particle sets, against what each paper's construction guarantees: the limiter's
// three regimes, the wall's mirrored state, exactness of the renormalised gradient for a linear
// field on a truncated support, and a still hydrostatic column (the analytical state every
// formulation must keep). Momentum conservation and Antuono's column: test_physics.cpp, beside
// the classical terms'.

#include "physics/cloud.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace sluice;
using test::Cloud;
using test::water;

namespace {

constexpr float g = 9.81f;

FluidConstants riemann_water(double c0, double h, double dp) {
    FluidConstants c = water(c0, h, dp, DensityDiffusion::none);
    c.formulation = Formulation::riemann_zhang2017;
    c.alpha = 0.0f;
    return c;
}

/// p* = p̄ + ½ρ0·min(η·max(ΔU, 0), c0)·ΔU: the mean in expansion, a quadratic (η ΔU²ρ0/2) for
/// slow compression, the acoustic ½ρ0c0ΔU from ΔU = c0/η on.
TEST(Formulations, RiemannLimiterRegimes) {
    const float rho0 = 1000.0f, c0 = 30.0f, eta = 3.0f, p_i = 2000.0f, p_j = 1000.0f;
    const float mean = 1500.0f;
    EXPECT_FLOAT_EQ(riemann_star_pressure(p_i, p_j, -0.5f, rho0, c0, eta), mean);
    EXPECT_FLOAT_EQ(riemann_star_pressure(p_i, p_j, 0.0f, rho0, c0, eta), mean);
    const float slow = 0.5f * c0 / eta;
    EXPECT_FLOAT_EQ(riemann_star_pressure(p_i, p_j, slow, rho0, c0, eta),
                    mean + 0.5f * rho0 * eta * slow * slow);
    for (float fast : {c0 / eta, 2.0f * c0})
        EXPECT_FLOAT_EQ(riemann_star_pressure(p_i, p_j, fast, rho0, c0, eta),
                        mean + 0.5f * rho0 * c0 * fast);
    // ΔU from v_ij·r_ij: a closing pair (v_ij·r_ij < 0) has ΔU > 0.
    EXPECT_FLOAT_EQ(riemann_velocity_jump(-0.02f, 1.0f / 0.01f), 2.0f);
}

/// A fluid particle closing at u on a fixed mDBC wall particle, whose velocity mDBC set to the
/// fluid's mirrored in the wall (−u, the free-slip state, mdbc.h), sees the Riemann problem of
/// two fluid particles closing at u each: the same pressure term. Its continuity sees the
/// wall's own velocity (0), so it compresses at half the rate of that pair's velocity term.
TEST(Formulations, RiemannWallIsTheMirroredState) {
    const double dp = 0.01, h = std::sqrt(2.0) * dp, u = 0.8;
    FluidConstants c = riemann_water(30.0, h, dp);
    c.gravity = 0.0f;
    c.wall_continuity = false; // mDBC
    const WendlandC2<2> kernel(h);
    const float rho = 1003.0f;
    Derivatives<2> of_fluid_i[2];
    for (int wall = 0; wall < 2; ++wall) {
        Cloud cloud;
        cloud.add(0.5f, 0.5f, rho, static_cast<float>(u), 0.0f);
        cloud.add(0.5f + static_cast<float>(dp), 0.5f, rho, static_cast<float>(-u), 0.0f,
                  wall ? ParticleType::boundary : ParticleType::fluid);
        const std::vector<Derivatives<2>> d = cloud.derivatives(kernel, c);
        for (std::size_t k = 0; k < 2; ++k)
            if (cloud.velocity[k][0] > 0.0f)
                of_fluid_i[wall] = d[k];
    }
    EXPECT_LT(of_fluid_i[0].acceleration[0], 0.0f); // pushed back
    EXPECT_FLOAT_EQ(of_fluid_i[1].acceleration[0], of_fluid_i[0].acceleration[0]);
    EXPECT_GT(of_fluid_i[1].density_rate, 0.0f); // compressed
    EXPECT_NEAR(of_fluid_i[1].density_rate, 0.5f * of_fluid_i[0].density_rate,
                1e-5f * of_fluid_i[0].density_rate);
}

/// A still column with hydrostatic densities (no walls): with the Riemann terms the density
/// rates vanish (the pressure jump's hydrostatic part is taken off, riemann.h) as Fourtakas's
/// do, and inside the column (a full kernel support) the pressure term holds gravity up.
TEST(Formulations, RiemannKeepsAHydrostaticColumnStill) {
    using Column = test::HydrostaticColumn;
    const double dp = Column::dp;
    const float molteni = Column::worst_density_rate(
        water(Column::c0(), Column::h(), dp, DensityDiffusion::molteni2009));
    const FluidConstants c = riemann_water(Column::c0(), Column::h(), dp);
    Cloud cloud;
    Column::fill(cloud, c);
    const std::vector<Derivatives<2>> d = cloud.derivatives(WendlandC2<2>(Column::h()), c);
    float worst_rate = 0.0f, worst_interior = 0.0f;
    for (std::size_t k = 0; k < d.size(); ++k) {
        worst_rate = std::max(worst_rate, std::fabs(d[k].density_rate));
        const float x = cloud.position[k][0], z = cloud.position[k][1];
        if (x > 4 * dp && x < 16 * dp && z > 4 * dp && z < 16 * dp) // a full kernel support
            worst_interior = std::max(worst_interior, std::sqrt(norm2(d[k].acceleration)));
    }
    EXPECT_GT(molteni, 1.0f); // Molteni's drift at the truncated rows (kg/m³/s)
    EXPECT_LT(worst_rate, 0.03f * molteni);
    // −∇p/ρ + g: zero up to the lattice's kernel-sum error (1 % of g measured).
    EXPECT_LT(worst_interior, 0.03f * g);
}

/// ⟨∇ρ⟩^L = L Σ (ρ_j − ρ_i)∇W V_j is exact for a linear field wherever L exists, also on a
/// support cut by a corner of the fluid (Randles & Libersky 1996).
TEST(Formulations, RenormalisedGradientIsExactForALinearField) {
    const double dp = 0.01, h = std::sqrt(2.0) * dp;
    const WendlandC2<2> kernel(h);
    FluidConstants c = water(30.0, h, dp, DensityDiffusion::antuono2010);
    Cloud cloud;
    const float a = 30.0f, b = -45.0f; // kg/m⁴
    for (int iz = 0; iz < 12; ++iz)
        for (int ix = 0; ix < 12; ++ix) {
            const float x = static_cast<float>((ix + 0.5) * dp),
                        z = static_cast<float>((iz + 0.5) * dp);
            cloud.add(x, z, 1000.0f + a * x + b * z);
        }
    cloud.derivatives(kernel, c);
    ASSERT_EQ(cloud.gradient.size(), cloud.position.size());
    for (std::size_t k = 0; k < cloud.gradient.size(); ++k) {
        EXPECT_NEAR(cloud.gradient[k][0], a, 2e-3f * std::fabs(b)) << "particle " << k;
        EXPECT_NEAR(cloud.gradient[k][1], b, 2e-3f * std::fabs(b)) << "particle " << k;
    }
}

/// Antuono's term vanishes on a linear density field right up to the free surface (Antuono et
/// al. 2010; test_physics.cpp's hydrostatic column), and it still diffuses what is not linear:
/// a density bump at rest flattens (the peak's rate is negative, as Molteni's).
TEST(Formulations, AntuonoDiffusionFlattensABump) {
    const double dp = 0.01, h = std::sqrt(2.0) * dp;
    const WendlandC2<2> kernel(h);
    FluidConstants c = water(30.0, h, dp, DensityDiffusion::antuono2010);
    c.gravity = 0.0f;
    Cloud cloud;
    for (int iz = 0; iz < 15; ++iz)
        for (int ix = 0; ix < 15; ++ix) {
            const float dx = static_cast<float>(ix - 7), dz = static_cast<float>(iz - 7);
            cloud.add(static_cast<float>(ix * dp), static_cast<float>(iz * dp),
                      1000.0f + 5.0f * std::exp(-(dx * dx + dz * dz) / 8.0f));
        }
    const std::vector<Derivatives<2>> d = cloud.derivatives(kernel, c);
    for (std::size_t k = 0; k < d.size(); ++k)
        if (cloud.density[k] > 1004.9f) // the peak
            EXPECT_LT(d[k].density_rate, -1.0f);
}

} // namespace
