// Prescribed rigid motion (physics/motion.h) on segments built by hand: for every segment kind
// the pose starts at the segment's base, the velocity field V + ω × x is the time derivative of
// the body's points R x0 + T and the acceleration field that of the velocity field (central
// differences), rotations stay orthonormal, the object rests before its first segment and after
// a finite one, and the speed bound holds; the float forms a particle kernel takes (2D x–z and
// 3D) agree with the double computation to float rounding.

#include "physics/motion.h"
#include "support/double_arrays.h"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

namespace sluice {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

constexpr double pi = 3.14159265358979323846;

using test::put;
using test::vec;

Matrix3d rotation_of(const RigidPose& p) {
    return test::mat(p.rotation);
}
Vector3d apply(const RigidPose& p, const Vector3d& x0) {
    return rotation_of(p) * x0 + vec(p.translation);
}
/// x = R x0 + T with R a rotation by `angle` about `axis` (Eigen's, independent of motion.h).
RigidPose make_pose(const Vector3d& axis, double angle, const Vector3d& t) {
    const Matrix3d r = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
    RigidPose p;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            p.rotation[3 * i + j] = r(i, j);
    put(t, p.translation);
    return p;
}
RigidPose identity() {
    return make_pose(Vector3d::UnitZ(), 0.0, Vector3d::Zero());
}

/// A nontrivial pose for a segment to start from.
RigidPose tilted_base() {
    return make_pose(Vector3d(1.0, 1.0, 0.0), 0.4, Vector3d(0.1, -0.2, 0.3));
}

/// Points of the body in its reference frame (x0), some far from the axes used below.
const std::vector<Vector3d> body_points = {
    {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, {0.3, -0.7, 1.2}, {-0.5, 0.4, -0.9}, {0.8, 0.6, 0.2}};

/// One object's segments and the sines and samples they refer to.
struct HandTables {
    std::vector<MotionSegmentData> segments;
    std::vector<SineComponent> sines;
    std::vector<TableSample> samples;
    std::uint32_t first[2] = {0, 0};

    MotionTablesView view() {
        first[1] = static_cast<std::uint32_t>(segments.size());
        MotionTablesView v;
        v.segments = segments.data();
        v.sines = sines.data();
        v.samples = samples.data();
        v.object_first = first;
        v.objects = 1;
        return v;
    }
    RigidState at(double t) { return rigid_state(view(), 0, t); }
    /// Segment k's end pose from segment_state at its end (as the table builder sets it).
    void close(std::size_t k) {
        MotionSegmentData& s = segments[k];
        RigidState end;
        segment_state(s, view(), s.end - s.start, end);
        s.end_pose = end.pose;
    }
    /// For rotations: the largest distance of the body points from the axis point in the base
    /// pose (a rotation about the point keeps it).
    void set_radius(std::size_t k) {
        MotionSegmentData& s = segments[k];
        double r = 0.0;
        for (const Vector3d& x0 : body_points)
            r = std::max(r, (apply(s.base, x0) - vec(s.point)).norm());
        s.radius = r;
    }
};

MotionSegmentData segment(SegmentKind kind, double start, double end, const RigidPose& base) {
    MotionSegmentData s;
    s.kind = kind;
    s.start = start;
    s.end = end;
    s.base = base;
    s.end_pose = base;
    return s;
}

void set_axis(MotionSegmentData& s, const Vector3d& point, const Vector3d& axis) {
    put(point, s.point);
    put(axis.normalized(), s.axis);
}

Vector3d field_velocity(const RigidState& s, const Vector3d& x) {
    return vec(s.velocity) + vec(s.angular_velocity).cross(x);
}
Vector3d field_acceleration(const RigidState& s, const Vector3d& x) {
    const Vector3d w = vec(s.angular_velocity);
    return vec(s.acceleration) + vec(s.angular_acceleration).cross(x) + w.cross(w.cross(x));
}

void expect_pose_near(const RigidPose& a, const RigidPose& b, double tolerance) {
    for (int k = 0; k < 9; ++k)
        EXPECT_NEAR(a.rotation[k], b.rotation[k], tolerance) << "rotation[" << k << "]";
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(a.translation[k], b.translation[k], tolerance) << "translation[" << k << "]";
}

void expect_orthonormal(const RigidPose& p) {
    const Matrix3d r = rotation_of(p);
    EXPECT_LT((r * r.transpose() - Matrix3d::Identity()).norm(), 1e-13);
    EXPECT_NEAR(r.determinant(), 1.0, 1e-13) << "a proper rotation, no reflection";
}

void expect_at_rest(const RigidState& s) {
    EXPECT_FALSE(s.moving);
    EXPECT_EQ(s.speed_bound, 0.0);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(s.velocity[k], 0.0);
        EXPECT_EQ(s.angular_velocity[k], 0.0);
        EXPECT_EQ(s.acceleration[k], 0.0);
        EXPECT_EQ(s.angular_acceleration[k], 0.0);
    }
}

/// At time t of segment 0 (a smooth stretch of it: no table knot or ramp end within ±h): the
/// pose is orthonormal; for each body point the field velocity equals the central difference
/// of its positions, and the field acceleration the central difference of its field velocity;
/// the speed bound is at least each point's speed.
///
/// Tolerance 1e-6 of the largest speed (acceleration) among the points: with h = 1e-5 s the
/// difference's truncation error is h²/6 |x'''| ≈ 2e-11 |x'''|, below 1e-8 of the speeds here
/// (angular frequencies under 10 rad/s), and its rounding error ε |x| / h ≈ 2e-11 m/s.
void expect_consistent_fields(HandTables& h, double t) {
    SCOPED_TRACE("t = " + std::to_string(t));
    constexpr double dt = 1e-5;
    const RigidState s = h.at(t), sp = h.at(t + dt), sm = h.at(t - dt);
    ASSERT_TRUE(s.moving && sp.moving && sm.moving);
    expect_orthonormal(s.pose);
    double speed_scale = 1e-9, acceleration_scale = 1e-9;
    for (const Vector3d& x0 : body_points) {
        speed_scale = std::max(speed_scale, field_velocity(s, apply(s.pose, x0)).norm());
        acceleration_scale =
            std::max(acceleration_scale, field_acceleration(s, apply(s.pose, x0)).norm());
    }
    for (const Vector3d& x0 : body_points) {
        const Vector3d x = apply(s.pose, x0), xp = apply(sp.pose, x0), xm = apply(sm.pose, x0);
        const Vector3d v = field_velocity(s, x);
        const Vector3d v_fd = (xp - xm) / (2.0 * dt);
        EXPECT_LE((v - v_fd).norm(), 1e-6 * speed_scale)
            << "x0 = " << x0.transpose() << ": v = " << v.transpose()
            << ", difference of positions " << v_fd.transpose();
        const Vector3d a = field_acceleration(s, x);
        const Vector3d a_fd = (field_velocity(sp, xp) - field_velocity(sm, xm)) / (2.0 * dt);
        EXPECT_LE((a - a_fd).norm(), 1e-6 * acceleration_scale)
            << "x0 = " << x0.transpose() << ": a = " << a.transpose()
            << ", difference of velocities " << a_fd.transpose();
        EXPECT_GE(s.speed_bound, v.norm() * (1.0 - 1e-12)) << "x0 = " << x0.transpose();
    }
}

// ---------------------------------------------------------------------------------------------
// Every segment kind: starts at its base, consistent fields.

TEST(Motion, TranslationPolynomial) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::translation_polynomial, 0.5, 3.0, tilted_base());
    put({0.4, -0.3, 0.2}, s.velocity);
    put({1.0, 0.5, -2.0}, s.acceleration);
    h.segments.push_back(s);
    expect_pose_near(h.at(0.5).pose, s.base, 0.0); // d(0) = 0 exactly
    for (double t : {0.6, 1.3, 2.9})
        expect_consistent_fields(h, t);
    // d = v τ + a τ²/2 and the speed is exactly |V| (a translation moves every point alike).
    const RigidState at = h.at(1.5);
    const Vector3d d(0.4 + 0.5, -0.3 + 0.25, 0.2 - 1.0);
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(at.pose.translation[k], s.base.translation[k] + d[k], 1e-15);
    EXPECT_NEAR(at.speed_bound, Vector3d(1.4, 0.2, -1.8).norm(), 1e-15);
}

