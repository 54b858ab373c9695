// Modified dynamic boundaries (mDBC; physics/mdbc.h, the BoundaryCondition pass) on every
// backend, against hydrostatics: still water 0.5 m deep in the shipped 1 m tank
// (cases/still_water2d.xml's physics), DBC beside it for comparison.
//
// What is checked after 1 s (the initial acoustic transient has passed; averages over 20
// states 10 ms apart, so that the remaining acoustic oscillation of a few tenths of a percent
// does not decide):
// - the wall particles' pressure: the first layer of the left and right walls at depth
//   d ≥ 3 dp reads ρ0·g·d within 2 % (the issue's target for wall sensors; the wall particle
//   sits beside the water at its own height, so its own extrapolated pressure is the wall's
//   pressure there); with DBC the same particles are printed, not checked;
// - the first fluid layer's centres lie within [0.4, 0.6] dp of the wall surfaces (the floor
//   and both side walls): no unphysical gap (DBC at rest: 0.49 dp, issue 24);
// - the water stays at rest (largest speed under 1 % of sqrt(gH)).
// At two resolutions, dp = 0.04 and 0.02 m (the shipped one): the 2 % holds at 0.02 m, and the
// error falls as dp does (the test body says by how much).
//
// The same in the 3D tank through what a user reads: wall pressure sensors (<sensor>,
// case/gauge_plan.h) on a side wall at depths d ≥ 3 dp and a height gauge
// (StillWater3DSensorsAndLevel).
//
// And the wall normals that the first snapshot of an mDBC run shows (io/snapshot.h).

#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "case/gauge_plan.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

using namespace sluice;

namespace {

constexpr double g = 9.81, rho0 = 1000.0, depth = 0.5;

template <class TagT>
class ModifiedWalls : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(ModifiedWalls, test::AllBackends, test::BackendName);

struct StillWaterReadings {
    double wall_error = 0.0; ///< largest |p − ρ0 g d| / (ρ0 g d) over side-wall particles, d ≥ 3dp
    double floor_gap = 0.0; ///< mean height of the lowest fluid layer above the floor (dp)
    double side_gap = 0.0;  ///< mean distance of the outermost fluid columns from the walls (dp)
    double speed = 0.0;     ///< largest fluid speed over the samples (m/s)
};

StillWaterReadings still_water(BoundaryKind boundary, double dp, Backend backend,
                               const std::function<void(Physics&)>& adjust = {}) {
    Case c = test::still_water_case(dp);
    c.physics.boundary = boundary;
    if (adjust)
        adjust(c.physics);
    auto sim = make_simulation(c, backend);
    while (sim->time() < 1.0)
        sim->step();
    const int samples = 20;
    std::vector<double> wall_sum;
    std::vector<double> wall_depth;
    double floor_sum = 0.0, side_sum = 0.0, speed = 0.0;
    long floor_count = 0, side_count = 0;
    for (int k = 0; k < samples; ++k) {
        const double until = sim->time() + 0.01;
        while (sim->time() < until)
            sim->step();
        const Snapshot s = sim->snapshot();
        std::size_t w = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double x = s.position[i][0], z = s.position[i][2];
            if (s.type[i] == ParticleType::boundary) {
                const bool first_layer =
                    std::fabs(x + 0.5 * dp) < 0.1 * dp || std::fabs(x - 1.0 - 0.5 * dp) < 0.1 * dp;
                if (!first_layer || z < 0.0 || depth - z < 3.0 * dp - 1e-9)
                    continue;
                if (k == 0) {
                    wall_sum.push_back(0.0);
                    wall_depth.push_back(depth - z);
                }
                wall_sum[w++] += s.pressure[i];
                continue;
            }
            speed = std::max(speed, std::sqrt(double(s.velocity[i][0]) * s.velocity[i][0] +
                                              double(s.velocity[i][2]) * s.velocity[i][2]));
            if (z < dp) {
                floor_sum += z;
                ++floor_count;
            }
            if (x < dp || x > 1.0 - dp) {
                side_sum += std::min(x, 1.0 - x);
                ++side_count;
            }
        }
    }
    StillWaterReadings r;
    for (std::size_t w = 0; w < wall_sum.size(); ++w) {
        const double expected = rho0 * g * wall_depth[w];
        const double error = std::fabs(wall_sum[w] / samples - expected) / expected;
        if (std::getenv("SLUICE_DEBUG_WALLS"))
            std::printf("  d = %.3f: %.1f Pa vs %.1f\n", wall_depth[w], wall_sum[w] / samples,
                        expected);
        r.wall_error = std::max(r.wall_error, error);
    }
    r.floor_gap = floor_sum / floor_count / dp;
    r.side_gap = side_sum / side_count / dp;
    r.speed = speed;
    std::printf("still water, %s, dp = %.3f m (%s): wall pressure error up to %.2f %% (%zu wall "
                "particles, d >= 3 dp), first layer at %.3f dp above the floor and %.3f dp from "
                "the side walls, max speed %.4f m/s\n",
                to_string(boundary), dp, sim->backend_name().c_str(), 100.0 * r.wall_error,
                wall_sum.size(), r.floor_gap, r.side_gap, speed);
    return r;
}

