#pragma once
/// \file rigid_body.h
/// Floating objects: rigid bodies that the water moves (DESIGN.md, Physics). Host and device
/// code: the CPU backend calls it in a loop, the CUDA backend from one thread of its Motion
/// pass's kernel (a handful of bodies; nothing is read back per step).
///
/// A body's particles were generated in its reference pose (t = 0): centre of mass c0 and
/// orientation the identity. Its state is the centre of mass c, the unit quaternion q that turns
/// the reference pose into the present one, the centre's velocity V and the angular velocity ω
/// (world axes), and — for a free rotation — the angular momentum L about c (world axes), which
/// is what the torque integrates. A particle's position is x = R(q) (x0 − c0) + c, i.e. the pose
/// R x0 + T of physics/motion.h with T = c − R c0, and its velocity V + ω × (x − c).
///
/// Newton–Euler (Goldstein, Classical Mechanics, §5.5):
///   M dV/dt = F + M g,    dL/dt = τ,    ω = I_w⁻¹ L,   I_w = R I0 Rᵀ,
/// with F and τ (about c) the sums of the fluid's force (physics/forces.h), the contacts', the
/// springs' and — for a constrained body — what the constraint leaves of them:
/// - translation: each axis free or fixed (a fixed axis takes no acceleration: its component of
///   V stays 0);
/// - rotation: free (3D), none, about an axis through c fixed in space (2D bodies: y), or about a
///   hinge line through a fixed point p (the centre then follows: c = p + R (c0 − p), V = ω ×
///   (c − p), and the angular acceleration is n·τ_p / I_p with the moment τ_p about p of every
///   load, gravity included, and I_p = n·I0 n + M |n × (c0 − p)|², the parallel-axis theorem).
///   About a fixed axis n through c, n·(ω × I_w ω) = 0 for ω ∥ n, so ω̇ = n·τ / (n·I_w n) n.
///
/// Integration follows the fluid's scheme within each step (integrators.h; Crespo et al. 2015,
/// CPC 187 eqs. 22–24): the symplectic predictor with the loads of state n, the corrector with
/// those of n+½; the rotation by the explicit midpoint rule on the rotation group (Crouch &
/// Grossman 1993, J. Nonlinear Sci. 3; Hairer, Lubich & Wanner, Geometric Numerical
/// Integration, 2nd ed., §IV.8):
///   predict:  V½ = Vⁿ + dt/2 Aⁿ,  c½ = cⁿ + dt/2 Vⁿ,  L½ = Lⁿ + dt/2 τⁿ,  q½ = exp(dt/2 ωⁿ) qⁿ,
///   correct:  Vⁿ⁺¹ = Vⁿ + dt A½,  cⁿ⁺¹ = cⁿ + dt (Vⁿ + Vⁿ⁺¹)/2,  Lⁿ⁺¹ = Lⁿ + dt τ½,
///             qⁿ⁺¹ = exp(dt ω̄) qⁿ with ω̄ = I_w(q½)⁻¹ (Lⁿ + Lⁿ⁺¹)/2,
/// second order; torque-free, L is kept exactly and |q| to rounding (renormalised every update).
/// Verlet (Crespo et al. 2015 eq. 20): Vⁿ⁺¹ = Vⁿ⁻¹ + 2 dt Aⁿ (every reset step Vⁿ + dt Aⁿ),
/// cⁿ⁺¹ = cⁿ + dt Vⁿ + dt²/2 Aⁿ, the same for L, and qⁿ⁺¹ = exp(dt I_w(qⁿ)⁻¹ (Lⁿ + dt/2 τⁿ)) qⁿ.
///
/// Units: SI. 2D bodies are per unit width (kg/m, kg·m²/m, N/m): their loads come per unit width
/// too (forces.h), so the equations are the same.

#include "neighbours/vec.h"
#include "physics/motion.h"

#include <cstdint>

