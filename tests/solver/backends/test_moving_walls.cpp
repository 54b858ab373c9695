// Moving boundaries on every backend (physics/motion.h, the Motion and Damping passes,
// physics/forces.h):
// - kinematics: the wall particles of a moving object sit where its prescribed motion puts
//   them, within float rounding (a paddle that translates, then turns about a point; in 3D a
//   box turning about a tilted axis), with DBC and mDBC; a DBC wall's velocity is its object's;
// - the force on a wall in still water against hydrostatics, ½ ρ0 g H² per unit width (2 % at
//   dp = 0.02 m, falling with dp), and the tank's vertical load against the water's weight;
// - a damping zone slows the fluid inside it and leaves the fluid outside alone;
// - the CUDA backend against the CPU with moving walls (DBC, mDBC, Verlet, 3D) and their forces.

#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "case/force_plan.h"
#include "case/motion_table.h"
#include "case/particles.h"
#include "support/cases.h"
#include "support/state_difference.h"

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
class MovingWalls : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(MovingWalls, test::AllBackends, test::BackendName);

/// A 2D flume 2 m long with water 0.3 m deep and a paddle (obstacle 3 dp thick, 0.5 m high) at
/// its left end that moves 1 cm to the right at 0.2 m/s, then turns about its foot
/// sinusoidally (5 degrees, period 0.3 s).
Case paddle_case(double dp, BoundaryKind boundary) {
    Case c = test::tank_case_2d(dp, 2.0, 0.6, test::box(3.0 * dp, 0.0, 2.0, 0.3));
    c.physics.boundary = boundary;
    Obstacle paddle;
    paddle.box = test::box(0.0, 0.0, 3.0 * dp, 0.5);
    paddle.object.name = "paddle";
    Motion m;
    MotionSegment push;
    push.start = 0.0;
    push.end = 0.05;
    RectilinearMotion r;
    r.velocity = Eigen::Vector3d(0.2, 0.0, 0.0);
    push.motion = r;
    MotionSegment turn;
    turn.start = 0.05;
    SinusoidalRotation s;
    s.point = Eigen::Vector3d(0.01 + 1.5 * dp, 0.0, 0.0);
    s.amplitude = 5.0 * pi / 180.0;
    s.period = 0.3;
    turn.motion = s;
    m.segments = {push, turn};
    paddle.object.motion = m;
    c.obstacles.push_back(paddle);
    c.run.end_time = 1.0;
    return c;
}

/// A 3D tank with a box turning about a tilted axis through its centre (a rotation at
/// 90 degrees/s accelerating by 200 degrees/s²), DBC or mDBC.
Case turning_box_case(double dp, BoundaryKind boundary) {
    Case c = test::small_dambreak_3d_case(dp);
    c.physics.boundary = boundary;
    Obstacle box;
    box.box.min = Eigen::Vector3d(0.25, 0.06, 0.08);
    box.box.max = Eigen::Vector3d(0.33, 0.14, 0.16);
    box.object.name = "box";
    RotationMotion r;
    r.point = Eigen::Vector3d(0.29, 0.10, 0.12);
    r.axis = Eigen::Vector3d(0.3, 1.0, 0.5).normalized();
    r.angular_velocity = 90.0 * pi / 180.0;
    r.angular_acceleration = 200.0 * pi / 180.0;
    MotionSegment turn;
    turn.motion = r;
    box.object.motion = Motion{{turn}, 0};
    c.obstacles.push_back(box);
    c.run.end_time = 1.0;
    return c;
}

/// The force plan of the case's named objects (as `sluice run` makes it for forces.csv).
ForcePlan force_plan(const Case& c) {
    std::vector<ObjectIds> objects;
    (void)boundary_positions(c, &objects);
    return ForcePlan(c, objects);
}

