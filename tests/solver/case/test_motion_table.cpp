// The motion tables of cases built in code (case/motion_table.h): segments in sequence compose,
// each segment kind moves the object as its formula says (sinusoids return after a period,
// tables interpolate linearly and hold at their ends, a wave maker's paddle follows
// paddle_motion under its ramp), the speed bound bounds the sampled speeds of the object's box
// without being loose, the swept box holds every pose of the box, the first domain exit is found
// near its analytic time, and per boundary id the moving object and its reference position
// follow the particle generator's id ranges (case/particles.h).

#include "case/motion_table.h"

#include "case/motion_bounds.h"

#include "case/geometry_checks.h"
#include "case/particles.h"
#include "case/shapes.h"
#include "case/wave_maker.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {
namespace {

using Eigen::Vector3d;
using test::box;

constexpr double pi = 3.14159265358979323846;
constexpr double endless = std::numeric_limits<double>::infinity();

MotionSegment segment(double start, double end, SegmentMotion m) {
    MotionSegment s;
    s.start = start;
    s.end = end;
    s.motion = std::move(m);
    return s;
}

Obstacle obstacle(const Box& b, std::vector<MotionSegment> segments = {}) {
    Obstacle o;
    o.box = b;
    o.shape = BoxShape{};
    if (!segments.empty()) {
        Motion m;
        m.segments = std::move(segments);
        o.object.motion = std::move(m);
    }
    return o;
}

/// Water in a 2 × 1 m tank (object 0) in the domain [−1, 3] × [−1, 2]; obstacles are added by
/// the tests (objects 1, 2, …).
Case flume() {
    Case c = test::tank_case_2d(0.02, 2.0, 1.0, box(1.2, 0.0, 2.0, 0.3));
    c.domain = box(-1.0, -1.0, 3.0, 2.0);
    c.run.end_time = 3.0;
    return c;
}

/// A case of one obstacle of the given motion in the flume.
Case flume_with(const Box& b, std::vector<MotionSegment> segments) {
    Case c = flume();
    c.obstacles.push_back(obstacle(b, std::move(segments)));
    return c;
}

const Box paddle = box(0.8, 0.4, 1.0, 0.6);

Vector3d vec(const double* a) {
    return {a[0], a[1], a[2]};
}
Vector3d position(const MotionTables& t, std::uint32_t k, double time, const Vector3d& x0) {
    return apply_pose(object_state(t, k, time).pose, x0);
}
Vector3d field_velocity(const RigidState& s, const Vector3d& x) {
    return vec(s.velocity) + vec(s.angular_velocity).cross(x);
}

/// x turned by θ about the y axis through p by hand: a positive angle turns +z towards +x.
Vector3d turn_y(double theta, const Vector3d& p, const Vector3d& x) {
    const Vector3d r = x - p;
    const double c = std::cos(theta), s = std::sin(theta);
    return p + Vector3d(c * r.x() + s * r.z(), r.y(), -s * r.x() + c * r.z());
}

/// The box's corners (2D: four distinct) and its centre.
std::vector<Vector3d> body(const Box& b) {
    std::vector<Vector3d> out = box_corners(b);
    out.push_back(0.5 * (b.min + b.max));
    return out;
}

// ---------------------------------------------------------------------------------------------
// Each segment kind, and segments in sequence.

TEST(MotionTable, SegmentsInSequenceCompose) {
    const Vector3d p(1.2, 0.0, 0.5);
    RectilinearMotion slide;
    slide.velocity = {0.5, 0.0, 0.0};
    RotationMotion turn;
    turn.point = p;
    turn.angular_velocity = 0.5 * pi;
    RectilinearMotion lift;
    lift.velocity = {0.0, 0.0, 0.1};
    lift.acceleration = {0.2, 0.0, 0.0};
    const Case c = flume_with(
        paddle, {segment(0.0, 0.4, slide), segment(0.5, 1.5, turn), segment(1.5, 2.0, lift)});
    const MotionTables t = make_motion_tables(c, c.run.end_time);
    ASSERT_EQ(t.objects(), 2u);
    EXPECT_FALSE(t.moves[0]) << "the tank";
    EXPECT_TRUE(t.moves[1]);
    EXPECT_TRUE(t.any());
    EXPECT_EQ(t.object_first[1] - t.object_first[0], 0u);
    EXPECT_EQ(t.object_first[2] - t.object_first[1], 3u);
    // By hand: slide 0.5 m/s for 0.4 s, rest, a quarter turn about p over 1 s, then
    // d = (0.1 τ², 0, 0.1 τ) for 0.5 s, rest.
    auto hand = [&](double time, Vector3d x) {
        x.x() += 0.5 * std::clamp(time, 0.0, 0.4);
        if (time > 0.5)
            x = turn_y(0.5 * pi * std::min(time - 0.5, 1.0), p, x);
        if (time > 1.5) {
            const double tau = std::min(time - 1.5, 0.5);
            x += Vector3d(0.1 * tau * tau, 0.0, 0.1 * tau);
        }
        return x;
    };
    for (double time : {0.0, 0.2, 0.4, 0.45, 0.5, 0.9, 1.5, 1.7, 2.0, 2.7}) {
        SCOPED_TRACE("t = " + std::to_string(time));
        for (const Vector3d& x0 : body(paddle))
            EXPECT_LT((position(t, 1, time, x0) - hand(time, x0)).norm(), 1e-14) << x0.transpose();
    }
    // Mid-turn every point moves at (π/2) ŷ × (x − p).
    const RigidState mid = object_state(t, 1, 0.9);
    for (const Vector3d& x0 : body(paddle)) {
        const Vector3d x = hand(0.9, x0);
        EXPECT_LT((field_velocity(mid, x) - 0.5 * pi * Vector3d::UnitY().cross(x - p)).norm(),
                  1e-14);
    }
    // The tank never moves.
    const RigidState tank = object_state(t, 0, 1.0);
    EXPECT_FALSE(tank.moving);
    EXPECT_EQ(apply_pose(tank.pose, Vector3d(0.3, 0.0, 0.7)), Vector3d(0.3, 0.0, 0.7));
}

TEST(MotionTable, SinusoidalReturnsToTheStartAfterAWholePeriod) {
    SinusoidalTranslation shake;
    shake.amplitude = {0.1, 0.0, 0.05};
    shake.period = 0.8;
    shake.phase = pi / 6.0;
    SinusoidalRotation rock;
    rock.point = {1.0, 0.0, 0.5};
    rock.amplitude = 0.3;
    rock.period = 0.5;
    rock.phase = 0.4;
    Case c = flume_with(paddle, {segment(0.2, endless, shake)});
    c.obstacles.push_back(obstacle(box(0.4, 0.6, 0.6, 0.8), {segment(0.1, 1.1, rock)}));
    const MotionTables t = make_motion_tables(c, c.run.end_time);
    const Vector3d x0 = paddle.min;
    // d(τ) = A (sin(2πτ/T + φ) − sin φ).
    for (double tau : {0.0, 0.13, 0.3, 0.8, 1.6, 2.4}) {
        const double s = std::sin(2.0 * pi * tau / 0.8 + pi / 6.0) - 0.5;
        EXPECT_LT((position(t, 1, 0.2 + tau, x0) - (x0 + s * shake.amplitude)).norm(), 1e-14)
            << "tau = " << tau;
    }
    const RigidState start = object_state(t, 1, 0.2), period = object_state(t, 1, 1.0);
    for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(period.pose.translation[k], 0.0, 1e-15);
        EXPECT_NEAR(period.velocity[k], start.velocity[k], 1e-13);
    }
    EXPECT_NEAR(start.velocity[0], 0.1 * 2.0 * pi / 0.8 * std::cos(pi / 6.0), 1e-14);
    // The rotation: θ(τ) = Θ (sin(2πτ/T + φ) − sin φ) about the point; after two periods it
    // rests where it started.
    const Vector3d y0(0.6, 0.0, 0.8);
    for (double tau : {0.1, 0.25, 0.5, 0.77}) {
        const double theta = 0.3 * (std::sin(2.0 * pi * tau / 0.5 + 0.4) - std::sin(0.4));
        EXPECT_LT((position(t, 2, 0.1 + tau, y0) - turn_y(theta, rock.point, y0)).norm(), 1e-14)
            << "tau = " << tau;
    }
    const RigidState rest = object_state(t, 2, 2.0);
    EXPECT_FALSE(rest.moving);
    for (int k = 0; k < 9; ++k)
        EXPECT_NEAR(rest.pose.rotation[k], k % 4 == 0 ? 1.0 : 0.0, 1e-14);
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(rest.pose.translation[k], 0.0, 1e-14);
}

