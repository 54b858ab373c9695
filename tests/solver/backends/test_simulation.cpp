// Whole-simulation tests through make_simulation, run on the CPU backend: hydrostatics (both
// integrators, 2D and 3D, with gauges), free fall, a run-away density, the CUDA backend where it
// is unavailable. The checks every backend runs are typed tests (test_backend_checks.cpp,
// test_backend_agreement.cpp); what only the CPU backend promises (bit-for-bit determinism and
// restarts) is in cpu/test_cpu_backend.cpp.

#include "backends/backend_checks.h"
#include "backends/backend_options.h"
#include "backends/simulation.h"
#include "case/case_reader.h"
#include "case/gauge_plan.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace sluice;
using sluice::test::box;

namespace {

constexpr double g = 9.81, rho0 = 1000.0;

void run_until(Simulation& sim, double t) {
    while (sim.time() < t)
        sim.step();
}

double max_fluid_speed(const Snapshot& s) {
    double v = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s.type[i] == ParticleType::fluid)
            v = std::max<double>(v,
                                 std::hypot(s.velocity[i][0], s.velocity[i][1], s.velocity[i][2]));
    return v;
}

/// Still water 0.5 m deep in a 1 m wide tank: the shipped cases/still_water2d.xml, run for
/// `duration`.
///
/// Bottom pressure: the mean pressure of the fluid particles in the two lowest layers
/// (z < 2dp), corrected to the floor with the hydrostatic gradient of their mean height,
/// p_bottom = mean(p) + ρ0·g·mean(z); expected ρ0·g·H with H = 0.5 m, the initial depth (the
/// weight of the water per unit floor length does not change).
void check_still_water(IntegratorKind integrator, double duration) {
    const double depth = 0.5;
    Case c = read_case(std::string(SLUICE_CASES_DIR) + "/still_water2d.xml");
    const double dp = c.dp;
    ASSERT_EQ(dp, 0.02);
    ASSERT_EQ(c.fluids[0].box.max.z(), depth);
    c.physics.integrator = integrator;
    auto sim = make_simulation(c, Backend::cpu);
    run_until(*sim, duration);
    const Snapshot s = sim->snapshot();

    double p_sum = 0.0, z_sum = 0.0;
    int bottom = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.type[i] != ParticleType::fluid)
            continue;
        const auto& x = s.position[i];
        // No particle outside the tank (inside [0, 1] × [0, 0.7] m).
        ASSERT_TRUE(x[0] > 0.0f && x[0] < 1.0f && x[2] > 0.0f && x[2] < 0.7f)
            << "fluid particle " << s.id[i] << " at x = " << x[0] << ", z = " << x[2];
        if (x[2] < 2.0 * dp) {
            p_sum += s.pressure[i];
            z_sum += x[2];
            ++bottom;
        }
    }
    ASSERT_EQ(bottom, 2 * 50);
    const double p_bottom = p_sum / bottom + rho0 * g * z_sum / bottom;
    const double expected = rho0 * g * depth;
    const double speed = max_fluid_speed(s);
    std::printf("still water (%s) after %.2f s, %llu steps: bottom pressure %.1f Pa, expected "
                "%.1f Pa, error %+.2f %%; max speed %.4f m/s = %.2f %% of sqrt(gH)\n",
                to_string(integrator), sim->time(), static_cast<unsigned long long>(sim->steps()),
                p_bottom, expected, 100.0 * (p_bottom / expected - 1.0), speed,
                100.0 * speed / std::sqrt(g * depth));
    EXPECT_NEAR(p_bottom, expected, 0.03 * expected);
    EXPECT_LT(speed, 0.01 * std::sqrt(g * depth));

    // The case's own gauges: the level within dp/4, pressures within 2 % of ρ0·g·d.
    const GaugePlan plan(c, sim->constants().support);
    const std::vector<double> v = plan.evaluate(sim->sample_gauges(plan.request()));
    ASSERT_EQ(plan.columns().size(), 6u); // level, d010 (p, vx, vz), d025, d040
    std::printf("gauges: level %.4f m; p at 0.1, 0.25, 0.4 m: %.1f, %.1f, %.1f Pa "
                "(rho0 g d: %.1f, %.1f, %.1f)\n",
                v[0], v[1], v[4], v[5], rho0 * g * 0.1, rho0 * g * 0.25, rho0 * g * 0.4);
    EXPECT_NEAR(v[0], depth, 0.25 * dp);
    EXPECT_NEAR(v[1], rho0 * g * 0.1, 0.02 * rho0 * g * 0.1);
    EXPECT_NEAR(v[4], rho0 * g * 0.25, 0.02 * rho0 * g * 0.25);
    EXPECT_NEAR(v[5], rho0 * g * 0.4, 0.02 * rho0 * g * 0.4);
    EXPECT_LT(std::hypot(v[2], v[3]), 0.01 * std::sqrt(g * depth));
    EXPECT_EQ(sim->counts().excluded, 0u);
    EXPECT_EQ(sim->counts().fluid, 50u * 25u);
}

