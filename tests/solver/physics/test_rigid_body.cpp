// Floating bodies' dynamics (physics/rigid_body.h) without a fluid, against closed forms: a
// projectile (the scheme is exact for a constant acceleration), a body on a damped spring in air
// (the damped oscillator), a symmetric top spinning about a non-principal axis (free precession:
// R(t) = exp(t L/I1) R0 exp(t (1/I3 − 1/I1) L3 e3)), a compound pendulum on a hinge (the period of
// the exact pendulum, K(k) by the arithmetic–geometric mean) and an axis-constrained 2D body; the
// second order of the symplectic scheme (error ratio 4 when dt halves) and of Verlet's; a held
// body before its start; a spring between two bodies (equal and opposite). Each bound is the
// scheme's O(dt²) error at the dt used, with its margin stated at the assertion.

#include "physics/rigid_body.h"
#include "support/double_arrays.h"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cmath>
#include <functional>
#include <vector>

namespace sluice {
namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

constexpr double pi = 3.14159265358979323846;

using test::put;
using test::vec;

Matrix3d rotation_of(const BodyState& s) {
    double r[9];
    rigid::rotation_matrix(s.orientation, r);
    return test::mat(r);
}

RigidBodyData body(double mass, const Matrix3d& inertia, BodyRotation rotation,
                   std::uint8_t free_translation, double gravity = 0.0) {
    RigidBodyData b;
    b.mass = mass;
    test::put_matrix(inertia, b.inertia);
    test::put_matrix(Matrix3d(inertia.inverse()), b.inverse_inertia);
    b.rotation = rotation;
    b.free_translation = free_translation;
    b.gravity[2] = -gravity;
    b.radius = 1.0;
    return b;
}

/// Runs `steps` symplectic steps of dt; `loads(state)` gives the loads of a state (the fluid's
/// place); `each(t, state)` sees every state n.
void run_symplectic(const RigidBodyData& b, BodyState& s, double dt, int steps,
                    const std::function<BodyLoads(const BodyState&)>& loads,
                    const std::function<void(double, const BodyState&)>& each = {}) {
    for (int n = 0; n < steps; ++n) {
        const double t = n * dt;
        advance_body(b, s, loads(s), BodyStage::predict, t, dt);
        advance_body(b, s, loads(s), BodyStage::correct, t, dt);
        if (each)
            each(t + dt, s);
    }
}

BodyLoads no_loads(const BodyState&) {
    return {};
}

TEST(RigidBody, ProjectileIsExactUnderConstantAcceleration) {
    RigidBodyData b = body(2.0, Matrix3d::Identity(), BodyRotation::none, 0b111, 9.81);
    const double v0[3] = {1.5, -0.5, 4.0}, w0[3] = {};
    set_initial_velocity(b, v0, w0);
    BodyState s = initial_body_state(b);
    const double dt = 1e-3;
    run_symplectic(b, s, dt, 1000, no_loads);
    const double t = 1.0;
    const Vector3d expected(1.5 * t, -0.5 * t, 4.0 * t - 0.5 * 9.81 * t * t);
    // The trapezoidal position update is exact for constant A: rounding only.
    EXPECT_LT((vec(s.center) - expected).norm(), 1e-12);
    EXPECT_NEAR(s.velocity[2], 4.0 - 9.81 * t, 1e-12);
}

/// A mass on a vertical spring with a dashpot from a fixed anchor, under gravity: the damped
/// oscillator z(t) = z_eq + e^{−ζω t}(A cos ω_d t + B sin ω_d t).
struct DampedSpring {
    double mass = 3.0, k = 3.0 * 4.0 * pi * pi, c = 0.6, gravity = 9.81;
    double anchor = 2.0, rest = 1.0, z0 = 0.5; // centre starts 0.5 m below the anchor
    SpringData spring() const {
        SpringData sp;
        sp.body = 0;
        sp.other_point[2] = anchor;
        sp.stiffness = k;
        sp.damping = c;
        sp.rest_length = rest;
        return sp;
    }
    double equilibrium() const { return anchor - rest - mass * gravity / k; }
    /// The centre starts at z = anchor − z0, at rest: a above its equilibrium.
    double amplitude() const { return (anchor - z0) - equilibrium(); }
    double exact(double t) const {
        const double omega = std::sqrt(k / mass), zeta = c / (2.0 * std::sqrt(k * mass));
        const double wd = omega * std::sqrt(1.0 - zeta * zeta);
        const double z_eq = equilibrium(), a = amplitude();
        const double b = zeta * omega * a / wd;
        return z_eq + std::exp(-zeta * omega * t) * (a * std::cos(wd * t) + b * std::sin(wd * t));
    }
};

double spring_error(double dt, double end, BodyStage kind) {
    const DampedSpring p;
    RigidBodyData b = body(p.mass, Matrix3d::Identity(), BodyRotation::none, 0b100, p.gravity);
    b.center0[2] = p.anchor - p.z0;
    BodyState s = initial_body_state(b);
    SpringData sp = p.spring();
    sp.point[2] = b.center0[2]; // at the centre
    const auto loads = [&](const BodyState& st) {
        BodyLoads l;
        add_spring(sp, &b, &st, &l);
        return l;
    };
    double worst = 0.0;
    const int steps = static_cast<int>(std::lround(end / dt));
    for (int n = 0; n < steps; ++n) {
        const double t = n * dt;
        if (kind == BodyStage::predict) {
            advance_body(b, s, loads(s), BodyStage::predict, t, dt);
            advance_body(b, s, loads(s), BodyStage::correct, t, dt);
        } else {
            advance_body(b, s, loads(s), n == 0 ? BodyStage::verlet_euler : BodyStage::verlet, t,
                         dt);
        }
        worst = std::max(worst, std::abs(s.center[2] - p.exact(t + dt)));
    }
    return worst / std::abs(p.amplitude()); // relative to the first amplitude
}

TEST(RigidBody, DampedSpringInAirMatchesTheOscillatorToOneInAMillion) {
    // 10 periods of 1 s at dt = 2.5e-5 s (ω dt = 1.6e-4): the phase error of a second-order
    // scheme, (ω dt)²/24 per radian, is 6.6e-8 over 63 rad.
    const double error = spring_error(2.5e-5, 10.0, BodyStage::predict);
    EXPECT_LT(error, 1e-6);
    // Second order: the error falls by 4 when dt halves (3.5–4.5 allows the rounding floor).
    const double coarse = spring_error(4e-4, 10.0, BodyStage::predict);
    const double fine = spring_error(2e-4, 10.0, BodyStage::predict);
    EXPECT_GT(coarse / fine, 3.5);
    EXPECT_LT(coarse / fine, 4.5);
}

TEST(RigidBody, VerletConvergesOnTheDampedSpring) {
    // Verlet's leapfrog velocities (one Euler start) are second order too; its error constant is
    // larger than the symplectic scheme's (1.2e-6 at dt = 1e-4), bound 1e-5.
    const double error = spring_error(1e-4, 5.0, BodyStage::verlet);
    EXPECT_LT(error, 1e-5);
    const double coarse = spring_error(4e-4, 5.0, BodyStage::verlet);
    const double fine = spring_error(2e-4, 5.0, BodyStage::verlet);
    EXPECT_GT(coarse / fine, 3.0);
}

/// The symmetric top's exact orientation (the file comment).
Matrix3d free_top(const Vector3d& l, const Matrix3d& r0, double i1, double i3, double t) {
    const double l3 = (r0.transpose() * l).z();
    const Matrix3d a = Eigen::AngleAxisd(l.norm() / i1 * t, l.normalized()).toRotationMatrix();
    const Matrix3d b =
        Eigen::AngleAxisd((1.0 / i3 - 1.0 / i1) * l3 * t, Vector3d::UnitZ()).toRotationMatrix();
    return a * r0 * b;
}

TEST(RigidBody, SymmetricTopPrecessesAsTheClosedForm) {
    const double i1 = 2.0, i3 = 0.5, mass = 4.0;
    const Matrix3d inertia = Vector3d(i1, i1, i3).asDiagonal();
    RigidBodyData b = body(mass, inertia, BodyRotation::free, 0b111);
    // ω0 about no principal axis: precession |L|/I1 = 3.1 rad/s, spin rate 3 · 6 rad/s.
    const Vector3d omega0(1.0, 0.5, 3.0);
    const double v0[3] = {}, w0[3] = {omega0.x(), omega0.y(), omega0.z()};
    set_initial_velocity(b, v0, w0);
    BodyState s = initial_body_state(b);
    const Vector3d l = inertia * omega0;
    const double energy0 = 0.5 * omega0.dot(inertia * omega0);
    const double dt = 1e-5, end = 20.0; // 10 precession periods
    double worst = 0.0, drift = 0.0;
    run_symplectic(b, s, dt, static_cast<int>(end / dt), no_loads,
                   [&](double t, const BodyState& st) {
                       if (std::fmod(t, 0.05) > dt)
                           return;
                       const Matrix3d exact = free_top(l, Matrix3d::Identity(), i1, i3, t);
                       worst = std::max(worst, (rotation_of(st) - exact).norm());
                       const Vector3d w = vec(st.angular_velocity);
                       const double energy = 0.5 * w.dot(vec(st.angular_momentum));
                       drift = std::max(drift, std::abs(energy / energy0 - 1.0));
                   });
    // Phase error (ω dt)²/24 per radian with ω ≈ 18 rad/s: 1.4e-9 × 360 rad = 5e-7.
    EXPECT_LT(worst, 1e-6);
    // L is integrated exactly (no torque): rounding only.
    EXPECT_LT((vec(s.angular_momentum) - l).norm(), 1e-12 * l.norm());
    // Energy: the midpoint rule keeps it to O(dt²) without secular growth; stated bound 1e-8.
    EXPECT_LT(drift, 1e-8);
    // The quaternion stays a unit one.
    const double q2 = s.orientation[0] * s.orientation[0] + s.orientation[1] * s.orientation[1] +
                      s.orientation[2] * s.orientation[2] + s.orientation[3] * s.orientation[3];
    EXPECT_NEAR(q2, 1.0, 1e-14);
}

TEST(RigidBody, AsymmetricFreeBodyKeepsItsMomentumAndEnergy) {
    // Ω about near the intermediate axis would flip (Dzhanibekov); L and E stay.
    Matrix3d inertia;
    inertia << 1.0, 0.1, 0.0, 0.1, 2.0, 0.2, 0.0, 0.2, 3.0;
    RigidBodyData b = body(1.0, inertia, BodyRotation::free, 0b111);
    const double v0[3] = {}, w0[3] = {0.05, 4.0, 0.05};
    set_initial_velocity(b, v0, w0);
    BodyState s = initial_body_state(b);
    const Vector3d l = vec(s.angular_momentum);
    const double energy0 = 0.5 * vec(s.angular_velocity).dot(l);
    double drift = 0.0;
    run_symplectic(b, s, 1e-4, 100000, no_loads, [&](double, const BodyState& st) {
        const double e = 0.5 * vec(st.angular_velocity).dot(vec(st.angular_momentum));
        drift = std::max(drift, std::abs(e / energy0 - 1.0));
    });
    EXPECT_LT((vec(s.angular_momentum) - l).norm(), 1e-12 * l.norm());
    // 10 s through several flips at ω dt = 4e-4: the O(dt²) energy error, bounded by 1e-6.
    EXPECT_LT(drift, 1e-6);
}

/// K(k), the complete elliptic integral of the first kind: π / (2 AGM(1, √(1 − k²))).
double elliptic_k(double k) {
    double a = 1.0, g = std::sqrt(1.0 - k * k);
    for (int i = 0; i < 30; ++i) {
        const double an = 0.5 * (a + g);
        g = std::sqrt(a * g);
        a = an;
    }
    return pi / (2.0 * a);
}

TEST(RigidBody, HingedPendulumSwingsWithTheExactPeriod) {
    // A rod's centre 0.4 m below a hinge along y through (0, 0, 1), released at 60°.
    const double mass = 2.0, g = 9.81, d = 0.4, ic = 0.05;
    RigidBodyData b = body(mass, Vector3d(ic, ic, ic).asDiagonal(), BodyRotation::hinge, 0, g);
    b.pivot[2] = 1.0;
    const double theta0 = pi / 3.0;
    b.center0[0] = d * std::sin(theta0);
    b.center0[2] = 1.0 - d * std::cos(theta0);
    b.axis_inertia = ic + mass * d * d;
    BodyState s = initial_body_state(b);
    const double period =
        4.0 * std::sqrt(b.axis_inertia / (mass * g * d)) * elliptic_k(std::sin(theta0 / 2.0));
    // Time the third crossing of the lowest point from positive x (θ: + → −) by interpolation.
    const double dt = 1e-5;
    double previous_x = s.center[0], previous_t = 0.0, crossing = 0.0;
    int crossings = 0;
    double energy_drift = 0.0;
    const double energy0 = mass * g * b.center0[2];
    run_symplectic(b, s, dt, static_cast<int>(3.0 * period / dt) + 10, no_loads,
                   [&](double t, const BodyState& st) {
                       if (previous_x > 0.0 && st.center[0] <= 0.0 && crossings < 3) {
                           ++crossings;
                           crossing = previous_t + dt * previous_x / (previous_x - st.center[0]);
                       }
                       previous_x = st.center[0];
                       previous_t = t;
                       const double w = st.angular_velocity[1];
                       const double e = 0.5 * b.axis_inertia * w * w + mass * g * st.center[2];
                       energy_drift = std::max(energy_drift, std::abs(e - energy0) / energy0);
                       // the centre stays on its circle about the pivot
                       const double r = std::hypot(st.center[0], st.center[2] - 1.0);
                       ASSERT_NEAR(r, d, 1e-12);
                   });
    ASSERT_EQ(crossings, 3);
    // First crossing at T/4, then every T: the third at 2.25 T; within 1e-6 relative.
    EXPECT_NEAR(crossing / (2.25 * period), 1.0, 1e-6);
    EXPECT_LT(energy_drift, 1e-8);
}

TEST(RigidBody, TwoDimensionalBodyTurnsAboutYOnly) {
    // A 2D body (x, z translation, rotation about y) under a constant moment and force.
    RigidBodyData b =
        body(5.0, Vector3d(0.0, 0.8, 0.0).asDiagonal(), BodyRotation::axis, 0b101, 9.81);
    b.axis_inertia = 0.8;
    BodyState s = initial_body_state(b);
    const auto loads = [](const BodyState&) {
        BodyLoads l;
        l.fluid_force[0] = 10.0, l.fluid_force[1] = 7.0, l.fluid_force[2] = 5.0 * 9.81;
        l.fluid_moment[1] = 0.4, l.fluid_moment[0] = 3.0; // an x moment is not a 2D one
        return l;
    };
    run_symplectic(b, s, 1e-3, 1000, loads);
    EXPECT_NEAR(s.center[0], 0.5 * 2.0 * 1.0, 1e-12); // a = F/M = 2 m/s²
    EXPECT_EQ(s.center[1], 0.0);
    EXPECT_NEAR(s.center[2], 0.0, 1e-12); // weight balanced
    // θ = ½ (τ/I) t² = 0.25 rad about y.
    const Matrix3d r = rotation_of(s);
    EXPECT_NEAR(std::atan2(r(0, 2), r(0, 0)), 0.25, 1e-9);
    EXPECT_NEAR(r(1, 1), 1.0, 1e-15);
}

TEST(RigidBody, HeldBodyWaitsForItsStart) {
    RigidBodyData b = body(1.0, Matrix3d::Identity(), BodyRotation::none, 0b111, 9.81);
    b.start = 0.5;
    const double v0[3] = {1.0, 0.0, 0.0}, w0[3] = {};
    set_initial_velocity(b, v0, w0);
    BodyState s = initial_body_state(b);
    EXPECT_EQ(s.velocity[0], 0.0);           // at rest while held
    const double dt = 0.5 / 512;             // n dt exact
    run_symplectic(b, s, dt, 512, no_loads); // the last step starts before 0.5
    EXPECT_EQ(vec(s.center).norm(), 0.0);
    for (int n = 512; n < 1024; ++n) {
        advance_body(b, s, {}, BodyStage::predict, n * dt, dt);
        advance_body(b, s, {}, BodyStage::correct, n * dt, dt);
    }
    // Released at 0.5 s with V0: half a second of flight.
    EXPECT_NEAR(s.center[0], 0.5, 1e-12);
    EXPECT_NEAR(s.center[2], -0.5 * 9.81 * 0.25, 1e-12);
}

TEST(RigidBody, SpringBetweenTwoBodiesActsEquallyAndOppositely) {
    RigidBodyData bodies[2] = {body(1.0, Matrix3d::Identity(), BodyRotation::free, 0b111),
                               body(2.0, Matrix3d::Identity(), BodyRotation::free, 0b111)};
    bodies[1].center0[0] = 1.0;
    BodyState states[2] = {initial_body_state(bodies[0]), initial_body_state(bodies[1])};
    SpringData sp;
    sp.body = 0;
    sp.other = 1;
    sp.point[2] = 0.1;       // above body 0's centre
    sp.other_point[0] = 1.0; // body 1's centre
    sp.stiffness = 100.0;
    sp.rest_length = 0.5;
    BodyLoads loads[2];
    add_spring(sp, bodies, states, loads);
    // Stretched: it pulls body 0 towards body 1 and body 1 back.
    EXPECT_GT(loads[0].spring_force[0], 0.0);
    for (int a = 0; a < 3; ++a)
        EXPECT_DOUBLE_EQ(loads[0].spring_force[a], -loads[1].spring_force[a]);
    // The arm 0.1 above body 0's centre gives a moment about y; none on body 1.
    EXPECT_NE(loads[0].spring_moment[1], 0.0);
    EXPECT_NEAR(vec(loads[1].spring_moment).norm(), 0.0, 1e-14);
    // A slack line pushes nothing when short.
    sp.slack = true;
    sp.rest_length = 5.0;
    BodyLoads slack[2];
    add_spring(sp, bodies, states, slack);
    EXPECT_EQ(vec(slack[0].spring_force).norm(), 0.0);
}

TEST(RigidBody, ParticlesFollowTheBody) {
    // body_rigid_state's pose and field agree with body_point for a point of the body.
    RigidBodyData b = body(1.0, Vector3d(1.0, 2.0, 3.0).asDiagonal(), BodyRotation::free, 0b111);
    b.center0[0] = 0.3, b.center0[2] = 0.7;
    const double v0[3] = {0.2, -0.1, 0.4}, w0[3] = {0.5, 1.0, -0.7};
    set_initial_velocity(b, v0, w0);
    BodyState s = initial_body_state(b);
    run_symplectic(b, s, 1e-3, 300, no_loads);
    const RigidState r = body_rigid_state(b, s);
    const double x0[3] = {0.5, 0.1, 0.9};
    double x[3], v[3];
    body_point(b, s, x0, x, v);
    const Matrix3d rot = test::mat(r.pose.rotation);
    const Vector3d posed = rot * vec(x0) + vec(r.pose.translation);
    EXPECT_LT((posed - vec(x)).norm(), 1e-14);
    const Vector3d field = vec(r.velocity) + vec(r.angular_velocity).cross(posed);
    EXPECT_LT((field - vec(v)).norm(), 1e-13);
    EXPECT_GE(r.speed_bound, vec(v).norm() - 1e-12); // radius 1 covers the point
}

} // namespace
} // namespace sluice
