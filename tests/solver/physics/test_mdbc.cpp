// mDBC's physics (physics/mdbc.h) on particle sets where the answer is known: the corrected
// interpolation reproduces a linear density field exactly at a ghost node and extrapolates it
// back to the wall particle, falls back to Shepard where the matrix is singular and to ρ0 with
// no fluid, and mirrors the fluid's velocity for no-slip and free-slip walls.

#include "physics/kernels.h"
#include "physics/mdbc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace sluice {
namespace {

constexpr float rho0 = 1000.0f;

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
}

/// A floor at z = 0 under fluid whose density grows linearly with depth (hydrostatic-like,
/// with a horizontal slope too): the ghost node of a wall particle 1.5 dp below the floor lies
/// 1.5 dp above it, where the corrected interpolation is exact for a linear field (to float
/// rounding), and the extrapolation back gives the field's value at the wall particle.
TEST(Mdbc, LinearDensityIsExtrapolatedExactlyToTheWallParticle) {
    const float dp = 0.02f, h = 1.0f * std::sqrt(2.0f) * dp;
    const WendlandC2<2> kernel(h);
    const float mass = rho0 * dp * dp;
    auto rho = [](const Vec<2>& x) { return 1010.0f - 20.0f * x[1] + 5.0f * x[0]; };
    const Cloud<2> cloud = lattice_2d(dp, 40, 20, rho, [](const Vec<2>&) { return Vec<2>{}; });
    Vec<2> wall{};
    wall[0] = 0.4f;
    wall[1] = -1.5f * dp;
    Vec<2> to_ghost{};
    to_ghost[1] = 3.0f * dp;
    const GhostSums<2> s = sums_at(cloud, kernel, mass, wall + to_ghost);
    const WallState<2> w = mdbc_wall_state(s, to_ghost, Vec<2>{}, rho0, WallSlip::no_slip);
    EXPECT_NEAR(w.density, rho(wall), 0.01f); // 1012.6 kg/m³; float sums: ~1e-5 relative
    // The Shepard value at the node alone would be off by the kernel's truncation near no wall,
    // and would not carry the gradient to the wall particle: it is not what was returned.
    EXPECT_GT(std::fabs(s.density.b[0] / s.density.a[0][0] - rho(wall)), 0.1f);
}

/// The same node in the corner of the fluid (a wall particle under a corner, mirrored through
/// the corner point): still exact for a linear field, although half the support is empty.
TEST(Mdbc, CornerGhostNodesAreExactForLinearFields) {
    const float dp = 0.02f, h = std::sqrt(2.0f) * dp;
    const WendlandC2<2> kernel(h);
    const float mass = rho0 * dp * dp;
    auto rho = [](const Vec<2>& x) { return 1005.0f + 30.0f * x[0] - 40.0f * x[1]; };
    const Cloud<2> cloud = lattice_2d(dp, 20, 20, rho, [](const Vec<2>&) { return Vec<2>{}; });
    Vec<2> wall{};
    wall[0] = -0.5f * dp;
    wall[1] = -1.5f * dp;
    Vec<2> to_ghost{};
    to_ghost[0] = dp;
    to_ghost[1] = 3.0f * dp;
    const GhostSums<2> s = sums_at(cloud, kernel, mass, wall + to_ghost);
    const WallState<2> w = mdbc_wall_state(s, to_ghost, Vec<2>{}, rho0, WallSlip::no_slip);
    EXPECT_NEAR(w.density, rho(wall), 0.01f);
}

/// One fluid particle in reach: the matrix is singular (no gradient can be fitted), so the
/// density is Shepard's at the node, ρ_j itself; no fluid at all: ρ0 and the wall's velocity.
/// A value under ρ0 is held at ρ0, as DBC walls are.
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
    const WallState<2> single = mdbc_wall_state(sums_at(one, kernel, mass, wall + to_ghost),
                                                to_ghost, Vec<2>{}, rho0, WallSlip::no_slip);
    EXPECT_NEAR(single.density, 1003.0f, 1e-3f);
    EXPECT_NEAR(single.velocity[0], -0.3f, 1e-6f); // no-slip: the mirror of the fluid's

    one.density = {990.0f};
    const WallState<2> light = mdbc_wall_state(sums_at(one, kernel, mass, wall + to_ghost),
                                               to_ghost, Vec<2>{}, rho0, WallSlip::no_slip);
    EXPECT_EQ(light.density, rho0);

    Vec<2> far{};
    far[1] = 1.0f;
    const WallState<2> dry = mdbc_wall_state(sums_at(one, kernel, mass, far), to_ghost, Vec<2>{},
                                             rho0, WallSlip::free_slip);
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
    const WallState<2> no_slip = mdbc_wall_state(s, to_ghost, Vec<2>{}, rho0, WallSlip::no_slip);
    EXPECT_NEAR(no_slip.velocity[0], -0.8f, 1e-5f);
    EXPECT_NEAR(no_slip.velocity[1], 0.2f, 1e-5f);
    const WallState<2> free = mdbc_wall_state(s, to_ghost, Vec<2>{}, rho0, WallSlip::free_slip);
    EXPECT_NEAR(free.velocity[0], 0.8f, 1e-5f);
    EXPECT_NEAR(free.velocity[1], 0.2f, 1e-5f);
    EXPECT_NEAR(no_slip.density, 1002.0f, 0.01f); // a uniform field is uniform at the wall
}

} // namespace
} // namespace sluice