TEST(Motion, RotationPolynomial) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_polynomial, 0.5, 3.0, tilted_base());
    set_axis(s, {0.5, 0.2, -0.1}, {1.0, 2.0, 3.0});
    s.velocity[0] = 0.7;
    s.acceleration[0] = -1.3;
    h.segments.push_back(s);
    h.set_radius(0);
    // θ(0) = 0: the rotation is the identity exactly, the translation p + (T − p) to rounding.
    expect_pose_near(h.at(0.5).pose, s.base, 1e-15);
    for (double t : {0.6, 1.3, 2.9})
        expect_consistent_fields(h, t);
    // The point on the axis does not move, and the pose is Eigen's rotation by θ = ωτ + ατ²/2.
    const double tau = 1.1, theta = 0.7 * tau - 0.65 * tau * tau;
    const RigidState at = h.at(0.5 + tau);
    const Vector3d p = vec(s.point), n = vec(s.axis);
    const Eigen::AngleAxisd turn(theta, n);
    for (const Vector3d& x0 : body_points) {
        const Vector3d expected = turn * (apply(s.base, x0) - p) + p;
        EXPECT_LT((apply(at.pose, x0) - expected).norm(), 1e-14) << x0.transpose();
    }
    EXPECT_LT(field_velocity(at, p).norm(), 1e-15) << "the axis point is still";
    EXPECT_NEAR(at.speed_bound, std::fabs(0.7 - 1.3 * tau) * h.segments[0].radius, 1e-15);
    EXPECT_GT(h.segments[0].radius, 1.0);
}