TEST(MotionTable, FileTablesInterpolateLinearlyAndHoldAtTheEnds) {
    FileTranslation f;
    f.file = "path.csv";
    f.times = {0.1, 0.3, 0.6};
    f.displacement = {{0, 0, 0}, {0.1, 0, 0.05}, {0.1, 0, -0.1}};
    // Starting inside the first interval, ending inside the second: d = f(t) − f(0.2).
    Case c = flume_with(paddle, {segment(0.2, 0.5, f)});
    // Starting before the first time, endless: f is held outside [0.1, 0.6].
    c.obstacles.push_back(obstacle(box(0.4, 0.6, 0.6, 0.8), {segment(0.0, endless, f)}));
    FileRotation g;
    g.file = "angle.csv";
    g.point = {1.5, 0.0, 0.5};
    g.times = {0.0, 1.0};
    g.angles = {0.0, 0.5};
    c.obstacles.push_back(obstacle(box(1.4, 0.6, 1.6, 0.8), {segment(0.5, endless, g)}));
    const MotionTables t = make_motion_tables(c, c.run.end_time);
    const Vector3d x0 = paddle.min;
    // f(0.2) = (0.05, 0, 0.025); f(0.25) = (0.075, 0, 0.0375); f(0.45) = (0.1, 0, −0.025).
    EXPECT_LT((position(t, 1, 0.2, x0) - x0).norm(), 1e-15);
    EXPECT_LT((position(t, 1, 0.25, x0) - (x0 + Vector3d(0.025, 0, 0.0125))).norm(), 1e-15);
    EXPECT_LT((vec(object_state(t, 1, 0.25).velocity) - Vector3d(0.5, 0, 0.25)).norm(), 1e-14);
    EXPECT_LT((position(t, 1, 0.45, x0) - (x0 + Vector3d(0.05, 0, -0.05))).norm(), 1e-15);
    EXPECT_LT((vec(object_state(t, 1, 0.45).velocity) - Vector3d(0, 0, -0.5)).norm(), 1e-14);
    // After its end (0.5) it rests at f(0.5) − f(0.2) = (0.05, 0, −0.075).
    const RigidState after = object_state(t, 1, 2.0);
    EXPECT_FALSE(after.moving);
    EXPECT_LT((apply_pose(after.pose, x0) - (x0 + Vector3d(0.05, 0, -0.075))).norm(), 1e-15);
    // Held at the ends: d = 0 before 0.1, f(0.6) − f(0.1) after 0.6, velocity 0 at both.
    const Vector3d y0(0.4, 0.0, 0.6);
    const RigidState early = object_state(t, 2, 0.05), late = object_state(t, 2, 1.0);
    EXPECT_TRUE(early.moving);
    EXPECT_LT((apply_pose(early.pose, y0) - y0).norm(), 1e-15);
    EXPECT_LT((apply_pose(late.pose, y0) - (y0 + Vector3d(0.1, 0, -0.1))).norm(), 1e-15);
    EXPECT_EQ(vec(early.velocity), Vector3d::Zero());
    EXPECT_EQ(vec(late.velocity), Vector3d::Zero());
    // The angle: θ(t) = 0.5 t − 0.25 rad until t = 1, then held at 0.25.
    const Vector3d z0(1.6, 0.0, 0.8);
    EXPECT_LT((position(t, 3, 0.75, z0) - turn_y(0.125, g.point, z0)).norm(), 1e-14);
    EXPECT_LT((position(t, 3, 2.5, z0) - turn_y(0.25, g.point, z0)).norm(), 1e-14);
    EXPECT_NEAR(object_state(t, 3, 0.75).angular_velocity[1], 0.5, 1e-14);
    EXPECT_EQ(object_state(t, 3, 2.5).angular_velocity[1], 0.0);
}