TEST(StillWater, SymplecticStaysHydrostatic) {
    check_still_water(IntegratorKind::symplectic, 2.0);
}

TEST(StillWater, VerletStaysHydrostatic) {
    check_still_water(IntegratorKind::verlet, 1.5);
}

/// One fluid particle with no neighbours falls freely: both schemes integrate a constant
/// acceleration exactly (z = z0 − g t²/2 up to float rounding), and dt follows the force limit.
TEST(Simulation, FreeFallIsExact) {
    for (IntegratorKind integrator : {IntegratorKind::symplectic, IntegratorKind::verlet}) {
        Case c;
        c.dimension = 2;
        c.dp = 0.01;
        FluidRegion drop;
        drop.box = box(0.0, 0.99, 0.01, 1.0);
        c.fluids = {drop};
        c.domain = box(-1.0, -1.0, 1.0, 1.5);
        c.physics.integrator = integrator;
        c.constants.speed_of_sound = 10.0;
        auto sim = make_simulation(c, Backend::cpu);
        const double h = sim->constants().h;
        for (int k = 0; k < 200; ++k) {
            sim->step();
            ASSERT_NEAR(sim->last_dt(), 0.2 * std::min(std::sqrt(h / g), h / 10.0), 1e-9);
        }
        const Snapshot s = sim->snapshot();
        const double t = sim->time();
        EXPECT_NEAR(s.position[0][2], 0.995 - 0.5 * g * t * t, 2e-5) << to_string(integrator);
        EXPECT_NEAR(s.velocity[0][2], -g * t, 1e-4) << to_string(integrator);
        // No neighbours: continuity leaves the initial (hydrostatic, 5 mm deep) density.
        EXPECT_EQ(s.density[0], make_simulation(c, Backend::cpu)->snapshot().density[0]);
    }
}

TEST(Simulation, TinySpeedOfSoundFails) {
    Case c = test::dambreak_case(0.04);
    c.constants.coef_sound = 0.5; // c0 ≈ 3 m/s, below the flow speed: density runs away
    test::expect_failure(c, 5000, Backend::cpu);
}