/// a sin(ωτ + φ) components with offset Σ a sin φ (no ramp) or 0 (ramp: r(0) = 0).
void add_sines(HandTables& h, MotionSegmentData& s, double ramp) {
    const SineComponent c[] = {{0.12, 2.0 * pi / 0.8, 0.5}, {-0.05, 7.3, -1.1}};
    s.first = static_cast<std::uint32_t>(h.sines.size());
    s.count = 2;
    s.offset = 0.0;
    for (const SineComponent& k : c) {
        h.sines.push_back(k);
        s.offset += k.amplitude * std::sin(k.phase);
    }
    s.ramp = ramp;
    if (ramp > 0.0)
        s.offset = 0.0;
}

/// |p'| ≤ Σ|a ω| + π/(2 ramp) Σ|a| (the table builder's bound): the speed bound of a state is
/// |p'| (times the radius), so this bounds what the state reports.
double sines_rate_bound(const HandTables& h, const MotionSegmentData& s) {
    double a = 0.0, rate = 0.0;
    for (std::uint32_t i = 0; i < s.count; ++i) {
        a += std::fabs(h.sines[s.first + i].amplitude);
        rate += std::fabs(h.sines[s.first + i].amplitude * h.sines[s.first + i].omega);
    }
    return rate + (s.ramp > 0.0 ? 0.5 * pi / s.ramp * a : 0.0);
}

TEST(Motion, TranslationSinesWithoutRamp) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::translation_sines, 0.2, 5.0, tilted_base());
    put(Vector3d(0.6, 0.0, 0.8), s.direction);
    add_sines(h, s, 0.0);
    h.segments.push_back(s);
    expect_pose_near(h.at(0.2).pose, s.base, 1e-15);
    for (double t : {0.25, 0.9, 2.2, 4.7})
        expect_consistent_fields(h, t);
    // p(τ) = Σ a sin(ωτ + φ) − Σ a sin φ along the direction.
    const double tau = 0.37;
    double p = -s.offset;
    for (const SineComponent& k : h.sines)
        p += k.amplitude * std::sin(k.omega * tau + k.phase);
    const RigidState at = h.at(0.2 + tau);
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(at.pose.translation[k], s.base.translation[k] + s.direction[k] * p, 1e-15);
    EXPECT_LE(at.speed_bound, sines_rate_bound(h, s));
}