WaveMakerSpec regular_spec(WaveMakerKind kind, double period, double ramp) {
    WaveMakerSpec s;
    s.kind = kind;
    s.waves = WaveSpectrum::regular;
    s.depth = 0.4;
    s.gravity = 9.81;
    s.height = 0.04;
    s.period = period;
    s.phase = 0.3;
    s.ramp = ramp;
    return s;
}

TEST(MotionTable, PistonFollowsPaddleMotionUnderItsRamp) {
    WaveMakerMotion piston;
    piston.spec = regular_spec(WaveMakerKind::piston, 1.0, 2.0);
    const std::vector<PaddleComponent> paddle_components = paddle_motion(piston.spec);
    ASSERT_EQ(paddle_components.size(), 1u);
    const PaddleComponent k = paddle_components[0];
    // The stroke paddle_motion gives makes the asked height in first-order theory.
    EXPECT_NEAR(generated_wave_height(WaveMakerKind::piston, k.amplitude, k.omega, 0.4, 9.81), 0.04,
                1e-12);
    WaveMakerMotion tilted = piston;
    tilted.direction = {0.6, 0.0, 0.8};
    Case c = flume_with(box(0.05, 0.0, 0.1, 0.5), {segment(0.1, endless, piston)});
    c.obstacles.push_back(obstacle(box(0.4, 0.6, 0.6, 0.8), {segment(0.1, endless, tilted)}));
    c.run.end_time = 4.0;
    const MotionTables t = make_motion_tables(c, c.run.end_time);
    auto x_of = [&](double tau) { return object_state(t, 1, 0.1 + tau).pose.translation[0]; };
    // At rest at the start, ramped by r(τ) = (1 − cos(πτ/2))/2 for 2 s, then a sin(ωτ + φ).
    const RigidState start = object_state(t, 1, 0.1);
    EXPECT_EQ(x_of(0.0), 0.0);
    EXPECT_EQ(start.velocity[0], 0.0);
    for (double tau = 0.0; tau < 2.0; tau += 0.01) {
        const double r = 0.5 * (1.0 - std::cos(pi * tau / 2.0));
        EXPECT_NEAR(x_of(tau), r * k.amplitude * std::sin(k.omega * tau + k.phase), 1e-14)
            << "tau = " << tau;
        EXPECT_LE(std::fabs(x_of(tau)), r * k.amplitude + 1e-15);
    }
    double largest = 0.0;
    for (double tau = 2.0; tau < 3.9; tau += 0.001) {
        EXPECT_NEAR(x_of(tau), k.amplitude * std::sin(k.omega * tau + k.phase), 1e-14);
        largest = std::max(largest, std::fabs(x_of(tau)));
        EXPECT_EQ(object_state(t, 1, 0.1 + tau).pose.translation[2], 0.0) << "along +x";
    }
    // Sampled every 1 ms, |sin| peaks within (ω · 0.5 ms)²/2 ≈ 1e-5 of 1.
    EXPECT_NEAR(largest, k.amplitude, 1e-4 * k.amplitude);
    // Along a given direction the same stroke.
    const RigidState along = object_state(t, 2, 2.7);
    const double s = object_state(t, 1, 2.7).pose.translation[0];
    EXPECT_NEAR(along.pose.translation[0], 0.6 * s, 1e-15);
    EXPECT_NEAR(along.pose.translation[2], 0.8 * s, 1e-15);
}