TYPED_TEST(ModifiedWalls, StillWaterWallPressureIsHydrostatic) {
    std::vector<double> wall_error;
    for (double dp : {0.04, 0.02}) {
        const StillWaterReadings m = still_water(BoundaryKind::mdbc, dp, TypeParam::backend);
        wall_error.push_back(m.wall_error);
        EXPECT_GE(m.floor_gap, 0.4) << "dp = " << dp;
        EXPECT_LE(m.floor_gap, 0.6) << "dp = " << dp;
        EXPECT_GE(m.side_gap, 0.4) << "dp = " << dp;
        EXPECT_LE(m.side_gap, 0.6) << "dp = " << dp;
        EXPECT_LT(m.speed, 0.01 * std::sqrt(g * depth)) << "dp = " << dp;
        still_water(BoundaryKind::dbc, dp, TypeParam::backend); // printed beside it
    }
    // The shipped resolution (25 particles deep) within 2 % at every depth ≥ 3 dp; at 12
    // particles deep the whole column's pressure sits about ρ0·g·dp/2 low (a level offset of
    // the coarse free surface, 16 % at d = 3 dp), and the error falls as dp does.
    EXPECT_LT(wall_error[1], 0.02);
    EXPECT_LT(wall_error[1], wall_error[0]);
}

/// The new pair terms keep still water still with mDBC walls, to the classical terms' 2 % at
/// 25 particles deep: the Riemann formulation (its pressure jump's hydrostatic part taken off,
/// physics/riemann.h) and δ⁺-SPH (Antuono's diffusion with shifting, physics/delta_sph.h).
TYPED_TEST(ModifiedWalls, StillWaterStaysHydrostaticWithRiemannAndDeltaPlus) {
    const std::function<void(Physics&)> riemann = [](Physics& p) {
        p.formulation = FormulationKind::riemann;
        p.viscosity_value = 0.0;
        p.diffusion = DensityDiffusionKind::none;
    };
    const std::function<void(Physics&)> delta_plus = [](Physics& p) {
        p.diffusion = DensityDiffusionKind::antuono;
        p.shifting = ShiftingKind::fickian;
    };
    for (const auto& adjust : {riemann, delta_plus}) {
        const double dp = 0.02;
        const StillWaterReadings m =
            still_water(BoundaryKind::mdbc, dp, TypeParam::backend, adjust);
        EXPECT_LT(m.wall_error, 0.02);
        EXPECT_GE(m.floor_gap, 0.4);
        EXPECT_LE(m.floor_gap, 0.6);
        EXPECT_GE(m.side_gap, 0.4);
        EXPECT_LE(m.side_gap, 0.6);
        EXPECT_LT(m.speed, 0.01 * std::sqrt(g * depth));
    }
}