TEST(Motion, TranslationSinesWithRampStartAtRest) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::translation_sines, 0.2, 5.0, tilted_base());
    put(Vector3d(0.0, 1.0, 0.0), s.direction);
    add_sines(h, s, 0.6);
    h.segments.push_back(s);
    const RigidState start = h.at(0.2);
    expect_pose_near(start.pose, s.base, 0.0);
    // r(0) = r'(0) = 0: the paddle starts at rest (its acceleration r''(0) f(0) need not be 0).
    EXPECT_EQ(start.speed_bound, 0.0);
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(start.velocity[k], 0.0);
    for (double t : {0.21, 0.45, 0.79, 0.81, 3.3}) // in the ramp (ends at 0.8) and after it
        expect_consistent_fields(h, t);
    // In the ramp p = r(τ) f(τ), after it p = f(τ).
    for (double tau : {0.3, 1.7}) {
        double f = 0.0;
        for (const SineComponent& k : h.sines)
            f += k.amplitude * std::sin(k.omega * tau + k.phase);
        const double r = tau < 0.6 ? 0.5 * (1.0 - std::cos(pi * tau / 0.6)) : 1.0;
        EXPECT_NEAR(h.at(0.2 + tau).pose.translation[1], s.base.translation[1] + r * f, 1e-15)
            << "tau = " << tau;
    }
    for (double t = 0.2; t < 5.0; t += 0.0137)
        EXPECT_LE(h.at(t).speed_bound, sines_rate_bound(h, s) * (1.0 + 1e-12)) << t;
}

TEST(Motion, RotationSinesWithoutRamp) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_sines, 1.0, 6.0, tilted_base());
    set_axis(s, {-0.3, 0.1, 0.4}, {0.0, 1.0, -1.0});
    add_sines(h, s, 0.0);
    h.segments.push_back(s);
    h.set_radius(0);
    expect_pose_near(h.at(1.0).pose, s.base, 1e-15);
    for (double t : {1.05, 1.9, 3.2, 5.9})
        expect_consistent_fields(h, t);
}

TEST(Motion, RotationSinesWithRamp) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_sines, 1.0, 6.0, tilted_base());
    set_axis(s, {-0.3, 0.1, 0.4}, {0.0, 1.0, -1.0});
    add_sines(h, s, 1.5);
    h.segments.push_back(s);
    h.set_radius(0);
    const RigidState start = h.at(1.0);
    expect_pose_near(start.pose, s.base, 1e-15);
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(start.angular_velocity[k], 0.0) << "starts at rest";
    for (double t : {1.02, 1.7, 2.45, 2.55, 4.0})
        expect_consistent_fields(h, t);
}

/// Samples (time, value) of a piecewise linear profile; values of tables are vectors.
void add_samples(HandTables& h, MotionSegmentData& s, const std::vector<double>& times,
                 const std::vector<Vector3d>& values) {
    s.first = static_cast<std::uint32_t>(h.samples.size());
    s.count = static_cast<std::uint32_t>(times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        TableSample sample;
        sample.time = times[i];
        put(values[i], sample.value);
        h.samples.push_back(sample);
    }
}