/// The largest distance (m) between each moving wall particle of `s` and where its object's
/// motion puts it at s.time (evaluated in double on the host), and of its velocity (DBC only:
/// mDBC's is the fluid's mirror).
struct PathError {
    double position = 0.0, velocity = 0.0;
    std::size_t walls = 0;
};
PathError path_error(const Case& c, const Snapshot& s, bool velocities) {
    const MotionTables tables = make_motion_tables(c, c.run.end_time);
    std::vector<ObjectIds> objects;
    const std::vector<Eigen::Vector3d> reference = boundary_positions(c, &objects);
    std::vector<RigidState> states; // each object's at s.time
    for (std::uint32_t k = 0; k < objects.size(); ++k)
        states.push_back(object_state(tables, k, s.time));
    PathError e;
    for (std::size_t i = 0; i < s.size(); ++i) {
        for (std::uint32_t k = 0; k < objects.size(); ++k) {
            if (!tables.moves[k] || s.id[i] - objects[k].first >= objects[k].count)
                continue;
            const RigidState& st = states[k];
            const Eigen::Vector3d& x0 = reference[s.id[i]];
            Eigen::Vector3d x, v;
            for (int a = 0; a < 3; ++a)
                x[a] = st.pose.rotation[3 * a] * x0[0] + st.pose.rotation[3 * a + 1] * x0[1] +
                       st.pose.rotation[3 * a + 2] * x0[2] + st.pose.translation[a];
            const Eigen::Vector3d w(st.angular_velocity[0], st.angular_velocity[1],
                                    st.angular_velocity[2]);
            v = Eigen::Vector3d(st.velocity[0], st.velocity[1], st.velocity[2]) + w.cross(x);
            for (int a = 0; a < 3; ++a) {
                e.position = std::max(e.position, std::fabs(s.position[i][a] - x[a]));
                if (velocities)
                    e.velocity = std::max(e.velocity, std::fabs(s.velocity[i][a] - v[a]));
            }
            ++e.walls;
        }
    }
    return e;
}

/// Runs the case, checking the moving walls' path at 6 times; returns the worst errors.
PathError follow(const Case& c, Backend backend, double until) {
    auto sim = make_simulation(c, backend);
    PathError worst;
    const bool dbc = c.physics.boundary == BoundaryKind::dbc;
    for (int check = 0; check <= 5; ++check) {
        const double t = until * check / 5.0;
        while (sim->time() < t)
            sim->step();
        const PathError e = path_error(c, sim->snapshot(), dbc);
        worst.position = std::max(worst.position, e.position);
        worst.velocity = std::max(worst.velocity, e.velocity);
        worst.walls = e.walls;
    }
    return worst;
}

// Float rounding: a position is R x0 + T in float, |x| ≤ 2 m: a few ulp of 2 m (2.4e-7 each).
constexpr double position_rounding = 2e-6, velocity_rounding = 2e-6;

/// Both wall models of the case `make(dp, boundary)` follow their path for `until` seconds.
template <class MakeCase>
void expect_follows_path(MakeCase make, const char* what, Backend backend, double until) {
    for (BoundaryKind boundary : {BoundaryKind::dbc, BoundaryKind::mdbc}) {
        const PathError e = follow(make(0.02, boundary), backend, until);
        std::printf("%s, %s: %zu wall particles, largest position error %.3g m, velocity %.3g "
                    "m/s\n",
                    what, to_string(boundary), e.walls, e.position, e.velocity);
        EXPECT_GT(e.walls, 0u);
        EXPECT_LT(e.position, position_rounding) << to_string(boundary);
        EXPECT_LT(e.velocity, velocity_rounding) << to_string(boundary);
    }
}

TYPED_TEST(MovingWalls, PaddleFollowsItsPath2D) {
    expect_follows_path(paddle_case, "paddle 2D", TypeParam::backend, 0.2);
}

TYPED_TEST(MovingWalls, BoxFollowsItsTiltedRotation3D) {
    expect_follows_path(turning_box_case, "box 3D", TypeParam::backend, 0.1);
}

/// Still water 0.5 m deep in a tank 1 m wide whose right wall is a named obstacle ("wall") and
/// whose floor and left wall are the tank's ("tank"): the mean over 20 samples 10 ms apart after
/// 1 s of forces.csv's values.
struct WallLoads {
    double wall_fx = 0.0, total_fz = 0.0;
    double height = 0.0; ///< m: the water's, from its particles (12 rows of 0.04 m are 0.48 m)
};
WallLoads still_water_loads(double dp, BoundaryKind boundary, Backend backend,
                            FormulationKind formulation = FormulationKind::classical) {
    Case c = test::still_water_case(dp);
    c.physics.boundary = boundary;
    set_formulation(c.physics, formulation);
    c.tank->faces = face_bottom | face_left;
    c.tank->object.name = "tank";
    Obstacle wall;
    wall.box = test::box(1.0, -3.0 * dp, 1.0 + 3.0 * dp, 0.7);
    wall.object.name = "wall";
    c.obstacles.push_back(wall);
    const ForcePlan plan = force_plan(c);
    auto sim = make_simulation(c, backend);
    while (sim->time() < 1.0)
        sim->step();
    WallLoads mean;
    mean.height = static_cast<double>(sim->counts().fluid) * dp * dp / 1.0; // 1 m wide
    const int samples = 20;
    for (int k = 0; k < samples; ++k) {
        const double until = sim->time() + 0.01;
        while (sim->time() < until)
            sim->step();
        const std::vector<double> row = plan.evaluate(sim->sample_gauges(plan.request()));
        // columns: tank.Fx tank.Fz tank.My wall.Fx wall.Fz wall.My
        mean.wall_fx += row[3] / samples;
        mean.total_fz += (row[1] + row[4]) / samples;
    }
    return mean;
}

