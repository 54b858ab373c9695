// Particle shifting (physics/shifting.h) through the interaction pass's visitor (physics.h) on
// lattices where the answer is known: inside a regular lattice the concentration is even and
// nothing moves; a particle pushed off its site is shifted back; a fluid at rest is never
// shifted; the free surface's particles are not shifted outwards; wall particles count in the
// concentration, so fluid beside a wall is not pushed into it; the integrators apply dt·u_s.

#include "physics/integrators.h"
#include "physics/kernels.h"
#include "physics/physics.h"
#include "support/fluid_constants.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace sluice {
namespace {

constexpr float dp = 0.01f;
constexpr float rho0 = 1000.0f;

/// A 2D lattice (i + ½)dp, (k + ½)dp, 0 ≤ i < nx, 0 ≤ k < nz, at rest at ρ0; rows below
/// `wall_rows` are boundary particles.
struct Lattice {
    std::vector<Vec<2>> position, velocity;
    std::vector<float> density, pressure;
    std::vector<ParticleType> type;

    Lattice(int nx, int nz, int wall_rows = 0) {
        for (int k = 0; k < nz; ++k)
            for (int i = 0; i < nx; ++i) {
                position.push_back({(i + 0.5f) * dp, (k + 0.5f) * dp});
                velocity.push_back({});
                density.push_back(rho0);
                pressure.push_back(0.0f);
                type.push_back(k < wall_rows ? ParticleType::boundary : ParticleType::fluid);
            }
    }
};

/// Water with shifting on (2D: the free surface below ∇·r = 1.5, the interior at 2).
FluidConstants shifting_constants() {
    FluidConstants c = test::water_constants(dp);
    c.shifting.on = true;
    c.shifting.coef = 2.0f;
    c.shifting.surface_threshold = 1.5f;
    c.shifting.interior_divergence = 2.0f;
    return c;
}

/// The derivatives of particle i (with its velocity v), by brute force over the lattice.
Derivatives<2> derivatives_of(const Lattice& l, std::uint32_t i, const Vec<2>& v,
                              ShiftingSums<2>* sums_out = nullptr) {
    const float h = std::sqrt(2.0f) * dp;
    const WendlandC2<2> kernel(h);
    const FluidConstants c = shifting_constants();
    const ParticlesView<2> view{l.velocity.data(), l.density.data(), l.pressure.data(),
                                l.type.data()};
    InteractionVisitor<2, WendlandC2<2>> visitor{
        view, kernel, c, v, l.density[i], 0.0f, l.type[i] == ParticleType::fluid};
    const float radius = 2.0f * h;
    for (std::uint32_t j = 0; j < l.position.size(); ++j) {
        const Vec<2> rij = l.position[i] - l.position[j];
        const float r2 = norm2(rij);
        if (r2 < radius * radius)
            visitor(j, rij, r2);
    }
    if (sums_out)
        *sums_out = visitor.shift;
    return visitor.result();
}

/// The shift's scale A·h·|v| ∇C with |∇C| ~ 1/dp (m/s): the yardstick of "small".
float scale(float speed) {
    return 2.0f * std::sqrt(2.0f) * dp * speed / dp;
}

TEST(Shifting, InsideARegularLatticeNothingMoves) {
    const Lattice l(21, 21);
    const std::uint32_t centre = 10 * 21 + 10;
    ShiftingSums<2> sums;
    const Derivatives<2> d = derivatives_of(l, centre, {1.0f, 0.0f}, &sums);
    // ∇·r = −Σ V r·∇W, the lattice's second moment of the kernel gradient: D up to the
    // quadrature error of a lattice (about 1 % for Wendland at h = √2 dp).
    EXPECT_NEAR(sums.position_divergence, 2.0f, 0.03f);
    EXPECT_LT(std::sqrt(norm2(d.shift_velocity)), 1e-4f * scale(1.0f));
}

TEST(Shifting, AParticleOffItsSiteIsShiftedBack) {
    Lattice l(21, 21);
    const std::uint32_t centre = 10 * 21 + 10;
    l.position[centre][0] += 0.2f * dp; // crowding its right neighbour
    const Derivatives<2> d = derivatives_of(l, centre, {0.0f, 1.0f});
    EXPECT_LT(d.shift_velocity[0], -0.01f * scale(1.0f)) << "back to the left";
    EXPECT_LT(std::fabs(d.shift_velocity[1]), 1e-3f * scale(1.0f)) << "symmetric in z";
}

TEST(Shifting, AFluidAtRestIsNotShifted) {
    Lattice l(21, 21);
    const std::uint32_t centre = 10 * 21 + 10;
    l.position[centre][0] += 0.2f * dp;
    const Derivatives<2> d = derivatives_of(l, centre, {0.0f, 0.0f});
    EXPECT_EQ(d.shift_velocity[0], 0.0f);
    EXPECT_EQ(d.shift_velocity[1], 0.0f);
}

TEST(Shifting, TheFreeSurfaceIsNotPushedOutwards) {
    const int n = 21;
    const Lattice l(n, n); // nothing above the top row: a free surface
    auto at_row = [&](int k) { return static_cast<std::uint32_t>(k * n + n / 2); };
    ShiftingSums<2> top_sums, deep_sums;
    const Derivatives<2> top = derivatives_of(l, at_row(n - 1), {1.0f, 0.0f}, &top_sums);
    EXPECT_LT(top_sums.position_divergence, 1.5f) << "the surface is detected";
    EXPECT_EQ(top.shift_velocity[1], 0.0f) << "no shift at the surface";
    // Deeper than the kernel's reach: ∇·r is the interior's, the full (zero) shift.
    const Derivatives<2> deep = derivatives_of(l, at_row(n - 4), {1.0f, 0.0f}, &deep_sums);
    EXPECT_NEAR(deep_sums.position_divergence, 2.0f, 0.03f);
    EXPECT_LT(std::sqrt(norm2(deep.shift_velocity)), 1e-4f * scale(1.0f));
    // In between the shift is scaled down: the row below the surface moves up (towards the
    // thinner side) by less than its unscaled shift.
    ShiftingSums<2> below_sums;
    const Derivatives<2> below = derivatives_of(l, at_row(n - 2), {1.0f, 0.0f}, &below_sums);
    const float unscaled = -2.0f * std::sqrt(2.0f) * dp * below_sums.concentration_gradient[1];
    EXPECT_GT(below_sums.position_divergence, 1.5f);
    EXPECT_LT(below_sums.position_divergence, 2.0f);
    EXPECT_GT(below.shift_velocity[1], 0.3f * unscaled) << "scaled down, not off";
    EXPECT_LT(below.shift_velocity[1], 0.9f * unscaled);
}

TEST(Shifting, WallParticlesCountSoFluidBesideAWallStays) {
    const int n = 21;
    const Lattice walled(n, n, 3); // three rows of wall particles below the fluid
    for (int row : {3, 4}) {
        const Derivatives<2> d = derivatives_of(walled, row * n + n / 2, {1.0f, 0.0f});
        EXPECT_LT(std::sqrt(norm2(d.shift_velocity)), 1e-4f * scale(1.0f)) << "row " << row;
    }
    // Without the wall the second row sees fewer particles below it and moves down, where the
    // wall would be.
    const Lattice open(n, n - 3);
    const Derivatives<2> d = derivatives_of(open, n + n / 2, {1.0f, 0.0f});
    EXPECT_LT(d.shift_velocity[1], -0.01f * scale(1.0f));
}

TEST(Shifting, TheIntegratorsMoveByDtTimesTheShiftingVelocity) {
    Vec<2> position{0.1f, 0.2f}, velocity{0.0f, 0.0f}, previous_position = position,
                                                       previous_velocity = velocity, acceleration{};
    float density = rho0, previous_density = rho0, density_rate = 0.0f;
    const ParticleType type = ParticleType::fluid;
    const Vec<2> shift{0.5f, -0.25f};
    IntegratorArrays<2> a{&position,
                          &velocity,
                          &density,
                          &previous_position,
                          &previous_velocity,
                          &previous_density,
                          &acceleration,
                          &density_rate,
                          &type,
                          &shift};
    symplectic_correct(a, 0, 1e-3f, rho0);
    EXPECT_FLOAT_EQ(position[0], 0.1f + 0.5e-3f);
    EXPECT_FLOAT_EQ(position[1], 0.2f - 0.25e-3f);
    a.shift_velocity = nullptr;
    symplectic_correct(a, 0, 1e-3f, rho0);
    EXPECT_FLOAT_EQ(position[0], 0.1f) << "without shifting the corrector's own update only";
    // Verlet: r + dt·v + dt²/2·a, and dt·u_s with shifting.
    a.shift_velocity = &shift;
    verlet_update(a, 0, 1e-3f, false, rho0);
    EXPECT_FLOAT_EQ(position[0], 0.1f + 0.5e-3f);
    EXPECT_FLOAT_EQ(position[1], 0.2f - 0.25e-3f);
}

TEST(Shifting, TheInteriorDivergenceIsTheLatticesForTheKernel) {
    // Slightly below D (the lattice's quadrature of ∫ −r·∇W = D); the ramp's full-shift value.
    const float h2 = std::sqrt(2.0f) * dp, h3 = 1.3f * dp;
    const float d2 = lattice_position_divergence<2>(WendlandC2<2>(h2), dp);
    const float d3 = lattice_position_divergence<3>(WendlandC2<3>(h3), dp);
    EXPECT_NEAR(d2, 2.0f, 0.05f);
    EXPECT_LT(d2, 2.0f);
    EXPECT_NEAR(d3, 2.94f, 0.02f);
    // The same sum as the visitor's on a lattice (Shifting.InsideARegularLatticeNothingMoves).
    ShiftingSums<2> sums;
    derivatives_of(Lattice(21, 21), 10 * 21 + 10, {1.0f, 0.0f}, &sums);
    EXPECT_NEAR(sums.position_divergence, d2, 1e-4f);
}

} // namespace
} // namespace sluice