TEST(Motion, TranslationTable) {
    HandTables h;
    // Starts at t = 0.2, inside the first interval: d = f(t) − f(0.2).
    MotionSegmentData s = segment(SegmentKind::translation_table, 0.2, HUGE_VAL, tilted_base());
    add_samples(h, s, {0.0, 0.4, 1.0, 1.5},
                {{0, 0, 0}, {0.2, -0.1, 0.04}, {0.2, 0.3, -0.2}, {-0.1, 0.3, 0.0}});
    h.segments.push_back(s);
    expect_pose_near(h.at(0.2).pose, s.base, 0.0);
    for (double t : {0.25, 0.7, 1.2, 1.45}) // within intervals, away from the knots
        expect_consistent_fields(h, t);
    // f(0.2) = (0.1, −0.05, 0.02); f(0.7) = (0.2, 0.1, −0.08), slope (0, 2/3, −0.4).
    const RigidState mid = h.at(0.7);
    const Vector3d d(0.1, 0.15, -0.1);
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(mid.pose.translation[k], s.base.translation[k] + d[k], 1e-15);
    EXPECT_NEAR(mid.velocity[0], 0.0, 1e-15);
    EXPECT_NEAR(mid.velocity[1], 0.4 / 0.6, 1e-15);
    EXPECT_NEAR(mid.velocity[2], -0.24 / 0.6, 1e-15);
    // Past the last sample the profile holds: f(1.5) − f(0.2), at rest though the segment runs.
    const RigidState held = h.at(7.0);
    EXPECT_TRUE(held.moving);
    const Vector3d d_end(-0.2, 0.35, -0.02);
    for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(held.pose.translation[k], s.base.translation[k] + d_end[k], 1e-15);
        EXPECT_EQ(held.velocity[k], 0.0);
    }
    EXPECT_EQ(held.speed_bound, 0.0);
}

TEST(Motion, RotationTable) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_table, 0.2, 2.0, tilted_base());
    set_axis(s, {0.2, -0.4, 0.1}, {3.0, -1.0, 0.5});
    add_samples(h, s, {0.0, 0.5, 1.1, 1.8}, {{0, 0, 0}, {0.6, 0, 0}, {-0.3, 0, 0}, {0.1, 0, 0}});
    h.segments.push_back(s);
    h.set_radius(0);
    h.close(0);
    expect_pose_near(h.at(0.2).pose, s.base, 1e-15);
    for (double t : {0.3, 0.8, 1.5})
        expect_consistent_fields(h, t);
    // θ(0.8) = f(0.8) − f(0.2) = 0.15 − 0.24; θ' = −0.9/0.6.
    const RigidState at = h.at(0.8);
    const Eigen::AngleAxisd turn(0.15 - 0.24, vec(s.axis));
    for (const Vector3d& x0 : body_points)
        EXPECT_LT((apply(at.pose, x0) - (turn * (apply(s.base, x0) - vec(s.point)) + vec(s.point)))
                      .norm(),
                  1e-14);
    EXPECT_NEAR(Vector3d(vec(at.angular_velocity)).norm(), 1.5, 1e-14);
    EXPECT_NEAR(at.speed_bound, 1.5 * h.segments[0].radius, 1e-14);
}

// ---------------------------------------------------------------------------------------------
// Rest before, between and after segments.

TEST(Motion, RestsAsIdentityBeforeTheFirstSegment) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::translation_polynomial, 0.5, 1.0, identity());
    put({1.0, 0.0, 0.0}, s.velocity);
    h.segments.push_back(s);
    h.close(0);
    for (double t : {0.0, 0.2, 0.4999}) {
        const RigidState before = h.at(t);
        expect_pose_near(before.pose, identity(), 0.0);
        expect_at_rest(before);
    }
    // An object without segments rests as generated.
    HandTables none;
    const RigidState still = none.at(3.0);
    expect_pose_near(still.pose, identity(), 0.0);
    expect_at_rest(still);
}

