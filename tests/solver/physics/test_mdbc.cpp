// mDBC's physics (physics/mdbc.h) on particle sets where the answer is known: the corrected
// interpolation reproduces a linear density field exactly at a ghost node, whose pressure the
// wall particle takes plus the hydrostatic difference between them (so a hydrostatic fluid
// gives the wall its own hydrostatic pressure, a gradient the fluid has beyond that does not
// reach the wall); it falls back to Shepard where the matrix is singular and to ρ0 with no
// fluid, and mirrors the fluid's velocity for no-slip and free-slip walls.

#include "physics/kernels.h"
#include "physics/mdbc.h"
#include "support/fluid_constants.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace sluice {
namespace {

constexpr float rho0 = 1000.0f, g = 9.81f;

/// Water (support/fluid_constants.h; c0 = 30 m/s).
FluidConstants water() {
    return test::water_constants(0.02f);
}

/// Fluid particles on a lattice with given densities and velocities, visited by brute force.
template <int D>
struct Cloud {
    std::vector<Vec<D>> position, velocity;
    std::vector<float> density;
    std::vector<ParticleType> type;

    ParticlesView<D> view() const {
        return {velocity.data(), density.data(), nullptr, type.data()};
    }
    template <class VisitorT>
    void visit(const Vec<D>& x, float radius, VisitorT& visitor) const {
        for (std::uint32_t j = 0; j < position.size(); ++j) {
            const Vec<D> rij = x - position[j];
            const float r2 = norm2(rij);
            if (r2 < radius * radius)
                visitor(j, rij, r2);
        }
    }
};

/// The 2D lattice (i + ½)dp, (k + ½)dp for 0 ≤ i < nx, 0 ≤ k < nz with ρ = rho(x) and v = v(x).
template <class RhoT, class VelT>
Cloud<2> lattice_2d(float dp, int nx, int nz, RhoT rho, VelT vel) {
    Cloud<2> c;
    for (int k = 0; k < nz; ++k)
        for (int i = 0; i < nx; ++i) {
            Vec<2> x{};
            x[0] = (i + 0.5f) * dp;
            x[1] = (k + 0.5f) * dp;
            c.position.push_back(x);
            c.density.push_back(rho(x));
            c.velocity.push_back(vel(x));
            c.type.push_back(ParticleType::fluid);
        }
    return c;
}

GhostSums<2> sums_at(const Cloud<2>& cloud, const WendlandC2<2>& kernel, float mass,
                     const Vec<2>& ghost) {
    GhostNodeVisitor<2, WendlandC2<2>, ParticlesView<2>> visitor{cloud.view(), kernel, mass};
    cloud.visit(ghost, 2.0f * kernel.h, visitor);
    return visitor.sums;
}

TEST(Mdbc, SolvesSmallSystemsAndReportsTheDeterminant) {
    const float a[3][3] = {{2, 1, 0}, {1, 3, 1}, {0, 1, 4}};
    const float b[3] = {3, 5, 5}; // x = (1, 1, 1)
    double x[3];
    const double det = solve_small<3>(a, b, x);
    EXPECT_NEAR(det, 2 * (12 - 1) - 1 * 4, 1e-9);
    for (double v : x)
        EXPECT_NEAR(v, 1.0, 1e-12);
    const float singular[2][2] = {{1, 2}, {2, 4}};
    const float rhs[2] = {1, 2};
    double y[2];
    EXPECT_EQ(solve_small<2>(singular, rhs, y), 0.0);
    // Zero on the diagonal: only a row swap (the determinant's sign) solves it.
    const float swapped[3][3] = {{0, 1, 0}, {0, 0, 2}, {4, 0, 0}};
    const float target[3] = {2, 6, 4}; // x = (1, 2, 3)
    double z[3];
    EXPECT_NEAR(solve_small<3>(swapped, target, z), 8.0, 1e-12);
    EXPECT_NEAR(z[0], 1.0, 1e-12);
    EXPECT_NEAR(z[1], 2.0, 1e-12);
    EXPECT_NEAR(z[2], 3.0, 1e-12);
}

/// A floor at z = 0 under still water 0.4 m deep (hydrostatic density, Tait): the ghost node of
/// a wall particle 1.5 dp below the floor lies 1.5 dp above it, where the corrected
/// interpolation is exact for a linear field (the hydrostatic density is linear in z within
/// 10⁻⁷ ρ0 here), and the wall particle takes the water's hydrostatic pressure at its own depth.
TEST(Mdbc, HydrostaticWaterGivesTheWallItsHydrostaticPressure) {
    const float dp = 0.02f, h = 1.0f * std::sqrt(2.0f) * dp, depth = 0.4f;
    const WendlandC2<2> kernel(h);
    const float mass = rho0 * dp * dp;
    const FluidConstants c = water();
    auto rho = [&](const Vec<2>& x) { return tait_density(c, rho0 * g * (depth - x[1])); };
    const Cloud<2> cloud = lattice_2d(dp, 40, 20, rho, [](const Vec<2>&) { return Vec<2>{}; });
    Vec<2> wall{};
    wall[0] = 0.4f;
    wall[1] = -1.5f * dp;
    Vec<2> to_ghost{};
    to_ghost[1] = 3.0f * dp;
    const GhostSums<2> s = sums_at(cloud, kernel, mass, wall + to_ghost);
    const WallState<2> w = mdbc_wall_state(s, to_ghost, Vec<2>{}, Vec<2>{}, c, WallSlip::no_slip);
    const float expected = rho0 * g * (depth - wall[1]); // 4218 Pa
    EXPECT_NEAR(tait_pressure(c, w.density), expected, 1e-3f * expected);
    // The wall particle is ρ0·g·3dp above the pressure at the node (here Shepard's, which the
    // half-empty support biases by only ~5 Pa in this field).
    const float at_node = tait_pressure(c, s.density.b[0] / s.density.a[0][0]);
    EXPECT_NEAR(tait_pressure(c, w.density) - at_node, rho0 * g * 3.0f * dp,
                0.05f * rho0 * g * 3.0f * dp);
}

/// The same node in the corner of the water (a wall particle under a corner, mirrored through
/// the corner point): still exact, although half the support is empty. And a density gradient
/// beyond the hydrostatic one (here along x) is read at the node, not carried to the wall.
TEST(Mdbc, CornerGhostNodesAreExactForHydrostaticWater) {
    const float dp = 0.02f, h = std::sqrt(2.0f) * dp, depth = 0.4f;
    const WendlandC2<2> kernel(h);
    const float mass = rho0 * dp * dp;
    const FluidConstants c = water();
    auto rho = [&](const Vec<2>& x) { return tait_density(c, rho0 * g * (depth - x[1])); };
    const Cloud<2> cloud = lattice_2d(dp, 20, 20, rho, [](const Vec<2>&) { return Vec<2>{}; });
    Vec<2> wall{};
    wall[0] = -0.5f * dp;
    wall[1] = -1.5f * dp;
    Vec<2> to_ghost{};
    to_ghost[0] = dp;
    to_ghost[1] = 3.0f * dp;
    const WallState<2> w = mdbc_wall_state(sums_at(cloud, kernel, mass, wall + to_ghost), to_ghost,
                                           Vec<2>{}, Vec<2>{}, c, WallSlip::no_slip);
    const float expected = rho0 * g * (depth - wall[1]);
    EXPECT_NEAR(tait_pressure(c, w.density), expected, 1e-3f * expected);

    auto sloped = [&](const Vec<2>& x) { return rho(x) + 20.0f * x[0]; };
    const Cloud<2> tilted = lattice_2d(dp, 20, 20, sloped, [](const Vec<2>&) { return Vec<2>{}; });
    const Vec<2> node = wall + to_ghost;
    const WallState<2> t = mdbc_wall_state(sums_at(tilted, kernel, mass, node), to_ghost, Vec<2>{},
                                           Vec<2>{}, c, WallSlip::no_slip);
    const float at_node = tait_pressure(c, sloped(node)) + rho0 * g * to_ghost[1];
    EXPECT_NEAR(tait_pressure(c, t.density), at_node, 2e-3f * at_node);
}

/// One fluid particle in reach: the matrix is singular (no gradient can be fitted), so the
/// density at the node is Shepard's, ρ_j itself (the wall: its pressure plus the hydrostatic
/// difference); no fluid at all: ρ0 and the wall's velocity. A value under ρ0 is held at ρ0,
/// as DBC walls are.
TEST(Mdbc, FallsBackToShepardThenToTheReferenceDensity) {
    const float dp = 0.02f, h = std::sqrt(2.0f) * dp;
    const WendlandC2<2> kernel(h);
    const float mass = rho0 * dp * dp;
    Cloud<2> one;
    Vec<2> x{};
    x[1] = 2.0f * dp;
    one.position = {x};
    one.density = {1003.0f};
    Vec<2> v{};
    v[0] = 0.3f;
    one.velocity = {v};
    one.type = {ParticleType::fluid};
    Vec<2> to_ghost{};
    to_ghost[1] = 2.0f * dp;
    const Vec<2> wall{};
    const FluidConstants c = water();
    const WallState<2> single = mdbc_wall_state(sums_at(one, kernel, mass, wall + to_ghost),
                                                to_ghost, Vec<2>{}, Vec<2>{}, c, WallSlip::no_slip);
    EXPECT_NEAR(tait_pressure(c, single.density),
                tait_pressure(c, 1003.0f) + rho0 * g * to_ghost[1], 0.5f); // float rounding
    EXPECT_GT(single.density, 1003.0f);
    EXPECT_NEAR(single.velocity[0], -0.3f, 1e-6f); // no-slip: the mirror of the fluid's

    one.density = {990.0f};
    const WallState<2> light = mdbc_wall_state(sums_at(one, kernel, mass, wall + to_ghost),
                                               to_ghost, Vec<2>{}, Vec<2>{}, c, WallSlip::no_slip);
    EXPECT_EQ(light.density, rho0);

    Vec<2> far{};
    far[1] = 1.0f;
    const WallState<2> dry = mdbc_wall_state(sums_at(one, kernel, mass, far), to_ghost, Vec<2>{},
                                             Vec<2>{}, c, WallSlip::free_slip);
    EXPECT_EQ(dry.density, rho0);
    EXPECT_EQ(dry.velocity[0], 0.0f);
    EXPECT_EQ(dry.velocity[1], 0.0f);
}

/// Fluid moving along and towards a floor: no-slip walls see −v (zero velocity at the wall
/// surface, half way), free-slip walls keep the tangential part and mirror the normal one.
TEST(Mdbc, WallVelocityMirrorsTheFluidForEachSlipCondition) {
    const float dp = 0.02f, h = std::sqrt(2.0f) * dp;
    const WendlandC2<2> kernel(h);
    const float mass = rho0 * dp * dp;
    auto flow = [](const Vec<2>&) {
        Vec<2> v{};
        v[0] = 0.8f;  // along the floor
        v[1] = -0.2f; // towards it
        return v;
    };
    const Cloud<2> cloud = lattice_2d(
        dp, 30, 15, [](const Vec<2>&) { return 1002.0f; }, flow);
    Vec<2> wall{};
    wall[0] = 0.3f;
    wall[1] = -0.5f * dp;
    Vec<2> to_ghost{};
    to_ghost[1] = dp;
    const GhostSums<2> s = sums_at(cloud, kernel, mass, wall + to_ghost);
    const FluidConstants c = water();
    const WallState<2> no_slip =
        mdbc_wall_state(s, to_ghost, Vec<2>{}, Vec<2>{}, c, WallSlip::no_slip);
    EXPECT_NEAR(no_slip.velocity[0], -0.8f, 1e-5f);
    EXPECT_NEAR(no_slip.velocity[1], 0.2f, 1e-5f);
    const WallState<2> free =
        mdbc_wall_state(s, to_ghost, Vec<2>{}, Vec<2>{}, c, WallSlip::free_slip);
    EXPECT_NEAR(free.velocity[0], 0.8f, 1e-5f);
    EXPECT_NEAR(free.velocity[1], 0.2f, 1e-5f);
    // A uniform field at the node, plus the hydrostatic difference to the wall particle.
    EXPECT_NEAR(tait_pressure(c, no_slip.density),
                tait_pressure(c, 1002.0f) + rho0 * g * to_ghost[1], 1.0f);
}

} // namespace
} // namespace sluice