TEST(MotionTable, FlapTurnsAboutItsHingeTowardsTheWaves) {
    WaveMakerMotion flap;
    flap.spec = regular_spec(WaveMakerKind::flap, 1.2, 0.0); // no ramp: θ(0) = 0 by the offset
    flap.point = {0.1, 0.0, 0.0};
    const std::vector<PaddleComponent> components = paddle_motion(flap.spec);
    ASSERT_EQ(components.size(), 1u);
    const PaddleComponent k = components[0];
    const Case c = flume_with(box(0.05, 0.0, 0.1, 0.4), {segment(0.0, endless, flap)});
    const MotionTables t = make_motion_tables(c, c.run.end_time);
    const Vector3d top(0.1, 0.0, 0.4);
    for (double tau : {0.0, 0.2, 0.5, 1.3}) {
        const double theta = k.amplitude * (std::sin(k.omega * tau + k.phase) - std::sin(k.phase));
        const Vector3d x = position(t, 1, tau, top);
        EXPECT_NEAR(x.x(), 0.1 + 0.4 * std::sin(theta), 1e-14) << "tau = " << tau;
        EXPECT_NEAR(x.z(), 0.4 * std::cos(theta), 1e-14);
    }
    // A positive angle moves the top of the flap towards +x (the waves).
    double tau_max = 0.25 * 1.2 - 0.3 / k.omega; // where ωτ + φ = π/2
    EXPECT_GT(position(t, 1, tau_max, top).x(), 0.1 + 0.4 * std::sin(0.5 * k.amplitude));
}

// ---------------------------------------------------------------------------------------------
// The speed bound and the swept box against dense sampling.

/// The largest speed of the box's corners (and centre) at `samples` times over [0, end_time].
double sampled_max_speed(const MotionTables& t, std::uint32_t k, const Box& b, double end_time,
                         int samples = 20000) {
    double fastest = 0.0;
    for (int i = 0; i <= samples; ++i) {
        const double time = end_time * i / samples;
        const RigidState s = object_state(t, k, time);
        for (const Vector3d& x0 : body(b))
            fastest = std::max(fastest, field_velocity(s, apply_pose(s.pose, x0)).norm());
    }
    return fastest;
}

struct MotionCase {
    const char* name;
    Case c;
    Box box;
    double end_time;
    /// bound / sampled maximum at most (the analytic bound's known slack, see each case).
    double slack;
};

std::vector<MotionCase> motion_cases() {
    std::vector<MotionCase> out;
    {
        RectilinearMotion m; // slows through zero and back: |v + aτ| largest at the end
        m.velocity = {1.0, 0.0, 0.0};
        m.acceleration = {-1.0, 0.0, 0.3};
        out.push_back(
            {"rectilinear", flume_with(paddle, {segment(0.0, 3.0, m)}), paddle, 3.0, 1.001});
    }
    {
        RotationMotion m; // 2D: the farthest corner moves at |ω| times its distance exactly
        m.point = {1.2, 0.0, 0.5};
        m.angular_velocity = 1.0;
        m.angular_acceleration = 0.5;
        out.push_back({"rotation", flume_with(paddle, {segment(0.5, 1.5, m)}), paddle, 2.0, 1.001});
    }
    {
        SinusoidalTranslation m;
        m.amplitude = {0.05, 0.0, 0.1};
        m.period = 0.7;
        m.phase = 0.2;
        out.push_back(
            {"sinusoidal", flume_with(paddle, {segment(0.1, 2.9, m)}), paddle, 3.0, 1.001});
    }
    {
        SinusoidalRotation m;
        m.point = {0.9, 0.0, 0.4};
        m.amplitude = 0.2;
        m.period = 0.9;
        out.push_back({"sinusoidal_rotation", flume_with(paddle, {segment(0.0, endless, m)}),
                       paddle, 2.5, 1.001});
    }
    {
        FileTranslation m; // the steepest interval (0.4 → 0.5) lies within the segment
        m.times = {0.0, 0.4, 0.5, 1.0};
        m.displacement = {{0, 0, 0}, {0.05, 0, 0}, {0.05, 0, 0.08}, {0.1, 0, 0.08}};
        out.push_back({"file", flume_with(paddle, {segment(0.2, endless, m)}), paddle, 2.0, 1.001});
    }
    {
        // The ramp adds π a/(2 t_ramp) to the bound: with t_ramp = 2T a factor 1 + 1/8.
        WaveMakerMotion m;
        m.spec = regular_spec(WaveMakerKind::piston, 1.0, 2.0);
        const Box b = box(0.05, 0.0, 0.1, 0.5);
        out.push_back({"piston", flume_with(b, {segment(0.0, endless, m)}), b, 4.0, 1.13});
    }
    {
        WaveMakerMotion m;
        m.spec = regular_spec(WaveMakerKind::flap, 1.2, 2.4);
        m.point = {0.1, 0.0, 0.0};
        const Box b = box(0.05, 0.0, 0.1, 0.5);
        out.push_back({"flap", flume_with(b, {segment(0.0, endless, m)}), b, 4.0, 1.13});
    }
    {
        // 3D: a cube turning about z through its centre. The bound takes the distance from the
        // point (√3/2), the corners move at |ω| times their distance from the axis (√2/2).
        Case c = test::tank_case_3d(0.05, {2, 2, 2}, {0.5, 0.5, 0.5}, {-1, -1, -1}, {3, 3, 3});
        Box b;
        b.min = {1.0, 1.0, 1.0};
        b.max = {1.5, 1.5, 1.5};
        RotationMotion m;
        m.point = {1.25, 1.25, 1.25};
        m.axis = Vector3d::UnitZ();
        m.angular_velocity = 2.0;
        c.obstacles.push_back(obstacle(b, {segment(0.0, 1.0, m)}));
        out.push_back({"rotation_3d", c, b, 1.0, std::sqrt(1.5) * 1.001});
    }
    return out;
}