TEST(Motion, RestsInTheEndPoseAfterAFiniteSegment) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_polynomial, 0.5, 2.0, tilted_base());
    set_axis(s, {0.1, 0.0, 0.3}, {0.0, 0.0, 1.0});
    s.velocity[0] = 2.0;
    s.acceleration[0] = 0.5;
    h.segments.push_back(s);
    h.set_radius(0);
    h.close(0);
    const RigidPose end_pose = h.segments[0].end_pose;
    // θ(1.5) = 3 + 0.5625 rad about z through the point.
    const Eigen::AngleAxisd turn(3.5625, Vector3d::UnitZ());
    for (const Vector3d& x0 : body_points)
        EXPECT_LT((apply(end_pose, x0) - (turn * (apply(s.base, x0) - vec(s.point)) + vec(s.point)))
                      .norm(),
                  1e-14);
    for (double t : {2.0, 2.5, 100.0}) { // the end itself already rests
        const RigidState after = h.at(t);
        expect_pose_near(after.pose, end_pose, 0.0);
        expect_at_rest(after);
    }
    // Continuous into the rest: just before the end the pose is within |v| δ of it.
    const RigidState before = h.at(2.0 - 1e-9);
    EXPECT_TRUE(before.moving);
    expect_pose_near(before.pose, end_pose, 1e-8);
}

TEST(Motion, RestsBetweenSegmentsAndTheNextStartsWhereTheLastEnded) {
    HandTables h;
    MotionSegmentData a = segment(SegmentKind::translation_polynomial, 0.5, 1.0, identity());
    put({0.0, 0.0, 1.0}, a.velocity);
    h.segments.push_back(a);
    h.close(0);
    MotionSegmentData b =
        segment(SegmentKind::rotation_polynomial, 1.5, 2.5, h.segments[0].end_pose);
    set_axis(b, {0.0, 0.0, 0.0}, {0.0, 1.0, 0.0});
    b.velocity[0] = pi; // a half turn over its second
    h.segments.push_back(b);
    h.set_radius(1);
    h.close(1);
    const RigidState gap = h.at(1.2);
    expect_at_rest(gap);
    EXPECT_NEAR(gap.pose.translation[2], 0.5, 1e-15);
    const RigidState start = h.at(1.5);
    EXPECT_TRUE(start.moving);
    expect_pose_near(start.pose, gap.pose, 1e-15);
    // After b: a half turn about y of the point (0, 0, 0.5) lifted by a: (0, 0, −0.5).
    const RigidState after = h.at(3.0);
    expect_at_rest(after);
    EXPECT_LT((apply(after.pose, Vector3d::Zero()) - Vector3d(0.0, 0.0, -0.5)).norm(), 1e-15);
}

/// The header's contract: segment_state takes τ clamped to [0, end − start].
TEST(Motion, SegmentStateClampsTauToTheSegment) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::translation_polynomial, 0.5, 1.0, identity());
    put({1.0, 0.0, 0.0}, s.velocity);
    h.segments.push_back(s);
    h.close(0);
    RigidState late, early;
    segment_state(h.segments[0], h.view(), 2.0, late); // τ beyond end − start = 0.5
    EXPECT_NEAR(late.pose.translation[0], 0.5, 1e-15) << "τ clamped to end − start";
    segment_state(h.segments[0], h.view(), -1.0, early);
    EXPECT_NEAR(early.pose.translation[0], 0.0, 1e-15) << "τ clamped to 0";
}

// ---------------------------------------------------------------------------------------------
// The float forms.

/// Float rounding: each component is a sum of three products of float-rounded factors (≤ 4
/// roundings of ε/2 each on terms whose magnitudes sum to at most √3 |x|), so a vector is off
/// by at most about 12 ε of the magnitudes involved; 16 ε leaves room for the double chains.
constexpr double float_rounding = 16.0 * FLT_EPSILON;

/// A 3D state in motion: a rotation with acceleration about a tilted axis after a translation.
RigidState turning_state_3d() {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_polynomial, 0.0, 10.0, tilted_base());
    set_axis(s, {0.5, 0.2, -0.1}, {1.0, 2.0, 3.0});
    s.velocity[0] = 0.7;
    s.acceleration[0] = -1.3;
    h.segments.push_back(s);
    h.set_radius(0);
    return h.at(0.8);
}

Vec<3> vec3f(const Vector3d& x) {
    Vec<3> v{};
    v[0] = static_cast<float>(x.x()), v[1] = static_cast<float>(x.y()),
    v[2] = static_cast<float>(x.z());
    return v;
}
Vector3d of(const Vec<3>& v) {
    return {v[0], v[1], v[2]};
}
Vec<2> vec2f(double x, double z) {
    Vec<2> v{};
    v[0] = static_cast<float>(x), v[1] = static_cast<float>(z);
    return v;
}