/// The still-water target: the horizontal force of the water on a wall equals
/// ½ ρ0 g H² per unit width within 2 % at the shipped resolution (dp = 0.02, 25 particles deep;
/// the 2D wall pressure test's resolution), nearer at 0.02 than at 0.04 (mDBC); H is the depth
/// the particles fill (12 rows at dp = 0.04 fill 0.48 m of the 0.5 m box). The floor and
/// walls together carry the water's weight ρ0 g H W (1 %: the pair forces are symmetric, so
/// this is the fluid's momentum balance at rest). DBC is printed beside it.
TYPED_TEST(MovingWalls, StillWaterForceOnAWall) {
    std::vector<double> error;
    for (double dp : {0.04, 0.02}) {
        const WallLoads m = still_water_loads(dp, BoundaryKind::mdbc, TypeParam::backend);
        const WallLoads d = still_water_loads(dp, BoundaryKind::dbc, TypeParam::backend);
        const double H = m.height, expected = 0.5 * rho0 * g * H * H, weight = rho0 * g * H;
        error.push_back(std::fabs(m.wall_fx - expected) / expected);
        std::printf("still water, dp = %.3f m, H = %.3f m: force on the wall %.1f N/m (mdbc, %+.2f "
                    "%%), %.1f "
                    "(dbc, %+.2f %%) against 1/2 rho0 g H^2 = %.1f; vertical load %.1f (mdbc), "
                    "%.1f (dbc) against the weight %.1f\n",
                    dp, H, m.wall_fx, 100.0 * (m.wall_fx / expected - 1.0), d.wall_fx,
                    100.0 * (d.wall_fx / expected - 1.0), expected, -m.total_fz, -d.total_fz,
                    weight);
        EXPECT_NEAR(-m.total_fz, weight, 0.01 * weight) << "dp = " << dp;
        EXPECT_NEAR(-d.total_fz, weight, 0.01 * weight) << "dp = " << dp;
    }
    EXPECT_LT(error[1], 0.02);
    // No worse at the finer spacing, beyond the 0.5 % of the samples' acoustic noise.
    EXPECT_LT(error[1], std::max(error[0], 0.005));
}

/// The force on a body with the Riemann terms (physics/forces.h: the solver's p* on each wall
/// particle's pairs) against the same ½ ρ0 g H² and weight, at the shipped resolution.
TYPED_TEST(MovingWalls, StillWaterForceOnAWallWithRiemann) {
    const double dp = 0.02;
    const WallLoads m =
        still_water_loads(dp, BoundaryKind::mdbc, TypeParam::backend, FormulationKind::riemann);
    const double H = m.height, expected = 0.5 * rho0 * g * H * H, weight = rho0 * g * H;
    std::printf("still water, Riemann, dp = %.3f m, H = %.3f m: force on the wall %.1f N/m "
                "(%+.2f %%) against %.1f; vertical load %.1f against the weight %.1f\n",
                dp, H, m.wall_fx, 100.0 * (m.wall_fx / expected - 1.0), expected, -m.total_fz,
                weight);
    EXPECT_NEAR(m.wall_fx, expected, 0.02 * expected);
    EXPECT_NEAR(-m.total_fz, weight, 0.01 * weight);
}