TEST(MotionTable, SpeedBoundHoldsAndIsNotLoose) {
    for (const MotionCase& m : motion_cases()) {
        SCOPED_TRACE(m.name);
        const MotionTables t = make_motion_tables(m.c, m.end_time);
        const double sampled = sampled_max_speed(t, 1, m.box, m.end_time);
        ASSERT_GT(sampled, 0.01);
        EXPECT_GE(t.speed_bound, sampled * (1.0 - 1e-12));
        EXPECT_LE(t.speed_bound, sampled * m.slack);
        EXPECT_LE(t.speed_bound, 1.5 * sampled);
        // The state's own bound holds at every time.
        for (double time = 0.0; time <= m.end_time; time += m.end_time / 997) {
            const RigidState s = object_state(t, 1, time);
            for (const Vector3d& x0 : body(m.box))
                EXPECT_GE(s.speed_bound * (1.0 + 1e-12),
                          field_velocity(s, apply_pose(s.pose, x0)).norm())
                    << "t = " << time;
            EXPECT_LE(s.speed_bound, t.speed_bound * (1.0 + 1e-12)) << "t = " << time;
        }
    }
}

/// A 3D flap 1 m wide (y) and 0.5 m high turning about its hinge along y, the hinge's point
/// given at one end of the hinge (y = 0), as a case author writes it: its points move at |ω|
/// times their distance from the axis, at most 0.5 m (the top edge), whatever point of the
/// axis the case names. The bound may not grow with the distance along the axis (here it would
/// be √(1 + 0.25)/0.5 ≈ 2.2 times the fastest point's speed).
TEST(MotionTable, SpeedBoundOfARotationIsTheDistanceFromTheAxis) {
    Case c = test::tank_case_3d(0.05, {2, 1, 1}, {0.5, 1, 0.3}, {-1, -1, -1}, {3, 2, 2});
    Box flap;
    flap.min = {1.0, 0.0, 0.0};
    flap.max = {1.05, 1.0, 0.5};
    RotationMotion m;
    m.point = {1.0, 0.0, 0.0};
    m.axis = Vector3d::UnitY();
    m.angular_velocity = 0.3;
    c.obstacles.push_back(obstacle(flap, {segment(0.0, 1.0, m)}));
    const MotionTables t = make_motion_tables(c, 1.0);
    const double sampled = sampled_max_speed(t, 1, flap, 1.0, 1000);
    EXPECT_NEAR(sampled, 0.3 * std::hypot(0.05, 0.5), 1e-12);
    EXPECT_GE(t.speed_bound, sampled * (1.0 - 1e-12));
    EXPECT_LE(t.speed_bound, 1.5 * sampled);
    // The same motion named by another point of the same axis has the same bound.
    c.obstacles[0].object.motion->segments[0].motion = [&] {
        RotationMotion far = m;
        far.point.y() = 0.5;
        return far;
    }();
    EXPECT_NEAR(make_motion_tables(c, 1.0).speed_bound, t.speed_bound, 1e-12);
}

TEST(MotionTable, SpeedBoundIsTheFastestObjects) {
    const std::vector<MotionCase> cases = motion_cases();
    Case c = cases[0].c; // rectilinear: |(−2, 0, 0.9)| m/s at its end
    c.obstacles.push_back(cases[2].c.obstacles[0]);
    c.obstacles.back().box = box(0.4, 0.6, 0.6, 0.8);
    const double slow = make_motion_tables(cases[0].c, 3.0).speed_bound;
    const double other = make_motion_tables(cases[2].c, 3.0).speed_bound;
    EXPECT_DOUBLE_EQ(make_motion_tables(c, 3.0).speed_bound, std::max(slow, other));
    // Up to an earlier end time the rectilinear motion is slower: the bound follows.
    EXPECT_LT(make_motion_tables(cases[0].c, 1.0).speed_bound, slow);
    EXPECT_NEAR(make_motion_tables(cases[0].c, 1.0).speed_bound, 1.0, 1e-12);
}