TEST(Motion, FloatFormAgreesWithDoubleIn3d) {
    const RigidState s = turning_state_3d();
    ASSERT_TRUE(s.moving);
    const RigidMotionF f = to_float(s);
    const Vector3d w = vec(s.angular_velocity), alpha = vec(s.angular_acceleration);
    const double t_norm = vec(s.pose.translation).norm();
    for (const Vector3d& x0d : body_points) {
        const Vec<3> x0 = vec3f(x0d);
        const Vector3d x0_exact = of(x0); // the float input, exactly
        const Vector3d x = apply(s.pose, x0_exact);
        EXPECT_LT((of(rigid_position(f, x0)) - x).norm(),
                  float_rounding * (x0_exact.norm() + t_norm));
        EXPECT_LT((of(rigid_rotate(f, x0)) - rotation_of(s.pose) * x0_exact).norm(),
                  float_rounding * x0_exact.norm() + 1e-30);
        const Vec<3> xf = vec3f(x);
        const Vector3d x_exact = of(xf);
        const Vector3d v = vec(s.velocity) + w.cross(x_exact);
        EXPECT_LT((of(rigid_velocity(f, xf)) - v).norm(),
                  float_rounding * (vec(s.velocity).norm() + w.norm() * x_exact.norm()));
        const Vector3d a = vec(s.acceleration) + alpha.cross(x_exact) + w.cross(w.cross(x_exact));
        EXPECT_LT((of(rigid_acceleration(f, xf)) - a).norm(),
                  float_rounding * (vec(s.acceleration).norm() + alpha.norm() * x_exact.norm() +
                                    w.squaredNorm() * x_exact.norm()));
    }
}

/// A 2D motion: rotation about y (the plane's normal) through a point of the x–z plane.
RigidState turning_state_2d(double t) {
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_polynomial, 0.0, 10.0,
                                  make_pose(Vector3d::UnitY(), 0.3, Vector3d(0.2, 0.0, -0.1)));
    set_axis(s, {0.4, 0.0, 0.7}, {0.0, 1.0, 0.0});
    s.velocity[0] = 1.1;
    s.acceleration[0] = 0.6;
    h.segments.push_back(s);
    h.set_radius(0);
    return h.at(t);
}

TEST(Motion, FloatFormAgreesWithDoubleIn2d) {
    const RigidState s = turning_state_2d(0.9);
    ASSERT_TRUE(s.moving);
    // A 2D motion keeps y = 0 and turns only about y.
    EXPECT_EQ(s.pose.translation[1], 0.0);
    EXPECT_EQ(s.angular_velocity[0], 0.0);
    EXPECT_EQ(s.angular_velocity[2], 0.0);
    EXPECT_EQ(s.velocity[1], 0.0);
    const RigidMotionF f = to_float(s);
    const Vector3d w = vec(s.angular_velocity), alpha = vec(s.angular_acceleration);
    const double t_norm = vec(s.pose.translation).norm();
    for (const Vector3d& p : body_points) {
        const Vec<2> x0 = vec2f(p.x(), p.z());
        const Vector3d x0_exact(x0[0], 0.0, x0[1]);
        const Vector3d x = apply(s.pose, x0_exact);
        EXPECT_NEAR(x.y(), 0.0, 1e-15);
        const Vec<2> xf = rigid_position(f, x0);
        const double tolerance = float_rounding * (x0_exact.norm() + t_norm);
        EXPECT_NEAR(xf[0], x.x(), tolerance);
        EXPECT_NEAR(xf[1], x.z(), tolerance);
        const Vector3d rotated = rotation_of(s.pose) * x0_exact;
        const Vec<2> rf = rigid_rotate(f, x0);
        EXPECT_NEAR(rf[0], rotated.x(), float_rounding * x0_exact.norm() + 1e-30);
        EXPECT_NEAR(rf[1], rotated.z(), float_rounding * x0_exact.norm() + 1e-30);
        const Vector3d x_exact(xf[0], 0.0, xf[1]);
        const Vector3d v = vec(s.velocity) + w.cross(x_exact);
        const Vec<2> vf = rigid_velocity(f, xf);
        const double v_tolerance =
            float_rounding * (vec(s.velocity).norm() + w.norm() * x_exact.norm());
        EXPECT_NEAR(vf[0], v.x(), v_tolerance);
        EXPECT_NEAR(vf[1], v.z(), v_tolerance);
        const Vector3d a = vec(s.acceleration) + alpha.cross(x_exact) + w.cross(w.cross(x_exact));
        const Vec<2> af = rigid_acceleration(f, xf);
        const double a_tolerance =
            float_rounding * (vec(s.acceleration).norm() + alpha.norm() * x_exact.norm() +
                              w.squaredNorm() * x_exact.norm());
        EXPECT_NEAR(af[0], a.x(), a_tolerance);
        EXPECT_NEAR(af[1], a.z(), a_tolerance);
    }
}