namespace sluice {

/// What a body's rotation may do (the class comment).
enum class BodyRotation : std::uint8_t {
    none,  ///< it keeps its orientation
    axis,  ///< about `axis` through its centre of mass (2D: y)
    hinge, ///< about `axis` through the fixed point `pivot`; the centre follows
    free,  ///< 3D: every direction
};

/// A body's constants (case/body_table.h builds them from the case).
struct RigidBodyData {
    double mass = 0.0;      ///< kg (2D: kg/m)
    double inertia[9] = {}; ///< kg·m² about c0, reference axes, row-major (2D: [4] = I_yy)
    double inverse_inertia[9] = {}; ///< its inverse (free rotation)
    double center0[3] = {};         ///< m, the centre of mass at t = 0
    double gravity[3] = {};         ///< m/s², the case's (0, 0, −g)
    /// Bit a (1 << a) set: translation along world axis a is free (hinge: none is).
    std::uint8_t free_translation = 0;
    BodyRotation rotation = BodyRotation::none;
    double axis[3] = {0.0, 1.0, 0.0}; ///< axis and hinge: unit vector
    double pivot[3] = {};             ///< hinge: m, a point of the hinge line
    double axis_inertia = 0.0;        ///< axis: n·I0 n; hinge: I_p (kg·m²)
    double start = 0.0; ///< s: before it the body is held at rest (its loads are still summed)
    double initial_velocity[3] = {};         ///< V at release, m/s (projected, free axes only)
    double initial_angular_momentum[3] = {}; ///< L at release (I0 ω0, projected)
    double radius = 0.0;                     ///< m, the largest distance of its particles from c0
    std::uint32_t object = 0; ///< its index among the boundary objects (its motion state)
    std::uint32_t first_id = 0, id_count = 0; ///< its particles: ids [first_id, first_id + count)
};

/// A linear spring with a dashpot (a mooring line, a power take-off) between a point of body
/// `body` and a fixed point or a point of body `other`: along the line from the other end to
/// this one, unit u and length ℓ, the force on this end is −(k (ℓ − ℓ0) + c dℓ/dt) u (tension
/// only when `slack`), and the other end takes the opposite.
struct SpringData {
    std::uint32_t body = 0;
    std::uint32_t other = no_body; ///< no_body: `other_point` is fixed in space
    double point[3] = {};          ///< m, on `body` at t = 0
    double other_point[3] = {};    ///< m, fixed, or on `other` at t = 0
    double stiffness = 0.0;        ///< k, N/m (2D: N/m per m of width)
    double damping = 0.0;          ///< c, N·s/m (2D: per m of width)
    double rest_length = 0.0;      ///< ℓ0, m
    bool slack = false;            ///< a line: no force while ℓ < ℓ0
    static constexpr std::uint32_t no_body = 0xffffffffu;
};

/// A body's motion now. `previous_*` keep state n through a symplectic step, and Verlet's n−1
/// velocities.
struct BodyState {
    double center[3] = {};                        ///< c, m
    double orientation[4] = {1.0, 0.0, 0.0, 0.0}; ///< q (w, x, y, z)
    double velocity[3] = {};                      ///< V, m/s
    double angular_velocity[3] = {};              ///< ω, rad/s
    double angular_momentum[3] = {};              ///< L about c, kg·m²/s (2D: kg·m²/s per m)
    double acceleration[3] = {};                  ///< of the centre at the last update, m/s²
    double angular_acceleration[3] = {};          ///< rad/s²
    double previous_center[3] = {};
    double previous_orientation[4] = {1.0, 0.0, 0.0, 0.0};
    double previous_velocity[3] = {};
    double previous_angular_momentum[3] = {};
    /// 1 while held (before RigidBodyData::start; it is released with its initial velocity by
    /// the first step that starts at or after it), else 0.
    double held = 0.0;
};

/// Which update of a step (integrators.h): the symplectic predictor and corrector, a Verlet step
/// and Verlet's reset step (forward Euler velocities).
enum class BodyStage : std::uint8_t { predict, correct, verlet, verlet_euler };

/// The loads on a body at one stage (N, N·m about its centre of mass; 2D per unit width):
/// the fluid's (forces.h), the contacts' (contact.h) and the springs'.
struct BodyLoads {
    double fluid_force[3] = {};
    double fluid_moment[3] = {};
    double contact_force[3] = {};
    double contact_moment[3] = {};
    double spring_force[3] = {};
    double spring_moment[3] = {};
};

/// Doubles of BodyLoads summed over the particles (fluid and contact: the reduction over
/// processes adds these).
constexpr int body_particle_sums = 12;

namespace rigid {

SLUICE_HD SLUICE_INLINE double dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// out = m v (m row-major 3×3).
SLUICE_HD SLUICE_INLINE void mat_vec(const double* m, const double* v, double* out) {
    const double x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    const double y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
    const double z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

/// out = mᵀ v.
SLUICE_HD SLUICE_INLINE void mat_t_vec(const double* m, const double* v, double* out) {
    const double x = m[0] * v[0] + m[3] * v[1] + m[6] * v[2];
    const double y = m[1] * v[0] + m[4] * v[1] + m[7] * v[2];
    const double z = m[2] * v[0] + m[5] * v[1] + m[8] * v[2];
    out[0] = x, out[1] = y, out[2] = z;
}

/// The rotation matrix of unit quaternion q (w, x, y, z), row-major.
SLUICE_HD SLUICE_INLINE void rotation_matrix(const double* q, double* r) {
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0] = 1.0 - 2.0 * (y * y + z * z);
    r[1] = 2.0 * (x * y - w * z);
    r[2] = 2.0 * (x * z + w * y);
    r[3] = 2.0 * (x * y + w * z);
    r[4] = 1.0 - 2.0 * (x * x + z * z);
    r[5] = 2.0 * (y * z - w * x);
    r[6] = 2.0 * (x * z - w * y);
    r[7] = 2.0 * (y * z + w * x);
    r[8] = 1.0 - 2.0 * (x * x + y * y);
}

/// q ← exp(φ/2) ⊗ q: q turned by the rotation vector φ (angle |φ| about φ/|φ|, world axes),
/// renormalised.
SLUICE_HD SLUICE_INLINE void rotate_quaternion(const double* phi, const double* q, double* out) {
    const double angle = sqrt(dot3(phi, phi));
    double d[4] = {1.0, 0.0, 0.0, 0.0};
    if (angle > 0.0) {
        const double s = sin(0.5 * angle) / angle;
        d[0] = cos(0.5 * angle), d[1] = s * phi[0], d[2] = s * phi[1], d[3] = s * phi[2];
    }
    double p[4];
    p[0] = d[0] * q[0] - d[1] * q[1] - d[2] * q[2] - d[3] * q[3];
    p[1] = d[0] * q[1] + d[1] * q[0] + d[2] * q[3] - d[3] * q[2];
    p[2] = d[0] * q[2] - d[1] * q[3] + d[2] * q[0] + d[3] * q[1];
    p[3] = d[0] * q[3] + d[1] * q[2] - d[2] * q[1] + d[3] * q[0];
    const double norm = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
    for (int k = 0; k < 4; ++k)
        out[k] = p[k] / norm;
}

/// out = I_w⁻¹ L = R I0⁻¹ Rᵀ L (free rotation).
SLUICE_HD SLUICE_INLINE void world_inverse_inertia_times(const RigidBodyData& b, const double* q,
                                                         const double* l, double* out) {
    double r[9], body[3];
    rotation_matrix(q, r);
    mat_t_vec(r, l, body);
    mat_vec(b.inverse_inertia, body, body);
    mat_vec(r, body, out);
}

/// The angular velocity that a free body's L, or a constrained body's stored ω, gives at
/// orientation q.
SLUICE_HD SLUICE_INLINE void angular_velocity_of(const RigidBodyData& b, const double* q,
                                                 const double* l, double* out) {
    if (b.rotation == BodyRotation::free) {
        world_inverse_inertia_times(b, q, l, out);
        return;
    }
    // axis, hinge: L holds I_a ω_a along the axis; none: 0.
    const double along = b.rotation == BodyRotation::none ? 0.0 : dot3(l, b.axis) / b.axis_inertia;
    for (int k = 0; k < 3; ++k)
        out[k] = along * b.axis[k];
}

/// The sums of the loads: force F (N) and moment τ (N·m) about the centre of mass.
SLUICE_HD SLUICE_INLINE void total_load(const BodyLoads& l, double* force, double* moment) {
    for (int k = 0; k < 3; ++k) {
        force[k] = l.fluid_force[k] + l.contact_force[k] + l.spring_force[k];
        moment[k] = l.fluid_moment[k] + l.contact_moment[k] + l.spring_moment[k];
    }
}

/// The centre's acceleration A and dL/dt (what the integration takes) at state s under loads l;
/// for a hinge, dL/dt is the moment about the pivot projected on the axis (L = I_p ω there).
SLUICE_HD SLUICE_INLINE void rates(const RigidBodyData& b, const BodyState& s, const BodyLoads& l,
                                   double* acceleration, double* torque) {
    double force[3], moment[3];
    total_load(l, force, moment);
    for (int k = 0; k < 3; ++k)
        acceleration[k] = ((b.free_translation >> k) & 1u) ? force[k] / b.mass + b.gravity[k] : 0.0;
    switch (b.rotation) {
    case BodyRotation::none:
        torque[0] = torque[1] = torque[2] = 0.0;
        break;
    case BodyRotation::free:
        torque[0] = moment[0], torque[1] = moment[1], torque[2] = moment[2];
        break;
    case BodyRotation::axis: {
        const double along = dot3(moment, b.axis);
        for (int k = 0; k < 3; ++k)
            torque[k] = along * b.axis[k];
        break;
    }
    case BodyRotation::hinge: {
        // τ_p = τ_c + (c − p) × (F + M g)
        double arm[3], total[3], cross[3];
        for (int k = 0; k < 3; ++k) {
            arm[k] = s.center[k] - b.pivot[k];
            total[k] = force[k] + b.mass * b.gravity[k];
        }
        detail::cross3(arm, total, cross);
        double tp[3];
        for (int k = 0; k < 3; ++k)
            tp[k] = moment[k] + cross[k];
        const double along = dot3(tp, b.axis);
        for (int k = 0; k < 3; ++k)
            torque[k] = along * b.axis[k];
        for (int k = 0; k < 3; ++k)
            acceleration[k] = 0.0; // the centre follows the rotation (finish_pose)
        break;
    }
    }
}

/// After the orientation changed: a hinged body's centre and velocity from its rotation, ω from
/// L, and the accelerations for the particles' field (A, α).
SLUICE_HD SLUICE_INLINE void finish_state(const RigidBodyData& b, BodyState& s,
                                          const double* acceleration, const double* torque) {
    angular_velocity_of(b, s.orientation, s.angular_momentum, s.angular_velocity);
    if (b.rotation == BodyRotation::hinge) {
        double r[9], arm0[3], arm[3];
        rotation_matrix(s.orientation, r);
        for (int k = 0; k < 3; ++k)
            arm0[k] = b.center0[k] - b.pivot[k];
        mat_vec(r, arm0, arm);
        detail::cross3(s.angular_velocity, arm, s.velocity);
        for (int k = 0; k < 3; ++k)
            s.center[k] = b.pivot[k] + arm[k];
    }
    // α = I_w⁻¹ (τ − ω × L) (free; about a fixed axis the gyroscopic term has no component
    // along it), and a hinged centre's A = α × (c − p) + ω × (ω × (c − p)).
    double net[3], gyro[3], alpha[3];
    detail::cross3(s.angular_velocity, s.angular_momentum, gyro);
    for (int k = 0; k < 3; ++k)
        net[k] = torque[k] - (b.rotation == BodyRotation::free ? gyro[k] : 0.0);
    angular_velocity_of(b, s.orientation, net, alpha);
    for (int k = 0; k < 3; ++k) {
        s.acceleration[k] = acceleration[k];
        s.angular_acceleration[k] = alpha[k];
    }
    if (b.rotation == BodyRotation::hinge) {
        double arm[3], a_arm[3], w_arm[3], ww_arm[3];
        for (int k = 0; k < 3; ++k)
            arm[k] = s.center[k] - b.pivot[k];
        detail::cross3(alpha, arm, a_arm);
        detail::cross3(s.angular_velocity, arm, w_arm);
        detail::cross3(s.angular_velocity, w_arm, ww_arm);
        for (int k = 0; k < 3; ++k)
            s.acceleration[k] = a_arm[k] + ww_arm[k];
    }
}

} // namespace rigid

/// The initial velocity V0 and angular momentum I0 ω0 that body b takes at release, projected
/// onto what its constraints allow (a fixed axis takes no velocity; about an axis only the
/// component along it; a hinged body's centre follows from ω).
SLUICE_HD SLUICE_INLINE void set_initial_velocity(RigidBodyData& b, const double* v0,
                                                  const double* omega0) {
    double l[3] = {};
    if (b.rotation == BodyRotation::free) {
        rigid::mat_vec(b.inertia, omega0, l);
    } else if (b.rotation != BodyRotation::none) {
        const double along = rigid::dot3(omega0, b.axis) * b.axis_inertia;
        for (int k = 0; k < 3; ++k)
            l[k] = along * b.axis[k];
    }
    for (int k = 0; k < 3; ++k) {
        b.initial_velocity[k] = ((b.free_translation >> k) & 1u) ? v0[k] : 0.0;
        b.initial_angular_momentum[k] = l[k];
    }
}

/// The state at t = 0: the reference pose; held at rest when the body starts later, else moving
/// with its initial velocity.
SLUICE_HD SLUICE_INLINE BodyState initial_body_state(const RigidBodyData& b) {
    BodyState s;
    const bool held = b.start > 0.0;
    for (int k = 0; k < 3; ++k) {
        s.center[k] = s.previous_center[k] = b.center0[k];
        s.velocity[k] = held ? 0.0 : b.initial_velocity[k];
        s.angular_momentum[k] = held ? 0.0 : b.initial_angular_momentum[k];
        s.previous_angular_momentum[k] = s.angular_momentum[k];
    }
    s.held = held ? 1.0 : 0.0;
    const double zero[3] = {};
    rigid::finish_state(b, s, zero, zero);
    for (int k = 0; k < 3; ++k)
        s.previous_velocity[k] = s.velocity[k];
    return s;
}

/// The symplectic predictor over dt/2 with the loads of state n (the class comment).
SLUICE_HD SLUICE_INLINE void body_predict(const RigidBodyData& b, BodyState& s,
                                          const BodyLoads& loads, double dt) {
    double a[3] = {}, torque[3] = {};
    rigid::rates(b, s, loads, a, torque);
    for (int k = 0; k < 4; ++k)
        s.previous_orientation[k] = s.orientation[k];
    const double half = 0.5 * dt;
    double phi[3];
    for (int k = 0; k < 3; ++k) {
        s.previous_center[k] = s.center[k];
        s.previous_velocity[k] = s.velocity[k];
        s.previous_angular_momentum[k] = s.angular_momentum[k];
        s.center[k] += half * s.velocity[k];
        s.velocity[k] += half * a[k];
        s.angular_momentum[k] += half * torque[k];
        phi[k] = half * s.angular_velocity[k];
    }
    rigid::rotate_quaternion(phi, s.previous_orientation, s.orientation);
    rigid::finish_state(b, s, a, torque);
}

/// The symplectic corrector over dt from state n (previous_*) with the loads of n+½ (s is the
/// predicted state n+½).
SLUICE_HD SLUICE_INLINE void body_correct(const RigidBodyData& b, BodyState& s,
                                          const BodyLoads& loads, double dt) {
    double a[3] = {}, torque[3] = {};
    rigid::rates(b, s, loads, a, torque);
    double mean_l[3], omega[3];
    for (int k = 0; k < 3; ++k) {
        const double v_new = s.previous_velocity[k] + dt * a[k];
        s.center[k] = s.previous_center[k] + 0.5 * dt * (s.previous_velocity[k] + v_new);
        s.velocity[k] = v_new;
        const double l_new = s.previous_angular_momentum[k] + dt * torque[k];
        mean_l[k] = 0.5 * (s.previous_angular_momentum[k] + l_new);
        s.angular_momentum[k] = l_new;
    }
    rigid::angular_velocity_of(b, s.orientation, mean_l, omega); // at q½
    double phi[3] = {dt * omega[0], dt * omega[1], dt * omega[2]};
    rigid::rotate_quaternion(phi, s.previous_orientation, s.orientation);
    rigid::finish_state(b, s, a, torque);
}

/// One Verlet step (the class comment); `euler`: the reset step's forward Euler velocities.
SLUICE_HD SLUICE_INLINE void body_verlet(const RigidBodyData& b, BodyState& s,
                                         const BodyLoads& loads, double dt, bool euler) {
    double a[3] = {}, torque[3] = {};
    rigid::rates(b, s, loads, a, torque);
    double l_mid[3], omega[3];
    for (int k = 0; k < 3; ++k)
        l_mid[k] = s.angular_momentum[k] + 0.5 * dt * torque[k];
    rigid::angular_velocity_of(b, s.orientation, l_mid, omega);
    double phi[3] = {dt * omega[0], dt * omega[1], dt * omega[2]};
    double q_new[4];
    rigid::rotate_quaternion(phi, s.orientation, q_new);
    for (int k = 0; k < 3; ++k) {
        const double v = s.velocity[k], l = s.angular_momentum[k];
        s.center[k] += dt * v + 0.5 * dt * dt * a[k];
        s.velocity[k] = (euler ? v : s.previous_velocity[k]) + (euler ? dt : 2.0 * dt) * a[k];
        s.angular_momentum[k] =
            (euler ? l : s.previous_angular_momentum[k]) + (euler ? dt : 2.0 * dt) * torque[k];
        s.previous_velocity[k] = v;
        s.previous_angular_momentum[k] = l;
    }
    for (int k = 0; k < 4; ++k)
        s.orientation[k] = q_new[k];
    rigid::finish_state(b, s, a, torque);
}

/// Body b's update at a Motion pass of the step that starts at `time` (s) with time step dt:
/// held before b.start (the loads are summed all the same), released with its initial velocity
/// by the first step that starts at or after it.
SLUICE_HD SLUICE_INLINE void advance_body(const RigidBodyData& b, BodyState& s,
                                          const BodyLoads& loads, BodyStage stage, double time,
                                          double dt) {
    if (time < b.start)
        return;
    if (s.held != 0.0) {
        s.held = 0.0;
        for (int k = 0; k < 3; ++k) {
            s.velocity[k] = s.previous_velocity[k] = b.initial_velocity[k];
            s.angular_momentum[k] = s.previous_angular_momentum[k] = b.initial_angular_momentum[k];
        }
        const double zero[3] = {};
        rigid::finish_state(b, s, zero, zero);
    }
    switch (stage) {
    case BodyStage::predict:
        body_predict(b, s, loads, dt);
        break;
    case BodyStage::correct:
        body_correct(b, s, loads, dt);
        break;
    case BodyStage::verlet:
    case BodyStage::verlet_euler:
        body_verlet(b, s, loads, dt, stage == BodyStage::verlet_euler);
        break;
    }
}

/// The pose and velocity field its particles take (physics/motion.h): x = R x0 + T with
/// T = c − R c0, v = V_o + ω × x with V_o = V − ω × c, a = A_o + α × x + ω × (ω × x).
SLUICE_HD SLUICE_INLINE RigidState body_rigid_state(const RigidBodyData& b, const BodyState& s) {
    RigidState out;
    rigid::rotation_matrix(s.orientation, out.pose.rotation);
    double rc0[3], wc[3], ac[3], wwc[3];
    rigid::mat_vec(out.pose.rotation, b.center0, rc0);
    detail::cross3(s.angular_velocity, s.center, wc);
    detail::cross3(s.angular_acceleration, s.center, ac);
    detail::cross3(s.angular_velocity, wc, wwc);
    double speed2 = 0.0, spin2 = 0.0;
    for (int k = 0; k < 3; ++k) {
        out.pose.translation[k] = s.center[k] - rc0[k];
        out.velocity[k] = s.velocity[k] - wc[k];
        out.angular_velocity[k] = s.angular_velocity[k];
        out.acceleration[k] = s.acceleration[k] - ac[k] - wwc[k];
        out.angular_acceleration[k] = s.angular_acceleration[k];
        speed2 += s.velocity[k] * s.velocity[k];
        spin2 += s.angular_velocity[k] * s.angular_velocity[k];
    }
    out.speed_bound = sqrt(speed2) + sqrt(spin2) * b.radius;
    out.moving = true;
    return out;
}

/// A point fixed in body b's reference pose (x0, m) where the body has it now, and its velocity.
SLUICE_HD SLUICE_INLINE void body_point(const RigidBodyData& b, const BodyState& s,
                                        const double* x0, double* x, double* v) {
    double r[9], arm0[3], arm[3], w[3];
    rigid::rotation_matrix(s.orientation, r);
    for (int k = 0; k < 3; ++k)
        arm0[k] = x0[k] - b.center0[k];
    rigid::mat_vec(r, arm0, arm);
    detail::cross3(s.angular_velocity, arm, w);
    for (int k = 0; k < 3; ++k) {
        x[k] = s.center[k] + arm[k];
        v[k] = s.velocity[k] + w[k];
    }
}

/// Adds spring k's force and moment to the loads of the bodies at its ends (loads by body).
SLUICE_HD SLUICE_INLINE void add_spring(const SpringData& k, const RigidBodyData* bodies,
                                        const BodyState* states, BodyLoads* loads) {
    double xa[3], va[3], xb[3] = {k.other_point[0], k.other_point[1], k.other_point[2]}, vb[3] = {};
    body_point(bodies[k.body], states[k.body], k.point, xa, va);
    if (k.other != SpringData::no_body)
        body_point(bodies[k.other], states[k.other], k.other_point, xb, vb);
    double d[3], dv[3];
    for (int a = 0; a < 3; ++a)
        d[a] = xa[a] - xb[a], dv[a] = va[a] - vb[a];
    const double length = sqrt(rigid::dot3(d, d));
    if (!(length > 0.0))
        return; // no direction: the ends coincide
    double u[3] = {d[0] / length, d[1] / length, d[2] / length};
    double tension = k.stiffness * (length - k.rest_length) + k.damping * rigid::dot3(dv, u);
    if (k.slack && length < k.rest_length)
        tension = 0.0;
    const auto apply = [&](std::uint32_t body, const double* x, double sign) {
        const BodyState& s = states[body];
        double f[3], arm[3], m[3];
        for (int a = 0; a < 3; ++a)
            f[a] = -sign * tension * u[a], arm[a] = x[a] - s.center[a];
        detail::cross3(arm, f, m);
        for (int a = 0; a < 3; ++a)
            loads[body].spring_force[a] += f[a], loads[body].spring_moment[a] += m[a];
    };
    apply(k.body, xa, 1.0);
    if (k.other != SpringData::no_body)
        apply(k.other, xb, -1.0);
}

/// Every body's loads at one stage: its particles' sums (body_particle_sums doubles per body, as
/// the BodyLoads pass adds them: fluid force and moment, contact force and moment) and its
/// springs' from the bodies' states. Both backends call it (the CUDA one in a single thread).
SLUICE_HD SLUICE_INLINE void body_loads_from_sums(const double* sums, const RigidBodyData* bodies,
                                                  const BodyState* states, std::uint32_t count,
                                                  const SpringData* springs,
                                                  std::uint32_t spring_count, BodyLoads* loads) {
    for (std::uint32_t b = 0; b < count; ++b) {
        BodyLoads& l = loads[b];
        const double* in = sums + body_particle_sums * b;
        for (int a = 0; a < 3; ++a) {
            l.fluid_force[a] = in[a];
            l.fluid_moment[a] = in[3 + a];
            l.contact_force[a] = in[6 + a];
            l.contact_moment[a] = in[9 + a];
            l.spring_force[a] = l.spring_moment[a] = 0.0;
        }
    }
    for (std::uint32_t k = 0; k < spring_count; ++k)
        add_spring(springs[k], bodies, states, loads);
}

} // namespace sluice