TEST(MotionTable, SweptBoxHoldsEverySampledPose) {
    for (const MotionCase& m : motion_cases()) {
        SCOPED_TRACE(m.name);
        const MotionTables t = make_motion_tables(m.c, m.end_time);
        const Box swept = swept_box(t, 1, m.box, m.end_time);
        // Dense samples.
        constexpr int samples = 30011;
        const double dt = m.end_time / samples;
        Box hull = m.box;
        for (int i = 0; i <= samples; ++i) {
            const double time = i * dt;
            const RigidState s = object_state(t, 1, time);
            for (const Vector3d& x0 : box_corners(m.box)) {
                const Vector3d x = apply_pose(s.pose, x0);
                for (int a = 0; a < 3; ++a) {
                    ASSERT_GE(x[a], swept.min[a] - 1e-12) << "t = " << time << ", axis " << a;
                    ASSERT_LE(x[a], swept.max[a] + 1e-12) << "t = " << time << ", axis " << a;
                }
                hull.min = hull.min.cwiseMin(x);
                hull.max = hull.max.cwiseMax(x);
            }
        }
        // Exact for these kinds (case/motion_bounds.h): beyond the sampled hull by no more than
        // the hull misses the true one, speed bound × dt/2.
        const double slack = t.speed_bound * 0.5 * dt + 1e-12;
        for (int a = 0; a < 3; ++a) {
            EXPECT_GE(swept.min[a], hull.min[a] - slack) << "axis " << a;
            EXPECT_LE(swept.max[a], hull.max[a] + slack) << "axis " << a;
        }
    }
}

TEST(MotionTable, SweptBoxOfAStillObjectIsItsBox) {
    const MotionCase m = motion_cases()[0];
    const MotionTables t = make_motion_tables(m.c, m.end_time);
    const Box tank = tank_with_walls(*m.c.tank, m.c.dp);
    const Box swept = swept_box(t, 0, tank, m.end_time);
    EXPECT_EQ(swept.min, tank.min);
    EXPECT_EQ(swept.max, tank.max);
}

// ---------------------------------------------------------------------------------------------
// Leaving the domain.

TEST(MotionTable, FirstDomainExitOfATranslation) {
    // The paddle's right face (x = 1) moves at 1 m/s from t = 0.5: it reaches the domain's
    // x = 3 at t = 2.5.
    RectilinearMotion m;
    m.velocity = {1.0, 0.0, 0.0};
    Case c = flume_with(paddle, {segment(0.5, endless, m)});
    c.run.end_time = 4.0;
    const MotionTables t = make_motion_tables(c, 4.0);
    const auto exit = first_domain_exit(c, t, 4.0);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->object, 1u);
    // Within the distance the contract lets pass, dp/100, at 1 m/s after the crossing.
    EXPECT_GE(exit->time, 2.5);
    EXPECT_LE(exit->time, 2.5 + 0.01 * c.dp / 1.0 + 1e-9);
    // None before it.
    EXPECT_FALSE(first_domain_exit(c, make_motion_tables(c, 2.4), 2.4).has_value());
    // run_motion_tables refuses the run, naming the object and the time.
    try {
        (void)run_motion_tables(c);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("<obstacle>"), std::string::npos) << what;
        EXPECT_NE(what.find("leaves the domain under its motion at t = 2.5"), std::string::npos)
            << what;
    }
    c.run.end_time = 2.4;
    EXPECT_NO_THROW((void)run_motion_tables(c));
}

TEST(MotionTable, FirstDomainExitOfARotation) {
    // A bar 0.8 m long and 0.1 m thick turning up about its left end (ω < 0: +x towards +z):
    // its top-right corner is at height 0.5 + 0.8 sin φ + 0.05 cos φ after turning by φ = |θ|,
    // and reaches the domain's top, z = 1.3, when 0.8 sin φ + 0.05 cos φ = 0.8.
    RotationMotion m;
    m.point = {0.2, 0.0, 0.5};
    m.angular_velocity = -1.0;
    Case c = flume_with(box(0.2, 0.45, 1.0, 0.55), {segment(0.0, endless, m)});
    c.domain = box(-1.0, -1.0, 3.0, 1.3);
    const double phi = std::asin(0.8 / std::hypot(0.8, 0.05)) - std::atan2(0.05, 0.8);
    ASSERT_NEAR(0.8 * std::sin(phi) + 0.05 * std::cos(phi), 0.8, 1e-12);
    const MotionTables t = make_motion_tables(c, 3.0);
    const auto exit = first_domain_exit(c, t, 3.0);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->object, 1u);
    // No later than where the corner is dp/100 (+ 1e-6 dp) above the top.
    const double beyond = 0.8 + 0.01 * c.dp + 1e-6 * c.dp;
    const double latest = std::asin(beyond / std::hypot(0.8, 0.05)) - std::atan2(0.05, 0.8);
    EXPECT_GE(exit->time, phi);
    EXPECT_LE(exit->time, latest + 1e-9);
}

