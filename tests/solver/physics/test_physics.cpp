// Physics functors on small hand-made particle sets: EOS, density diffusion, momentum
// conservation of the pair forces, time-step limits.

#include "case/constants.h"
#include "neighbours/cpu_builder.h"
#include "physics/cloud.h"
#include "physics/integrators.h"
#include "physics/physics.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace sluice;
using test::Cloud;
using test::water;

namespace {

TEST(Physics, TaitEquationAndItsInverse) {
    const FluidConstants c = water(40.0, 0.02, 0.01, DensityDiffusion::none);
    EXPECT_FLOAT_EQ(tait_pressure(c, 1000.0f), 0.0f);
    for (float p : {-1000.0f, 0.0f, 4905.0f, 19620.0f, 1e5f})
        EXPECT_NEAR(tait_pressure(c, tait_density(c, p)), p, 1e-5f * c.b);
    // dp/dρ = c0² at ρ0 (B·γ/ρ0).
    const float drho = 1.0f;
    EXPECT_NEAR((tait_pressure(c, 1000.0f + drho) - tait_pressure(c, 1000.0f - drho)) / (2 * drho),
                40.0f * 40.0f, 1.0f);
}

TEST(Physics, DensityDiffusionFlowsFromDenseToLight) {
    const FluidConstants c = water(40.0, 0.02, 0.01, DensityDiffusion::molteni2009);
    const WendlandC2<2> kernel(0.02);
    const float r = 0.015f, fac = kernel.grad_factor(r), inv_rr2 = 1.0f / (r * r + c.eta2);
    // Neighbour denser → density of i grows; lighter → shrinks; equal → nothing.
    EXPECT_GT(density_diffusion_molteni2009(c, 2.0f, fac, r * r, inv_rr2, 1002.0f), 0.0f);
    EXPECT_LT(density_diffusion_molteni2009(c, -2.0f, fac, r * r, inv_rr2, 998.0f), 0.0f);
    EXPECT_EQ(density_diffusion_molteni2009(c, 0.0f, fac, r * r, inv_rr2, 1000.0f), 0.0f);
}

/// A still column of fluid with hydrostatic densities and no walls. Molteni–Colagrossi
/// diffusion changes the density where the kernel is truncated (the bottom row sees only
/// lighter fluid above it) — the drift Fourtakas et al. (2019) remove by taking the hydrostatic
/// difference off, and Antuono et al. (2010) by the renormalised gradients (physics/delta_sph.h:
/// their term vanishes on a linear field up to the free surface); with either the density rates
/// all but vanish.
TEST(Physics, FourtakasAndAntuonoDiffusionsKeepAHydrostaticColumnStill) {
    using Column = test::HydrostaticColumn;
    const auto worst = [](DensityDiffusion d) {
        return Column::worst_density_rate(water(Column::c0(), Column::h(), Column::dp, d));
    };
    const float molteni = worst(DensityDiffusion::molteni2009);
    // Molteni: the bottom row loses density at a visible rate (kg/m³/s).
    EXPECT_GT(molteni, 1.0f);
    for (DensityDiffusion d : {DensityDiffusion::fourtakas2019, DensityDiffusion::antuono2010})
        EXPECT_LT(worst(d), 0.03f * molteni) << static_cast<int>(d);
}

/// Symmetric pressure gradient and both viscosities are antisymmetric in i, j (Monaghan 1992,
/// 2005), and so are the Riemann terms (riemann.h: p* is symmetric in i and j, the term
/// −2m p*/(ρ_iρ_j)∇_iW): without gravity the total momentum change vanishes.
TEST(Physics, PairForcesConserveMomentum) {
    const double dp = 0.01, h = std::sqrt(2.0) * dp;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> jitter(-0.2f, 0.2f), speed(-1.0f, 1.0f),
        rho(990.0f, 1020.0f);
    for (int variant = 0; variant < 3; ++variant) {
        FluidConstants c = water(30.0, h, dp, DensityDiffusion::molteni2009);
        c.gravity = 0.0f;
        c.viscosity = variant == 1 ? ViscosityModel::laminar_lo_shao2002
                                   : ViscosityModel::artificial_monaghan1992;
        c.alpha = 0.1f;
        c.nu = 1e-3f;
        if (variant == 2)
            c.formulation = Formulation::riemann_zhang2017;
        Cloud cloud;
        for (int iz = 0; iz < 15; ++iz)
            for (int ix = 0; ix < 15; ++ix)
                cloud.add(static_cast<float>((ix + 0.5 + jitter(rng)) * dp),
                          static_cast<float>((iz + 0.5 + jitter(rng)) * dp), rho(rng), speed(rng),
                          speed(rng));
        double total[2] = {0, 0}, magnitude = 0;
        for (const Derivatives<2>& d : cloud.derivatives(CubicSpline<2>(h), c)) {
            total[0] += d.acceleration[0];
            total[1] += d.acceleration[1];
            magnitude += std::sqrt(norm2(d.acceleration));
        }
        EXPECT_GT(magnitude, 0.0) << "variant " << variant;
        EXPECT_LT(std::fabs(total[0]), 1e-5 * magnitude) << "variant " << variant;
        EXPECT_LT(std::fabs(total[1]), 1e-5 * magnitude) << "variant " << variant;
    }
}

TEST(Physics, TimeStepLimits) {
    FluidConstants c = water(40.0, 0.02, 0.01, DensityDiffusion::none);
    const double h = c.h; // float
    // Acoustic limit: CFL·h/(c0 + μ).
    EXPECT_DOUBLE_EQ(time_step(c, 0.2, 0.0, 10.0), 0.2 * h / 50.0);
    // Force limit: CFL·sqrt(h/|f|).
    EXPECT_DOUBLE_EQ(time_step(c, 0.2, 1e6, 0.0), 0.2 * std::sqrt(h / 1e6));
    // Laminar viscous limit 0.125·h²/ν where it is the smallest (ν = 1 m²/s: 5e-5 s).
    c.viscosity = ViscosityModel::laminar_lo_shao2002;
    c.nu = 1.0f;
    EXPECT_DOUBLE_EQ(time_step(c, 0.2, 0.0, 0.0), 0.125 * h * h);
    c.nu = 1e-6f; // water: the acoustic limit again
    EXPECT_DOUBLE_EQ(time_step(c, 0.2, 0.0, 0.0), 0.2 * h / 40.0);
}

TEST(Physics, DerivedConstantsOfACase) {
    Case c = test::dambreak_case(0.02);
    c.constants.coefh = 1.2;
    const DerivedConstants d = derive_constants(c, 2.0);
    EXPECT_NEAR(d.h, 1.2 * std::sqrt(2.0) * 0.02, 1e-12);
    EXPECT_NEAR(d.support, 2.0 * d.h, 1e-12);
    EXPECT_NEAR(d.speed_of_sound, 20.0 * std::sqrt(9.81 * 2.0), 1e-9);
    EXPECT_NEAR(d.b, d.speed_of_sound * d.speed_of_sound * 1000.0 / 7.0, 1e-6);
    EXPECT_NEAR(d.mass, 1000.0 * 0.02 * 0.02, 1e-12);
    EXPECT_NEAR(d.initial_dt, 0.2 * d.h / d.speed_of_sound, 1e-6 * d.initial_dt); // float h
    c.constants.speed_of_sound = 50.0;
    EXPECT_NEAR(derive_constants(c, 2.0).speed_of_sound, 50.0, 0.0);
    c.constants.speed_of_sound.reset();
    EXPECT_THROW(derive_constants(c, 0.0), std::invalid_argument);
}

} // namespace