/// 3D still water 0.48 m deep in a tank 0.48 m square (whole multiples of both spacings, so
/// the lattice meets every wall at dp/2) with mDBC walls, at spacing dp, after 1 s:
/// the mean over 20 samples 10 ms apart of wall sensors on the left wall's centre line at
/// depths 3 dp, 5 dp, … (instantaneous, no radius) and of a height gauge in the middle.
/// Returns the largest relative sensor error; the level goes to `level`.
double still_water_3d_sensors(double dp, Backend backend, double& level) {
    constexpr double side = 0.48, water = 0.48;
    Case c = test::tank_case_3d(dp, {side, side, 0.7}, {side, side, water}, {-0.2, -0.2, -0.2},
                                {0.7, 0.7, 0.9});
    c.physics.diffusion = DensityDiffusionKind::fourtakas;
    c.physics.boundary = BoundaryKind::mdbc;
    c.gauges.interval = 0.01;
    std::vector<double> depths;
    for (double d = 3.0 * dp; d < water - 1e-9; d += 2.0 * dp)
        depths.push_back(d);
    Gauge height;
    height.kind = GaugeKind::height;
    height.name = "level";
    height.point = Eigen::Vector3d(0.5 * side, 0.5 * side, 0.0);
    c.gauges.gauges = {height};
    for (std::size_t k = 0; k < depths.size(); ++k) {
        Gauge sensor;
        sensor.kind = GaugeKind::sensor;
        sensor.name = "S" + std::to_string(k);
        sensor.point = Eigen::Vector3d(0.0, 0.5 * side, water - depths[k]);
        c.gauges.gauges.push_back(sensor);
    }
    auto sim = make_simulation(c, backend);
    const GaugePlan plan(c, sim->constants().support);
    while (sim->time() < 1.0)
        sim->step();
    const int samples = 20;
    std::vector<double> mean(c.gauges.gauges.size(), 0.0);
    for (int k = 0; k < samples; ++k) {
        const double until = sim->time() + 0.01;
        while (sim->time() < until)
            sim->step();
        const std::vector<double> v = plan.evaluate(sim->sample_gauges(plan.request()));
        for (std::size_t g = 0; g < v.size(); ++g)
            mean[g] += v[g] / samples;
    }
    level = mean[0];
    double worst = 0.0;
    for (std::size_t k = 0; k < depths.size(); ++k) {
        const double expected = rho0 * g * depths[k];
        worst = std::max(worst, std::fabs(mean[k + 1] - expected) / expected);
    }
    std::printf("still water 3D, mdbc, dp = %.3f m (%s): %zu wall sensors at d >= 3 dp, error up "
                "to %.2f %% (shallowest %.1f Pa vs %.1f); level %.4f m (water %.3f m)\n",
                dp, sim->backend_name().c_str(), depths.size(), 100.0 * worst, mean[1],
                rho0 * g * depths[0], level, water);
    return worst;
}

/// The issue's still-water targets in 3D through the sensors and the level gauge: at the
/// resolution of the 2D test's 2 % (25 particles deep, dp = 0.02; the GPU) the sensors within
/// 2 % and the level within dp/4; the CPU runs dp = 0.04 (12 deep; CI's time), where the
/// coarse column's pressure sits about ρ0·g·dp/2 low as in 2D, and checks the level only.
TYPED_TEST(ModifiedWalls, StillWater3DSensorsAndLevel) {
    const bool gpu = TypeParam::backend == Backend::cuda;
    const std::vector<double> spacings =
        gpu ? std::vector<double>{0.04, 0.02} : std::vector<double>{0.04};
    std::vector<double> errors;
    for (double dp : spacings) {
        double level = 0.0;
        errors.push_back(still_water_3d_sensors(dp, TypeParam::backend, level));
        EXPECT_NEAR(level, 0.48, 0.25 * dp) << "dp = " << dp;
    }
    if (gpu) {
        EXPECT_LT(errors.back(), 0.02);
        EXPECT_LT(errors.back(), errors.front());
    }
}

