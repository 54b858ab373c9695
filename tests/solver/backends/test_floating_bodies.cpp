// Floating bodies on every backend (physics/rigid_body.h, the BodyLoads and Motion passes):
// - kinematics without water: a 2D body in air on a damped spring against the oscillator's
//   closed form (1e-6 of its amplitude), a 3D symmetric body spinning about a non-principal axis
//   against free precession (1e-6);
// - Archimedes (mDBC): a 2D box of density 500 released 0.02 m too high floats at the draft of
//   Archimedes (its mean over the third second within dp/4, at two resolutions, converging);
//   with the fluid's mean vertical force on it within 1 % of its weight; a 3D box likewise
//   (GPU only: minutes per resolution on two cores);
//   one of density 1000 released under water neither rises nor sinks by more than dp/4 in 2 s;
//   one of density 1200 sinks to the floor and rests on it, its contacts holding it there;
// - a restart continues a body exactly as the run would have (CPU), and the CUDA backend agrees
//   with the CPU's.

#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "case/body_table.h"
#include "support/cases.h"

#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

using namespace sluice;

namespace {

constexpr double g = 9.81, rho0 = 1000.0, pi = 3.14159265358979323846;

template <class TagT>
class FloatingBodies : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(FloatingBodies, test::AllBackends, test::BackendName);

FloatingSample body_now(Simulation& sim) {
    GaugeRequest r;
    r.floating = true;
    return sim.sample_gauges(r).floating.at(0);
}

/// Runs until t ≥ end, calling each(sim) after every step.
template <class F>
void run_until(Simulation& sim, double end, F&& each) {
    while (sim.time() < end) {
        sim.step();
        each(sim);
    }
}

/// A puddle of water (its own floor only) beside the body in air: the fluid's step without its
/// forces on the body. c0 = 60 m/s keeps dt near 1e-4 s.
void air_around(Case& c) {
    c.constants.speed_of_sound = 60.0;
}

/// A 2D tank 1 m wide with a puddle in its left corner and, far from it, a 0.1 × 0.1 m body of
/// 2 kg/m that only heaves, hanging from a spring (k = 2 · (2π)² N/m: 1 Hz; c = 0.4 N·s/m)
/// anchored 0.3 m above its centre, rest length 0.25 m: the body starts 0.05 m too high.
Case spring_in_air_case() {
    Case c = test::tank_case_2d(0.02, 1.0, 1.0, test::box(0.0, 0.0, 0.2, 0.1));
    air_around(c);
    Obstacle o;
    o.box = test::box(0.6, 0.5, 0.7, 0.6);
    o.object.name = "bob";
    Floating f;
    f.mass = 2.0;
    f.fixed = fixed_x | fixed_ry; // heave only
    FloatingSpring s;
    s.point = Eigen::Vector3d(0.65, 0.0, 0.55);
    s.anchor = Eigen::Vector3d(0.65, 0.0, 0.85);
    s.stiffness = 2.0 * 4.0 * pi * pi;
    s.damping = 0.4;
    s.rest_length = 0.25;
    f.springs = {s};
    o.object.floating = f;
    c.obstacles.push_back(o);
    c.run.end_time = 3.0;
    return c;
}

TYPED_TEST(FloatingBodies, SpringInAirMatchesTheDampedOscillator) {
    const Case c = spring_in_air_case();
    auto sim = make_simulation(c, TypeParam::backend);
    const double m = 2.0, k = 2.0 * 4.0 * pi * pi, damping = 0.4;
    const double omega = std::sqrt(k / m), zeta = damping / (2.0 * std::sqrt(k * m));
    const double wd = omega * std::sqrt(1.0 - zeta * zeta);
    const double z_eq = 0.85 - 0.25 - m * g / k, a = 0.55 - z_eq, b = zeta * omega * a / wd;
    double worst = 0.0;
    run_until(*sim, 3.0, [&](Simulation& s) {
        const double t = s.time();
        const double exact =
            z_eq + std::exp(-zeta * omega * t) * (a * std::cos(wd * t) + b * std::sin(wd * t));
        worst = std::max(worst, std::abs(body_now(s).center[2] - exact));
    });
    // Three periods at the fluid's dt (≈ 1e-4 s, ω dt ≈ 6e-4): the scheme's phase error,
    // (ω dt)²/24 per radian, is 3e-7 of the amplitude over 19 radians.
    EXPECT_LT(worst / std::abs(a), 1e-6) << "worst " << worst << " m";
}

TYPED_TEST(FloatingBodies, SpinningBodyPrecessesFreely) {
    // A 3D body in air above a puddle on a floor (no walls but the floor, few particles): a
    // symmetric top (I1 = I2 = 2 I3) spun about no principal axis, its centre held (gravity acts
    // at the centre: no torque). Precession |L|/I1 = 1.9 rad/s and spin 1.5 rad/s: 6 s are
    // two precession periods.
    Case c = test::tank_case_3d(0.02, {0.2, 0.2, 1.0}, {0.06, 0.06, 0.04}, {-0.1, -0.1, -0.1},
                                {0.3, 0.3, 0.8});
    c.tank->faces = face_bottom;
    air_around(c);
    Obstacle o;
    o.box.min = Eigen::Vector3d(0.1, 0.1, 0.5);
    o.box.max = Eigen::Vector3d(0.18, 0.18, 0.58);
    o.object.name = "top";
    Floating f;
    f.mass = 1.0;
    f.inertia = Eigen::Vector3d(2e-3, 2e-3, 1e-3).asDiagonal();
    f.fixed = fixed_x | fixed_y | fixed_z;
    f.angular_velocity = Eigen::Vector3d(1.0, 0.5, 3.0);
    o.object.floating = f;
    c.obstacles.push_back(o);
    c.run.end_time = 6.0;
    auto sim = make_simulation(c, TypeParam::backend);
    const Eigen::Vector3d l = *f.inertia * f.angular_velocity;
    double worst = 0.0, energy_drift = 0.0;
    const double energy0 = 0.5 * f.angular_velocity.dot(l);
    run_until(*sim, 6.0, [&](Simulation& s) {
        const FloatingSample b = body_now(s);
        const double t = s.time();
        const Eigen::Matrix3d exact =
            Eigen::AngleAxisd(l.norm() / 2e-3 * t, l.normalized()).toRotationMatrix() *
            Eigen::AngleAxisd((1.0 / 1e-3 - 1.0 / 2e-3) * l.z() * t, Eigen::Vector3d::UnitZ())
                .toRotationMatrix();
        const Eigen::Quaterniond q(b.orientation[0], b.orientation[1], b.orientation[2],
                                   b.orientation[3]);
        worst = std::max(worst, (q.toRotationMatrix() - exact).norm());
        const Eigen::Vector3d w(b.angular_velocity[0], b.angular_velocity[1],
                                b.angular_velocity[2]);
        const Eigen::Matrix3d r = q.toRotationMatrix();
        const double e = 0.5 * w.dot(r * *f.inertia * r.transpose() * w);
        energy_drift = std::max(energy_drift, std::abs(e / energy0 - 1.0));
    });
    // (ω dt)²/24 per radian at ω dt ≈ 4e-4 over 19 radians: 1.3e-7.
    EXPECT_LT(worst, 1e-6);
    // The kinetic energy of the free rotation: kept to the scheme's O(dt²), 1e-8 stated.
    EXPECT_LT(energy_drift, 1e-8);
}

/// Water 0.3 m deep in a tank 0.8 m wide, a 0.2 × 0.1 m box (density `density`) above its
/// middle with its bottom `release` m below the water's surface, the water around and below it.
Case box_in_water_case(double dp, double density, double release) {
    const double depth = 0.3, bottom = depth - release;
    Case c = test::still_water_case(dp);
    c.tank->box.max = Eigen::Vector3d(0.8, 0.0, 0.6);
    c.fluids.clear();
    for (const Box& b : {test::box(0.0, 0.0, 0.3, depth), test::box(0.5, 0.0, 0.8, depth),
                         test::box(0.3, 0.0, 0.5, bottom)}) {
        FluidRegion r;
        r.box = b;
        c.fluids.push_back(r);
    }
    // mDBC: DBC's gap of about dp/2 between water and wall makes a body displace more than its
    // volume (at dp = 0.02 m a box of density 1200 floats on it).
    c.physics.boundary = BoundaryKind::mdbc;
    Obstacle o;
    o.box = test::box(0.3, bottom, 0.5, bottom + 0.1);
    o.object.name = "box";
    Floating f;
    f.density = density;
    o.object.floating = f;
    c.obstacles.push_back(o);
    c.domain = test::box(-0.2, -0.2, 1.0, 0.8);
    return c;
}

/// The box's centre once it floats: the water's surface rises by what the body displaces
/// (volume conserved), the draft is M / (ρ0 · 0.2 m).
double archimedes_centre(const Case& c, double density) {
    const ParticleSet p = generate_particles(c);
    const double water = static_cast<double>(p.fluid_count) * c.dp * c.dp; // m² per m of width
    const double draft = density * 0.1 / rho0;
    const double level = (water + 0.2 * draft) / 0.8;
    return level - draft + 0.05;
}

/// A released body's mean centre height and vertical fluid force over t = 2-3.6 s (two periods
/// of its heave, 0.8 s: the level it oscillates about), and its largest distance from `expected`.
struct Settled {
    double centre = 0.0, lift = 0.0, worst = 0.0;
};

Settled settle(Simulation& sim, double expected) {
    Settled r;
    int samples = 0;
    run_until(sim, 3.6, [&](Simulation& s) {
        if (s.time() < 2.0)
            return;
        const FloatingSample b = body_now(s);
        r.centre += b.center[2];
        r.lift += b.fluid_force[2];
        r.worst = std::max(r.worst, std::abs(b.center[2] - expected));
        ++samples;
    });
    r.centre /= samples;
    r.lift /= samples;
    return r;
}

TYPED_TEST(FloatingBodies, LightBoxSettlesAtTheDraftOfArchimedes) {
    for (const double dp : {0.02, 0.0125}) {
        SCOPED_TRACE("dp " + std::to_string(dp));
        Case c = box_in_water_case(dp, 500.0, 0.03); // released at draft 0.03, floats at 0.05
        auto sim = make_simulation(c, TypeParam::backend);
        const double expected = archimedes_centre(c, 500.0);
        const Settled settled = settle(*sim, expected);
        const double mean = settled.centre, worst = settled.worst;
        // The water carries the body's weight (500 kg/m³ × 0.02 m² × g per m) within 1 %.
        const double weight = 500.0 * 0.02 * g;
        EXPECT_NEAR(settled.lift, weight, 0.01 * weight);
        // Its mean within dp/4 of Archimedes, and the heave of the release, weakly damped in a
        // closed tank (its waves come back), within dp of it.
        EXPECT_NEAR(mean, expected, dp / 4.0);
        EXPECT_LT(worst, dp) << "mean " << mean << " expected " << expected;
        std::printf("dp %g: centre %.5f m (mean over 2-3.6 s), Archimedes %.5f m, "
                    "largest excursion %.5f m\n",
                    dp, mean, expected, worst);
    }
}

TYPED_TEST(FloatingBodies, NeutralBoxStaysWhereItIsReleased) {
    const double dp = 0.02;
    Case c = box_in_water_case(dp, 1000.0, 0.2); // its bottom 0.1 m up, its top 0.1 m under
    FluidRegion above;
    above.box = test::box(0.3, 0.2, 0.5, 0.3);
    c.fluids.push_back(above);
    auto sim = make_simulation(c, TypeParam::backend);
    double worst = 0.0;
    run_until(*sim, 2.0, [&](Simulation& s) {
        worst = std::max(worst, std::abs(body_now(s).center[2] - 0.15));
    });
    std::printf("neutral box: largest excursion %.5f m in 2 s (dp/4 = %.4f m)\n", worst, dp / 4.0);
    EXPECT_LT(worst, dp / 4.0);
}

/// Water 0.25 m deep in a 3D tank 0.6 × 0.6 m, a 0.2 × 0.2 × 0.1 m box of density 500 at its
/// middle with its bottom 0.03 m under the surface (it floats at 0.05), the water around it.
Case box_in_water_3d(double dp) {
    const double depth = 0.25, bottom = depth - 0.03;
    Case c =
        test::tank_case_3d(dp, Eigen::Vector3d(0.6, 0.6, 0.4), Eigen::Vector3d(0.2, 0.6, depth),
                           Eigen::Vector3d(-0.2, -0.2, -0.2), Eigen::Vector3d(0.8, 0.8, 0.6));
    c.constants.coef_sound = 20.0;
    c.physics.kernel = KernelKind::wendland_c2;
    c.physics.viscosity = ViscosityKind::artificial;
    c.physics.viscosity_value = 0.01;
    c.physics.diffusion = DensityDiffusionKind::fourtakas;
    c.physics.boundary = BoundaryKind::mdbc;
    const auto region = [&](double x0, double y0, double z0, double x1, double y1, double z1) {
        FluidRegion r;
        r.box.min = Eigen::Vector3d(x0, y0, z0);
        r.box.max = Eigen::Vector3d(x1, y1, z1);
        c.fluids.push_back(r);
    };
    region(0.4, 0.0, 0.0, 0.6, 0.6, depth);
    region(0.2, 0.0, 0.0, 0.4, 0.2, depth);
    region(0.2, 0.4, 0.0, 0.4, 0.6, depth);
    region(0.2, 0.2, 0.0, 0.4, 0.4, bottom);
    Obstacle o;
    o.box.min = Eigen::Vector3d(0.2, 0.2, bottom);
    o.box.max = Eigen::Vector3d(0.4, 0.4, bottom + 0.1);
    o.object.name = "box";
    Floating f;
    f.density = 500.0;
    o.object.floating = f;
    c.obstacles.push_back(o);
    return c;
}

TYPED_TEST(FloatingBodies, LightBoxSettlesAtTheDraftOfArchimedesIn3D) {
    if (TypeParam::backend == Backend::cpu)
        GTEST_SKIP() << "3D runs on the GPU: 3.6 s at dp = 0.02 m took over 8 minutes on CI's two "
                        "cores (the 2D box above is the CPU's check)";
    for (const double dp : {0.02, 0.0125}) {
        SCOPED_TRACE("dp " + std::to_string(dp));
        const Case c = box_in_water_3d(dp);
        const ParticleSet p = generate_particles(c);
        const double water = static_cast<double>(p.fluid_count) * dp * dp * dp; // m³
        const double draft = 0.05;
        const double expected = (water + 0.04 * draft) / 0.36 - draft + 0.05;
        auto sim = make_simulation(c, TypeParam::backend);
        const Settled settled = settle(*sim, expected);
        const double weight = 500.0 * 0.004 * g; // N
        std::printf("3D, dp %g: centre %.5f m (mean over 2-3.6 s), Archimedes %.5f m; lift %.3f N "
                    "for a weight of %.3f N\n",
                    dp, settled.centre, expected, settled.lift, weight);
        EXPECT_NEAR(settled.centre, expected, dp / 4.0);
        EXPECT_NEAR(settled.lift, weight, 0.01 * weight);
    }
}

TYPED_TEST(FloatingBodies, HeavyBoxSinksAndRestsOnTheFloor) {
    const double dp = 0.02;
    const Case c = box_in_water_case(dp, 1200.0, 0.1);
    auto sim = make_simulation(c, TypeParam::backend);
    double lowest = 1.0;
    run_until(*sim, 3.0, [&](Simulation& s) { lowest = std::min(lowest, body_now(s).center[2]); });
    const FloatingSample b = body_now(*sim);
    // On the floor (z = 0): the box's particles rest about dp above the floor's first layer
    // (dp/2 below z = 0), its centre 0.05 m up; the contacts' overlap is a small part of dp.
    EXPECT_NEAR(b.center[2], 0.05, dp / 4.0);
    EXPECT_GT(lowest, 0.05 - dp / 4.0); // never through
    EXPECT_LT(std::abs(b.velocity[2]), 0.01);
    EXPECT_GT(b.contact_force[2], 0.0); // the floor holds it
}

TEST(FloatingBodiesRestart, ContinuesExactlyOnTheCpu) {
    const Case c = box_in_water_case(0.02, 500.0, 0.03);
    auto whole = make_simulation(c, BackendOptions{});
    auto first = make_simulation(c, BackendOptions{});
    run_until(*first, 0.05, [](Simulation&) {});
    auto second = make_simulation(c, BackendOptions{}, first->save_state());
    while (whole->steps() < first->steps() + 40)
        whole->step();
    while (second->steps() < first->steps() + 40)
        second->step();
    const FloatingSample a = body_now(*whole), b = body_now(*second);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(a.center[k], b.center[k]);
        EXPECT_EQ(a.velocity[k], b.velocity[k]);
    }
    for (int k = 0; k < 4; ++k)
        EXPECT_EQ(a.orientation[k], b.orientation[k]);
}

TEST(FloatingBodiesAgreement, CudaAgreesWithCpu) {
    if (!test::backend_runs_here(Backend::cuda))
        GTEST_SKIP() << "no CUDA device";
    const Case c = box_in_water_case(0.02, 500.0, 0.03);
    auto cpu = make_simulation(c, BackendOptions{});
    BackendOptions cuda_options;
    cuda_options.backend = Backend::cuda;
    auto cuda = make_simulation(c, cuda_options);
    run_until(*cpu, 0.3, [](Simulation&) {});
    run_until(*cuda, 0.3, [](Simulation&) {});
    const FloatingSample a = body_now(*cpu), b = body_now(*cuda);
    // Rounding-level differences of the pair terms (fast-math, atomics) grow in 0.3 s of a body
    // falling 2 cm into water; within a hundredth of dp.
    EXPECT_NEAR(a.center[0], b.center[0], 2e-4);
    EXPECT_NEAR(a.center[2], b.center[2], 2e-4);
    EXPECT_NEAR(a.fluid_force[2], b.fluid_force[2], 0.05 * std::abs(a.fluid_force[2]) + 1.0);
}

} // namespace