TEST(MotionTable, FirstDomainExitIsTheEarliestOfAllObjects) {
    RectilinearMotion slow, fast;
    slow.velocity = {1.0, 0.0, 0.0};
    fast.velocity = {0.0, 0.0, 2.0};
    Case c = flume_with(paddle, {segment(0.0, endless, slow)}); // exits at t = 2
    c.obstacles.push_back(obstacle(box(0.4, 0.6, 0.6, 0.8), {segment(0.0, endless, fast)}));
    // the second leaves z = 2 at t = 0.6
    const auto exit = first_domain_exit(c, make_motion_tables(c, 3.0), 3.0);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->object, 2u);
    EXPECT_GE(exit->time, 0.6);
    EXPECT_LE(exit->time, 0.6 + 0.01 * c.dp / 2.0 + 1e-9);
}

/// A paddle that oscillates fast over a long run leaves the domain at its crests. Sampled 512
/// times per segment (as the check once did), a period of exactly 5 sample spacings puts every
/// sample at a phase of 2πk/5, where |sin| ≤ 0.951: a domain edge at 0.98 of the stroke is
/// crossed at every crest but never at a sample. The exit must still be found, at the first
/// crest.
TEST(MotionTable, FirstDomainExitBetweenSamplesIsFound) {
    const double end_time = 100.0, spacing = end_time / 512;
    SinusoidalTranslation m;
    m.amplitude = {0.1, 0.0, 0.0};
    m.period = 5.0 * spacing;
    Case c = flume_with(paddle, {segment(0.0, endless, m)});
    c.domain.max.x() = paddle.max.x() + 0.098;
    const double crossing = m.period * std::asin(0.98) / (2.0 * pi);
    const MotionTables t = make_motion_tables(c, end_time);
    const Box swept = swept_box(t, 1, paddle, end_time);
    EXPECT_GT(swept.max.x(), c.domain.max.x()) << "the swept box does leave the domain";
    const auto exit = first_domain_exit(c, t, end_time);
    ASSERT_TRUE(exit.has_value()) << "the paddle reaches x = " << paddle.max.x() + 0.1
                                  << " beyond the domain's " << c.domain.max.x();
    // The crossing within dp/100 at the crest's speed there (0.1 ω cos(asin 0.98)).
    EXPECT_GE(exit->time, crossing);
    EXPECT_LE(exit->time,
              crossing + 0.01 * c.dp / (0.1 * 2.0 * pi / m.period * std::sqrt(1.0 - 0.98 * 0.98)) +
                  1e-9);
}

// ---------------------------------------------------------------------------------------------
// Per boundary id: the object and the reference position.

TEST(MotionTable, ParticleSetObjectsFollowTheGenerationOrder) {
    // The tank, a box obstacle, a shell obstacle overlapping it, and a cylinder.
    Case c = test::tank_case_2d(0.02, 2.0, 1.0, box(1.4, 0.0, 2.0, 0.3));
    c.obstacles.push_back(obstacle(box(0.2, 0.0, 0.4, 0.2)));
    Obstacle shell = obstacle(box(0.3, 0.1, 0.6, 0.4));
    shell.layers = 2;
    c.obstacles.push_back(shell);
    Obstacle disc;
    disc.shape = Cylinder{{1.0, 0.0, 0.5}, {1.0, 0.0, 0.5}, 0.1};
    primitive_bounds(disc.shape, 2, disc.box.min, disc.box.max);
    c.obstacles.push_back(disc);
    const ParticleSet s = generate_particles(c);
    ASSERT_EQ(s.objects.size(), 4u);
    std::uint32_t next = 0;
    for (const ObjectIds& o : s.objects) {
        EXPECT_EQ(o.first, next) << "contiguous, in order";
        EXPECT_GT(o.count, 0u);
        next = o.first + o.count;
    }
    EXPECT_EQ(next, s.boundary_count);
    // Each range holds its own object's particles: the tank's as a case of the tank alone
    // generates them, an obstacle's inside its shape and not inside an earlier obstacle.
    Case tank_only = c;
    tank_only.obstacles.clear();
    const ParticleSet t = generate_particles(tank_only);
    ASSERT_EQ(s.objects[0].count, t.boundary_count);
    for (std::uint32_t i = 0; i < t.boundary_count; ++i)
        ASSERT_EQ(s.position[i], t.position[i]);
    for (std::size_t k = 0; k < c.obstacles.size(); ++k) {
        SCOPED_TRACE("obstacle " + std::to_string(k));
        const Obstacle& o = c.obstacles[k];
        Case alone = c;
        alone.tank.reset();
        alone.obstacles = {o};
        const std::vector<Eigen::Vector3d> own = boundary_positions(alone);
        std::size_t expected = 0;
        for (const Vector3d& p : own) {
            bool earlier = false;
            for (std::size_t e = 0; e < k; ++e)
                earlier = earlier || shape_contains(c.obstacles[e].shape, c.obstacles[e].box.min,
                                                    c.obstacles[e].box.max, p, 2);
            expected += earlier ? 0 : 1;
        }
        const ObjectIds ids = s.objects[k + 1];
        EXPECT_EQ(ids.count, expected);
        for (std::uint32_t i = ids.first; i < ids.first + ids.count; ++i) {
            ASSERT_TRUE(shape_contains(o.shape, o.box.min, o.box.max, s.position[i], 2))
                << "id " << i;
            for (std::size_t e = 0; e < k; ++e)
                ASSERT_FALSE(shape_contains(c.obstacles[e].shape, c.obstacles[e].box.min,
                                            c.obstacles[e].box.max, s.position[i], 2))
                    << "id " << i << " repeats obstacle " << e;
        }
    }
    Case shell_alone = c;
    shell_alone.tank.reset();
    shell_alone.obstacles = {c.obstacles[1]};
    EXPECT_LT(s.objects[2].count, boundary_positions(shell_alone).size())
        << "the shell's points inside the first obstacle are not repeated";
    // boundary_positions gives the same ids and positions.
    std::vector<ObjectIds> objects;
    const std::vector<Eigen::Vector3d> positions = boundary_positions(c, &objects);
    ASSERT_EQ(objects.size(), s.objects.size());
    for (std::size_t k = 0; k < objects.size(); ++k) {
        EXPECT_EQ(objects[k].first, s.objects[k].first);
        EXPECT_EQ(objects[k].count, s.objects[k].count);
    }
    ASSERT_EQ(positions.size(), s.boundary_count);
    for (std::size_t i = 0; i < positions.size(); ++i)
        ASSERT_EQ(positions[i], s.position[i]);
    // Without a tank the obstacles are objects 0, 1, …
    Case no_tank = c;
    no_tank.tank.reset();
    std::vector<ObjectIds> obstacles_only;
    (void)boundary_positions(no_tank, &obstacles_only);
    ASSERT_EQ(obstacles_only.size(), 3u);
    EXPECT_EQ(obstacles_only[0].first, 0u);
    EXPECT_EQ(obstacles_only[0].count, s.objects[1].count);
}

