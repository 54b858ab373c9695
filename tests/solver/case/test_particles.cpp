// Particle generation: exact counts, lattice positions, no fluid/wall overlap, hydrostatic
// initial density.

#include "case/case_reader.h"
#include "case/particles.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace sluice;
using sluice::test::box;

namespace {

std::size_t count_type(const ParticleSet& s, ParticleType t) {
    return static_cast<std::size_t>(std::count(s.type.begin(), s.type.end(), t));
}

/// Pressure the Tait equation gives for a generated density (Pa).
double pressure(const ParticleSet& s, double rho, const Case& c) {
    return s.constants.b * (std::pow(rho / c.constants.rho0, c.constants.gamma) - 1.0);
}

TEST(Particles, SimpleTank2DCountsAndLattice) {
    // Inside 1 × 0.5 m, dp 0.1, two layers on bottom/left/right; water 1 × 0.3 m.
    const Case c = test::tank_case_2d(0.1, 1.0, 0.5, box(0.0, 0.0, 1.0, 0.3), 2);
    const ParticleSet s = generate_particles(c);
    // Walls: x axis 2 + 10 + 2 coordinates, z axis 2 + 5; minus the 10 × 5 interior.
    EXPECT_EQ(s.boundary_count, 14u * 7u - 50u);
    EXPECT_EQ(s.fluid_count, 10u * 3u);
    EXPECT_EQ(count_type(s, ParticleType::boundary), s.boundary_count);
    EXPECT_EQ(s.size(), s.boundary_count + s.fluid_count);
    // Boundary first, then fluid in lattice order (x fastest), from min + dp/2.
    for (std::size_t i = 0; i < s.boundary_count; ++i)
        ASSERT_EQ(s.type[i], ParticleType::boundary);
    const Eigen::Vector3d& first = s.position[s.boundary_count];
    EXPECT_NEAR(first.x(), 0.05, 1e-12);
    EXPECT_NEAR(first.z(), 0.05, 1e-12);
    for (std::size_t i = s.boundary_count; i < s.size(); ++i) {
        const std::size_t k = i - s.boundary_count;
        EXPECT_NEAR(s.position[i].x(), 0.05 + 0.1 * static_cast<double>(k % 10), 1e-12);
        EXPECT_NEAR(s.position[i].z(), 0.05 + 0.1 * static_cast<double>(k / 10), 1e-12);
        EXPECT_EQ(s.position[i].y(), 0.0);
    }
    // Wall layers at face − (k + ½)dp: the lowest row at z = −0.15, the left column at −0.15.
    double z_min = 1, x_min = 1, x_max = 0;
    for (std::size_t i = 0; i < s.boundary_count; ++i) {
        z_min = std::min(z_min, s.position[i].z());
        x_min = std::min(x_min, s.position[i].x());
        x_max = std::max(x_max, s.position[i].x());
    }
    EXPECT_NEAR(z_min, -0.15, 1e-12);
    EXPECT_NEAR(x_min, -0.15, 1e-12);
    EXPECT_NEAR(x_max, 1.15, 1e-12);
}

TEST(Particles, Tank3DCountsObstaclesAndUnions) {
    Case c;
    c.dimension = 3;
    c.dp = 0.1;
    TankWalls tank;
    tank.box.min = Eigen::Vector3d(0, 0, 0);
    tank.box.max = Eigen::Vector3d(1.0, 0.5, 0.5);
    tank.faces = face_bottom | face_left | face_right | face_front | face_back; // open top
    tank.layers = 1;
    c.tank = tank;
    // Two overlapping fluid boxes: their union is 0.8 × 0.5 × 0.3 m.
    FluidRegion a, b;
    a.box.min = Eigen::Vector3d(0, 0, 0);
    a.box.max = Eigen::Vector3d(0.5, 0.5, 0.3);
    b.box.min = Eigen::Vector3d(0.3, 0, 0);
    b.box.max = Eigen::Vector3d(0.8, 0.5, 0.3);
    c.fluids = {a, b};
    Obstacle o;
    o.box.min = Eigen::Vector3d(0.8, 0.1, 0.0);
    o.box.max = Eigen::Vector3d(1.0, 0.3, 0.2);
    c.obstacles = {o};
    const ParticleSet s = generate_particles(c);
    // Walls: (1 + 10 + 1)·(1 + 5 + 1)·(1 + 5) lattice points minus the 10·5·5 interior.
    // Obstacle: 2·2·2. Fluid: 8·5·3.
    EXPECT_EQ(s.boundary_count, 12u * 7u * 6u - 250u + 8u);
    EXPECT_EQ(s.fluid_count, 8u * 5u * 3u);
    EXPECT_NEAR(s.fluid_height, 0.3, 1e-12);
}

TEST(Particles, NoFluidOverlapsAWallAndTheDamBreakHasTheRightParticles) {
    const double dp = 0.04;
    const Case c = test::dambreak_case(dp);
    const ParticleSet s = generate_particles(c);
    EXPECT_EQ(s.fluid_count, 25u * 50u);
    // Walls: x 3 + 100 + 3, z 3 + 75 coordinates, minus 100 × 75 inside.
    EXPECT_EQ(s.boundary_count, 106u * 78u - 7500u);
    double min_d2 = 1e9;
    for (std::size_t i = s.boundary_count; i < s.size(); ++i)
        for (std::size_t j = 0; j < s.boundary_count; ++j)
            min_d2 = std::min(min_d2, (s.position[i] - s.position[j]).squaredNorm());
    EXPECT_NEAR(std::sqrt(min_d2), dp, 1e-9);
    EXPECT_NEAR(s.fluid_height, 2.0, 1e-9);
}

TEST(Particles, InitialDensityIsHydrostatic) {
    const double dp = 0.04, g = 9.81, rho0 = 1000.0;
    const Case c = test::dambreak_case(dp); // water surface H = 2 m, x ∈ [0, 1]
    const ParticleSet s = generate_particles(c);
    EXPECT_NEAR(s.constants.speed_of_sound, 20.0 * std::sqrt(g * 2.0), 1e-9);
    int checked_wall_under = 0, checked_wall_side = 0, checked_dry = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Eigen::Vector3d& p = s.position[i];
        const double p_i = pressure(s, s.density[i], c);
        // float densities: p is exact to about ρ·2⁻²⁴·γ·B/ρ0 ≈ 2.4 Pa at c0 = 89 m/s.
        const double tolerance = 5.0;
        if (s.type[i] == ParticleType::fluid) {
            ASSERT_NEAR(p_i, rho0 * g * (2.0 - p.z()), tolerance) << "fluid at z = " << p.z();
        } else if (p.z() < 0 && p.x() > 0 && p.x() < 1.0) {
            ++checked_wall_under; // floor under the column: its water column continued
            ASSERT_NEAR(p_i, rho0 * g * (2.0 - p.z()), tolerance) << "floor at z = " << p.z();
        } else if (p.x() < 0 && p.z() > 0 && p.z() < 2.0) {
            // Left wall: the column next to it when within 2h (the inner layers), else ρ0.
            ++checked_wall_side;
            const bool near = 0.5 * dp - p.x() < s.constants.support;
            ASSERT_NEAR(p_i, near ? rho0 * g * (2.0 - p.z()) : 0.0, tolerance)
                << "wall at x = " << p.x() << ", z = " << p.z();
        } else if (p.x() > 1.0 + 2.0 * s.constants.support || p.z() > 2.0) {
            ++checked_dry; // no water within 2h, or above the surface
            ASSERT_EQ(s.density[i], static_cast<float>(rho0));
        }
    }
    EXPECT_EQ(checked_wall_under, 25 * 3);
    EXPECT_EQ(checked_wall_side, 50 * 3);
    EXPECT_GT(checked_dry, 100);
}

} // namespace

namespace sluice {
namespace {

TEST(Particles, PreflightCountIsExactForTheShippedCases) {
    // estimate_particle_count works from the geometry alone; for boxes and tanks (every shipped
    // case) it must equal what generation produces.
    for (const char* name : {"dambreak2d", "still_water2d", "dambreak3d", "dambreak3d_1m",
                             "sloshing2d", "wave_flume2d", "dambreak_gate3d"}) {
        SCOPED_TRACE(name);
        const Case c = read_case(std::string(SLUICE_CASES_DIR) + "/" + name + ".xml");
        const ParticleCountEstimate e = estimate_particle_count(c);
        const ParticleSet p = generate_particles(c);
        EXPECT_EQ(e.fluid, static_cast<double>(p.fluid_count));
        EXPECT_EQ(e.boundary, static_cast<double>(p.boundary_count));
    }
}

} // namespace
} // namespace sluice