TEST(Motion, PositiveAngleIn2dTurnsZTowardsX) {
    // A quarter turn about y through the origin at ω = π/2 rad/s for 1 s.
    HandTables h;
    MotionSegmentData s = segment(SegmentKind::rotation_polynomial, 0.0, 10.0, identity());
    set_axis(s, Vector3d::Zero(), Vector3d::UnitY());
    s.velocity[0] = 0.5 * pi;
    h.segments.push_back(s);
    const RigidMotionF f = to_float(h.at(1.0));
    const Vec<2> up = rigid_position(f, vec2f(0.0, 1.0));
    EXPECT_NEAR(up[0], 1.0, 1e-6) << "+z turns to +x";
    EXPECT_NEAR(up[1], 0.0, 1e-6);
    const Vec<2> right = rigid_position(f, vec2f(1.0, 0.0));
    EXPECT_NEAR(right[0], 0.0, 1e-6) << "+x turns to −z";
    EXPECT_NEAR(right[1], -1.0, 1e-6);
    // The velocity of the top point of the still unturned body is along +x.
    const RigidMotionF f0 = to_float(h.at(0.0));
    const Vec<2> v = rigid_velocity(f0, vec2f(0.0, 1.0));
    EXPECT_NEAR(v[0], 0.5 * pi, 1e-6);
    EXPECT_NEAR(v[1], 0.0, 1e-6);
}

TEST(Motion, WallVelocityIsZeroForAFixedWall) {
    const RigidState s = turning_state_2d(0.4);
    const RigidMotionF states[1] = {to_float(s)};
    const std::uint16_t object[3] = {0, no_object, 0};
    const Vec<2> reference[3] = {vec2f(0.0, 0.0), vec2f(1.0, 0.0), vec2f(0.0, 1.0)};
    MovingWallsView<2> walls;
    walls.object = object;
    walls.reference = reference;
    walls.states = states;
    walls.ids = 3;
    const Vec<2> x = vec2f(0.3, 0.9);
    const Vec<2> fixed = walls.wall_velocity(1, x);
    EXPECT_EQ(fixed[0], 0.0f);
    EXPECT_EQ(fixed[1], 0.0f);
    // Ids past the table (fluid, or walls of no object) are fixed too.
    EXPECT_EQ(walls.object_of(3), no_object);
    const Vec<2> beyond = walls.wall_velocity(7, x);
    EXPECT_EQ(beyond[0], 0.0f);
    EXPECT_EQ(beyond[1], 0.0f);
    // A moving wall takes its object's field at x.
    const Vec<2> moving = walls.wall_velocity(2, x);
    const Vec<2> expected = rigid_velocity(states[0], x);
    EXPECT_EQ(moving[0], expected[0]);
    EXPECT_EQ(moving[1], expected[1]);
    EXPECT_GT(std::hypot(moving[0], moving[1]), 0.1f) << "the object does move";
}

} // namespace
} // namespace sluice