TEST(MotionTable, MovingWallTablesMarkExactlyTheMovingObject) {
    RectilinearMotion m;
    m.velocity = {0.1, 0.0, 0.0};
    Case c = test::tank_case_2d(0.02, 2.0, 1.0, box(1.4, 0.0, 2.0, 0.3));
    c.obstacles.push_back(obstacle(box(0.2, 0.0, 0.4, 0.2)));                         // 1
    c.obstacles.push_back(obstacle(box(0.6, 0.3, 0.8, 0.5), {segment(0.0, 1.0, m)})); // 2
    c.obstacles.push_back(obstacle(box(1.0, 0.3, 1.2, 0.5)));                         // 3
    std::vector<ObjectIds> objects;
    const std::vector<Eigen::Vector3d> reference = boundary_positions(c, &objects);
    const MotionTables t = make_motion_tables(c, 1.0);
    const MovingWallTables<2> walls = moving_wall_tables<2>(t, reference, objects);
    ASSERT_EQ(walls.object.size(), reference.size());
    ASSERT_EQ(walls.reference.size(), reference.size());
    const ObjectIds moving = objects[2];
    ASSERT_GT(moving.count, 0u);
    for (std::uint32_t id = 0; id < reference.size(); ++id) {
        const bool inside = id >= moving.first && id < moving.first + moving.count;
        ASSERT_EQ(walls.object[id], inside ? 2 : no_object) << "id " << id;
        ASSERT_EQ(walls.reference[id][0], static_cast<float>(reference[id].x())) << "id " << id;
        ASSERT_EQ(walls.reference[id][1], static_cast<float>(reference[id].z())) << "id " << id;
    }
    // A moving tank in 3D: its ids are object 0.
    Case d = test::small_dambreak_3d_case(0.05);
    d.tank->object.motion = Motion{{segment(0.0, 1.0, m)}, 0};
    d.obstacles.push_back(obstacle([] {
        Box b;
        b.min = {0.25, 0.05, 0.0};
        b.max = {0.35, 0.15, 0.1};
        return b;
    }()));
    std::vector<ObjectIds> objects3;
    const std::vector<Eigen::Vector3d> reference3 = boundary_positions(d, &objects3);
    ASSERT_EQ(objects3.size(), 2u);
    const MovingWallTables<3> walls3 =
        moving_wall_tables<3>(make_motion_tables(d, 1.0), reference3, objects3);
    for (std::uint32_t id = 0; id < reference3.size(); ++id) {
        ASSERT_EQ(walls3.object[id], id < objects3[0].count ? 0 : no_object) << "id " << id;
        for (int a = 0; a < 3; ++a)
            ASSERT_EQ(walls3.reference[id][a], static_cast<float>(reference3[id][a]));
    }
    // The table has room for 65534 objects.
    const std::vector<ObjectIds> too_many(no_object);
    EXPECT_THROW((void)moving_wall_tables<2>(t, {}, too_many), std::invalid_argument);
}

} // namespace
} // namespace sluice
