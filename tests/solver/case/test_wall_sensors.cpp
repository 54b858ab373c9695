// Wall pressure sensors in the gauge plan (case/gauge_plan.h): which wall a sensor sits on, the
// sample points of its face, the corrected interpolation from its sums (physics/gauges.h) and
// the averages over a row's interval. Synthetic particles and sums, so each rule is checked on
// its own; tests/solver/backends/test_simulation.cpp checks the readings on still water.

#include "case/gauge_plan.h"
#include "physics/gauges.h"
#include "physics/kernels.h"
#include "support/cases.h"
#include "support/fluid_constants.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace sluice;

namespace {

/// Boundary particles at the given positions and densities, as a particle layout for the
/// visitors (motion(j)).
template <int D>
struct Wall {
    std::vector<Vec<D>> x;
    std::vector<float> density;
    NeighbourMotion<D> motion(std::uint32_t j) const { return {Vec<D>{}, density[j], false}; }
};

/// The WallSums at `at` over every particle of `wall` within the kernel's support (the query's
/// job in a backend), through the same visitor.
WallSums sums_at(const Wall<2>& wall, const Vec<2>& at, const WendlandC2<2>& kernel,
                 const FluidConstants& c, float support) {
    WallSensorVisitor<2, WendlandC2<2>, Wall<2>> v{wall, kernel, c};
    for (std::uint32_t j = 0; j < wall.x.size(); ++j) {
        const Vec<2> rij = at - wall.x[j];
        const float r2 = dot(rij, rij);
        if (r2 < support * support)
            v(j, rij, r2);
    }
    WallSums out{};
    flatten(v.sums, out);
    return out;
}

} // namespace

TEST(WallSensors, NormalFromTheTankFaceOrTheBoxNearby) {
    Case c = test::still_water_case(0.02); // tank [0, 1] × [0, 0.7], open top
    Obstacle block;
    block.box = {Eigen::Vector3d(0.6, 0.0, 0.0), Eigen::Vector3d(0.7, 0.0, 0.1)};
    c.obstacles.push_back(block);
    auto normal = [&](double x, double z) { return sensor_wall_normal(c, {x, 0.0, z}); };
    ASSERT_TRUE(normal(0.0, 0.2));
    EXPECT_EQ(*normal(0.0, 0.2), Eigen::Vector3d(1, 0, 0)); // left wall, into the water
    EXPECT_EQ(*normal(1.0 + 0.01, 0.2), Eigen::Vector3d(-1, 0, 0));
    EXPECT_EQ(*normal(0.3, 0.0), Eigen::Vector3d(0, 0, 1));   // floor
    EXPECT_EQ(*normal(0.6, 0.05), Eigen::Vector3d(-1, 0, 0)); // the block's upstream face
    EXPECT_EQ(*normal(0.65, 0.1), Eigen::Vector3d(0, 0, 1));  // its top
    EXPECT_FALSE(normal(0.3, 0.3)) << "in the water, 0.3 m from any wall";
    EXPECT_FALSE(normal(0.5, 0.7)) << "the top is open";
    EXPECT_FALSE(normal(0.0, 0.75)) << "beyond the wall's extent by more than dp";
}