/// Two blocks of fluid moving at 0.5 m/s without gravity, one left of a damping zone (β =
/// 10 1/s over 0.5 m from x = 1), one beyond its end (f = 1): a uniform velocity compresses
/// nothing, so after 0.1 s the block in the zone moves at exactly 0.5 Π(1 − dt β) and the other
/// at 0.5 m/s, to float rounding (1e-5 relative).
TYPED_TEST(MovingWalls, DampingZoneSlowsTheFluid) {
    Case c;
    c.name = "damping";
    c.dimension = 2;
    c.dp = 0.02;
    c.constants.gravity = 0.0;
    c.constants.speed_of_sound = 10.0;
    for (double x0 : {0.0, 1.6}) {
        FluidRegion fluid;
        fluid.box = test::box(x0, 0.0, x0 + 0.4, 0.2);
        fluid.velocity = Eigen::Vector3d(0.5, 0.0, 0.0);
        c.fluids.push_back(fluid);
    }
    DampingZone zone;
    zone.start = Eigen::Vector3d(1.0, 0.0, 0.0);
    zone.end = Eigen::Vector3d(1.5, 0.0, 0.0);
    zone.reduction = 10.0;
    c.damping.push_back(zone);
    c.domain = test::box(-0.5, -0.5, 3.0, 0.7);
    auto sim = make_simulation(c, TypeParam::backend);
    double decay = 1.0;
    while (sim->time() < 0.1) {
        sim->step();
        decay *= 1.0 - static_cast<float>(sim->last_dt()) * 10.0f;
    }
    const Snapshot s = sim->snapshot();
    double inside_min = HUGE_VAL, inside_max = 0.0, outside_min = HUGE_VAL, outside_max = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const double v = s.velocity[i][0];
        if (s.position[i][0] > 1.5) {
            inside_min = std::min(inside_min, v);
            inside_max = std::max(inside_max, v);
        } else {
            outside_min = std::min(outside_min, v);
            outside_max = std::max(outside_max, v);
        }
    }
    std::printf("damping zone: %.6f .. %.6f m/s inside against %.6f, %.6f .. %.6f before it\n",
                inside_min, inside_max, 0.5 * decay, outside_min, outside_max);
    EXPECT_NEAR(inside_min, 0.5 * decay, 1e-5 * 0.5);
    EXPECT_NEAR(inside_max, 0.5 * decay, 1e-5 * 0.5);
    EXPECT_NEAR(outside_min, 0.5, 1e-5 * 0.5);
    EXPECT_NEAR(outside_max, 0.5, 1e-5 * 0.5);
}

template <class TagT>
class MovingWallsAgreement : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(MovingWallsAgreement, test::BackendsBesidesCpu, test::BackendName);

/// As test_backend_agreement.cpp's checks (its tolerances and their reasons), with moving walls;
/// the forces of both backends' samples within 1 % of the largest force component: a force sums
/// pressures p = B((ρ/ρ0)^γ − 1) of both faces of an object, which differ far more than the
/// densities do (c0² = 1200 m²/s² here: the density bound's 1e-4 ρ0 is 120 Pa), and the GPU adds
/// them in another order (double atomics).
void expect_agreement(const Case& c, int steps, const char* what, Backend backend) {
    auto cpu = make_simulation(c, Backend::cpu);
    auto other = make_simulation(c, backend);
    for (int k = 0; k < steps; ++k) {
        cpu->step();
        other->step();
    }
    const test::Difference d = test::difference(cpu->snapshot(), other->snapshot());
    const ForcePlan plan = force_plan(c);
    const std::vector<double> a = plan.evaluate(cpu->sample_gauges(plan.request()));
    const std::vector<double> b = plan.evaluate(other->sample_gauges(plan.request()));
    double scale = 0.0, force = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        scale = std::max(scale, std::fabs(a[k]));
        force = std::max(force, std::fabs(a[k] - b[k]));
    }
    std::printf("%s: CPU vs %s after %d steps (t = %.4f s): max |dx| = %.3g dp, |dv| = %.3g m/s, "
                "|drho| = %.3g kg/m3; forces differ by %.3g of %.3g\n",
                what, other->backend_name().c_str(), steps, cpu->time(), d.dx / c.dp, d.dv, d.drho,
                force, scale);
    EXPECT_LT(d.dx, 1e-3 * c.dp) << what;
    EXPECT_LT(d.dv, 1e-4 * std::sqrt(g * 0.3)) << what;
    EXPECT_LT(d.drho, 1e-4 * rho0) << what;
    EXPECT_LE(force, 1e-2 * scale) << what;
}

TYPED_TEST(MovingWallsAgreement, AgreesWithCpu) {
    expect_agreement(paddle_case(0.02, BoundaryKind::dbc), 200, "paddle 2D, dbc",
                     TypeParam::backend);
    expect_agreement(paddle_case(0.02, BoundaryKind::mdbc), 200, "paddle 2D, mdbc",
                     TypeParam::backend);
    Case verlet = paddle_case(0.02, BoundaryKind::dbc);
    verlet.physics.integrator = IntegratorKind::verlet;
    expect_agreement(verlet, 200, "paddle 2D, dbc, verlet", TypeParam::backend);
    expect_agreement(turning_box_case(0.02, BoundaryKind::dbc), 100, "turning box 3D, dbc",
                     TypeParam::backend);
    expect_agreement(turning_box_case(0.02, BoundaryKind::mdbc), 100, "turning box 3D, mdbc",
                     TypeParam::backend);
}

} // namespace