/// The first snapshot of an mDBC run of case c (a tank with inside [0, lx] × [0, ly] × [0, …);
/// 2D: ly unused) shows the wall normals (io/snapshot.h): unit vectors on the wall particles
/// with a ghost node, +z on the floor away from the side walls (those less than R deep: their
/// ghost node 2·depth away is within the 2R the offsets are kept for), zero on the fluid and on
/// deeper walls. Through snapshot() and begin_snapshot() (the CUDA backend's asynchronous copy
/// fills them on the host); no snapshot after a step has them, nor any of a DBC run.
void expect_wall_normals_in_first_snapshot(Case c, Backend backend, double lx, double ly) {
    const double dp = c.dp;
    c.physics.boundary = BoundaryKind::mdbc;
    auto sim = make_simulation(c, backend);
    const double support = sim->constants().support;
    const Snapshot first = sim->snapshot();
    const Snapshot begun = sim->begin_snapshot().get();
    ASSERT_EQ(first.normal.size(), first.size());
    EXPECT_EQ(begun.normal, first.normal);
    std::size_t floor_normals = 0;
    for (std::size_t i = 0; i < first.size(); ++i) {
        const std::array<float, 3>& n = first.normal[i];
        const double length = std::sqrt(double(n[0]) * n[0] + double(n[1]) * n[1] + n[2] * n[2]);
        if (first.type[i] == ParticleType::fluid) {
            EXPECT_EQ(length, 0.0) << "fluid particle " << first.id[i];
            continue;
        }
        if (length > 0.0)
            EXPECT_NEAR(length, 1.0, 1e-6) << "wall particle " << first.id[i];
        const double x = first.position[i][0], y = first.position[i][1];
        const double depth = -first.position[i][2];
        const bool inner = x > dp && x < lx - dp && (c.dimension == 2 || (y > dp && y < ly - dp));
        if (depth <= 0.0 || !inner)
            continue;
        if (depth < support - 0.1 * dp) {
            for (int d = 0; d < 3; ++d)
                EXPECT_NEAR(n[d], d == 2 ? 1.0 : 0.0, 1e-6) << "floor particle " << first.id[i];
            ++floor_normals;
        } else if (depth > support + 0.1 * dp) {
            EXPECT_EQ(length, 0.0) << "floor particle " << first.id[i] << " below R";
        }
    }
    // At least the first layer of the floor between the side walls.
    const double floor_cells = (lx / dp - 2.0) * (c.dimension == 2 ? 1.0 : ly / dp - 2.0);
    EXPECT_GE(static_cast<double>(floor_normals), floor_cells - 1.0);

    sim->step();
    EXPECT_TRUE(sim->snapshot().normal.empty());
    EXPECT_TRUE(sim->begin_snapshot().get().normal.empty());

    c.physics.boundary = BoundaryKind::dbc;
    auto dbc = make_simulation(c, backend);
    EXPECT_TRUE(dbc->snapshot().normal.empty());
    EXPECT_TRUE(dbc->begin_snapshot().get().normal.empty());
}

TYPED_TEST(ModifiedWalls, FirstSnapshotShowsTheWallNormals) {
    {
        SCOPED_TRACE("2D still water");
        expect_wall_normals_in_first_snapshot(test::still_water_case(0.04), TypeParam::backend, 1.0,
                                              0.0);
    }
    {
        SCOPED_TRACE("3D dam break");
        expect_wall_normals_in_first_snapshot(test::small_dambreak_3d_case(0.02),
                                              TypeParam::backend, 0.4, 0.2);
    }
}

} // namespace