TEST(WallSensors, FacePointsSpanTheRadiusInTheWallsPlane) {
    const double dp = 0.02;
    Case two = test::still_water_case(dp);
    const std::vector<Eigen::Vector3d> one =
        sensor_points(two, test::wall_sensor("S", {0.0, 0.0, 0.2}));
    ASSERT_EQ(one.size(), 1u);
    const std::vector<Eigen::Vector3d> segment =
        sensor_points(two, test::wall_sensor("S", {0.0, 0.0, 0.2}, 0.025));
    ASSERT_EQ(segment.size(), 7u); // ceil(0.025 / 0.01) = 3 each side, and the centre
    for (std::size_t k = 0; k < segment.size(); ++k) {
        EXPECT_DOUBLE_EQ(segment[k].x(), 0.0) << "on the wall";
        EXPECT_LE(std::abs(segment[k].z() - 0.2), 0.025 + 1e-12);
        if (k > 0)
            EXPECT_LE((segment[k] - segment[k - 1]).norm(), 0.5 * dp + 1e-12);
    }
    Case three = test::tank_case_3d(dp, {0.4, 0.4, 0.4}, {0.4, 0.4, 0.2}, {-0.1, -0.1, -0.1},
                                    {0.5, 0.5, 0.5});
    const std::vector<Eigen::Vector3d> disk =
        sensor_points(three, test::wall_sensor("S", {0.2, 0.0, 0.1}, 0.03)); // front face y = 0
    double mean_x = 0.0, mean_z = 0.0;
    for (const Eigen::Vector3d& p : disk) {
        EXPECT_NEAR(p.y(), 0.0, 1e-12) << "in the wall's plane";
        EXPECT_LE((p - Eigen::Vector3d(0.2, 0.0, 0.1)).norm(), 0.03 + 1e-12);
        mean_x += p.x() / disk.size();
        mean_z += p.z() / disk.size();
    }
    EXPECT_EQ(disk.size(), 29u); // lattice points of spacing 0.01 within radius 3 spacings
    EXPECT_NEAR(mean_x, 0.2, 1e-12) << "centred on the point";
    EXPECT_NEAR(mean_z, 0.1, 1e-12);
}

TEST(WallSensors, CorrectedInterpolationIsExactForALinearPressure) {
    // Three layers of wall particles below a floor at z = 0 (spacing dp, centres at −dp/2,
    // −3dp/2, −5dp/2), with a pressure linear in x and z: the corrected value at a point of the
    // floor is the field's there; the Shepard value is biased by the one-sided support.
    const float dp = 0.02f, h = 1.0f * std::sqrt(2.0f) * dp;
    const WendlandC2<2> kernel(h);
    const FluidConstants c = test::water_constants(dp);
    auto pressure = [](float x, float z) { return 2000.0f + 5000.0f * x - 9810.0f * z; };
    Wall<2> wall;
    for (int i = -10; i <= 10; ++i)
        for (int k = 0; k < 3; ++k) {
            const float x = (i + 0.5f) * dp, z = -(k + 0.5f) * dp;
            wall.x.push_back({x, z});
            wall.density.push_back(tait_density(c, pressure(x, z)));
        }
    const WallSums s = sums_at(wall, {0.013f, 0.0f}, kernel, c, 2.0f * h);
    const double exact = pressure(0.013f, 0.0f);
    EXPECT_NEAR(wall_pressure(s, 2), exact, 1e-3 * exact);
    EXPECT_GT(std::abs(s[12 - 3] / s[0] - exact), 0.02 * exact) << "Shepard is biased here";
}

TEST(WallSensors, ReadingNeverBelowZero) {
    // Non-negative wall pressures that grow steeply into the floor (as across the wall layers
    // in an impact): the linear extrapolation to the surface is −4 kPa; a wall's pressure field
    // is ≥ 0 in both wall models, and so is the reading.
    const float dp = 0.02f, h = 1.0f * std::sqrt(2.0f) * dp;
    const WendlandC2<2> kernel(h);
    const FluidConstants c = test::water_constants(dp);
    auto pressure = [](float z) { return -500000.0f * z - 4000.0f; }; // 1 kPa at z = −dp/2
    Wall<2> wall;
    for (int i = -10; i <= 10; ++i)
        for (int k = 0; k < 3; ++k) {
            const float z = -(k + 0.5f) * dp;
            wall.x.push_back({(i + 0.5f) * dp, z});
            wall.density.push_back(tait_density(c, pressure(z)));
        }
    const WallSums s = sums_at(wall, {0.013f, 0.0f}, kernel, c, 2.0f * h);
    EXPECT_EQ(wall_pressure(s, 2), 0.0);
    const WallSums inside = sums_at(wall, {0.013f, -0.02f}, kernel, c, 2.0f * h);
    EXPECT_NEAR(wall_pressure(inside, 2), pressure(-0.02f), 1e-3 * pressure(-0.02f))
        << "within the layers the linear field is read exactly";
}