/// 3D still water in a small tank (exercises the 3D instantiations end to end): hydrostatic
/// bottom pressure (measured as in check_still_water) and no flow. At 5 particles per depth the
/// free-surface particle in each corner between two walls sinks into the corner at up to 2.5 %
/// of sqrt(gH) in the first 0.1 s (a DBC corner transient that then decays), hence 5 % here.
TEST(Simulation, StillWater3D) {
    Case c = test::tank_case_3d(0.02, {0.2, 0.2, 0.2}, {0.2, 0.2, 0.1}, {-0.1, -0.1, -0.1},
                                {0.3, 0.3, 0.3});
    c.physics.diffusion = DensityDiffusionKind::fourtakas;
    auto sim = make_simulation(c, Backend::cpu);
    EXPECT_EQ(sim->counts().fluid, 10u * 10u * 5u);
    EXPECT_EQ(sim->counts().boundary, 16u * 16u * 13u - 1000u);
    run_until(*sim, 0.1);
    const Snapshot s = sim->snapshot();
    double p_sum = 0.0, z_sum = 0.0;
    int bottom = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s.type[i] == ParticleType::fluid && s.position[i][2] < 2.0f * 0.02f) {
            p_sum += s.pressure[i];
            z_sum += s.position[i][2];
            ++bottom;
        }
    ASSERT_EQ(bottom, 2 * 100);
    EXPECT_NEAR(p_sum / bottom + rho0 * g * z_sum / bottom, rho0 * g * 0.1, 0.03 * rho0 * g * 0.1);
    EXPECT_LT(max_fluid_speed(s), 0.05 * std::sqrt(g * 0.1));
    EXPECT_EQ(sim->counts().excluded, 0u);
}

TEST(Simulation, StillWater3DGauges) {
    // 0.3 m of water at rest in a 3D tank: a height gauge reads the level within dp/4 and probes
    // read ρ0·g·d within 2 % once the start-up pressure waves have settled.
    const double dp = 0.03, depth = 0.3;
    Case c = test::tank_case_3d(dp, {0.39, 0.39, 0.45}, {0.39, 0.39, depth}, {-0.15, -0.15, -0.15},
                                {0.55, 0.55, 0.6});
    c.name = "still3d";
    c.physics.diffusion = DensityDiffusionKind::fourtakas;
    c.gauges.interval = 0.05;
    auto gauge = [](GaugeKind kind, const char* name, double x, double y, double z) {
        Gauge g;
        g.kind = kind;
        g.name = name;
        g.point = Eigen::Vector3d(x, y, z);
        g.fields = {ProbeField::pressure};
        return g;
    };
    c.gauges.gauges = {gauge(GaugeKind::height, "level", 0.195, 0.195, 0),
                       gauge(GaugeKind::probe, "mid", 0.195, 0.195, 0.15),
                       gauge(GaugeKind::probe, "deep", 0.195, 0.195, 0.075),
                       gauge(GaugeKind::probe, "air", 0.195, 0.195, 0.45)};
    auto sim = make_simulation(c, Backend::cpu);
    run_until(*sim, 0.3);
    const GaugePlan plan(c, sim->constants().support);
    const std::vector<double> v = plan.evaluate(sim->sample_gauges(plan.request()));
    std::printf("3D gauges after %.2f s: level %.4f m; p at 0.15, 0.225 m depth: %.1f, %.1f Pa "
                "(rho0 g d: %.1f, %.1f)\n",
                sim->time(), v[0], v[1], v[2], rho0 * g * 0.15, rho0 * g * 0.225);
    EXPECT_NEAR(v[0], depth, 0.25 * dp);
    EXPECT_NEAR(v[1], rho0 * g * 0.15, 0.02 * rho0 * g * 0.15);
    EXPECT_NEAR(v[2], rho0 * g * 0.225, 0.02 * rho0 * g * 0.225);
    EXPECT_TRUE(std::isnan(v[3])) << "a probe with no fluid in reach reads empty, not " << v[3];
}

TEST(Simulation, CudaBackendWithoutADeviceIsAClearError) {
    if (cuda_device_available())
        GTEST_SKIP() << "a CUDA device is present (cuda/test_cuda_backend.cpp covers it)";
    const Case c = test::still_water_case(0.04);
    try {
        make_simulation(c, Backend::cuda);
        FAIL() << "expected BackendUnavailable";
    } catch (const BackendUnavailable& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA backend is not available"), std::string::npos);
    }
}

} // namespace