TEST(WallSensors, IllConditionedFallsBackToShepardAndNoneReadsZero) {
    WallSums one{};        // a single particle in reach: A = [[VW, ...]], singular
    one[0] = 0.4f;         // Σ V W
    one[9] = 0.4f * 900.f; // Σ V W p (2D: A is 3 × 3, b starts at 9)
    EXPECT_NEAR(wall_pressure(one, 2), 900.0, 1e-4); // float sums
    EXPECT_EQ(wall_pressure(WallSums{}, 2), 0.0);
    EXPECT_EQ(wall_pressure(WallSums{}, 3), 0.0);
}

TEST(WallSensors, AveragedSensorsReportTheMeanOverTheRowsInterval) {
    Case c = test::still_water_case(0.02);
    c.gauges.interval = 0.01;
    c.gauges.gauges = {test::wall_sensor("now", {0.0, 0.0, 0.1}),
                       test::wall_sensor("mean", {1.0, 0.0, 0.1}, 0.0, true),
                       test::wall_sensor("wide", {0.5, 0.0, 0.0}, 0.02, true)};
    const GaugePlan plan(c, 2.0 * std::sqrt(2.0) * 0.02);
    ASSERT_EQ(plan.columns().size(), 3u);
    EXPECT_EQ(plan.columns()[1].unit, "Pa");
    ASSERT_EQ(plan.averaged_columns(), (std::vector<std::size_t>{1, 2}));
    // The averaged sensors' points come first, so a step's request is their prefix.
    const std::size_t averaged = plan.step_request().wall_points.size();
    ASSERT_EQ(averaged, 1u + 5u);
    ASSERT_EQ(plan.request().wall_points.size(), averaged + 1);
    for (std::size_t k = 0; k < averaged; ++k)
        EXPECT_EQ(plan.step_request().wall_points[k], plan.request().wall_points[k]);
    EXPECT_TRUE(plan.step_request().points.empty());
    EXPECT_TRUE(plan.step_request().fronts.empty());
    // Shepard sums reading p everywhere: each point one particle in reach.
    auto sample = [](std::size_t points, float p) {
        GaugeResponse r;
        WallSums s{};
        s[0] = 0.5f;
        s[9] = 0.5f * p;
        r.wall.assign(points, s);
        return r;
    };
    SensorAverages averages(plan);
    const std::vector<double> first = averages.row(sample(averaged + 1, 100.0f));
    EXPECT_EQ(first, (std::vector<double>{100.0, 100.0, 100.0})) << "t = 0: its own step";
    averages.add_step(sample(averaged, 200.0f));
    averages.add_step(sample(averaged, 400.0f));
    const std::vector<double> second = averages.row(sample(averaged + 1, 600.0f));
    EXPECT_DOUBLE_EQ(second[0], 600.0) << "instantaneous: the row's step";
    EXPECT_DOUBLE_EQ(second[1], 400.0) << "averaged: (200 + 400 + 600) / 3";
    EXPECT_DOUBLE_EQ(second[2], 400.0);
    const std::vector<double> third = averages.row(sample(averaged + 1, 50.0f));
    EXPECT_DOUBLE_EQ(third[1], 50.0) << "each interval starts afresh";
}

/// A sensor on a curved obstacle (case/wall_normals.h's wall_surface_normal): the radial normal.
TEST(WallSensors, NormalOnACurvedObstacleIsRadial) {
    Case c = test::still_water_case(0.02);
    Obstacle ball;
    ball.shape = Sphere{Eigen::Vector3d(0.5, 0.0, 0.3), 0.1};
    primitive_bounds(ball.shape, 2, ball.box.min, ball.box.max);
    c.obstacles.push_back(ball);
    const double s = std::sqrt(0.5);
    const std::optional<Eigen::Vector3d> n =
        sensor_wall_normal(c, Eigen::Vector3d(0.5 + 0.1 * s, 0.0, 0.3 + 0.1 * s));
    ASSERT_TRUE(n);
    EXPECT_NEAR(n->x(), s, 1e-6);
    EXPECT_NEAR(n->z(), s, 1e-6);
}
