#pragma once
/// \file motion.h
/// Prescribed rigid motion of boundary objects, evaluated from the time alone (host and device:
/// the CUDA backend evaluates it in a kernel from the step's time on the device, so a moving
/// wall adds no host synchronisation to a step). case/motion_table.h builds these tables from the
/// case's <motion> elements (case/motion_model.h says what each segment means).
///
/// An object's pose maps its particles' reference positions x0 (where the case generated them)
/// to x = R x0 + T. Each segment moves the object relative to its pose at the segment's start
/// (precomputed: `base`), by a translation d(τ) or a rotation by θ(τ) about an axis fixed in
/// space (τ = t − start); between segments and after the last the object rests in the pose its
/// last segment ended in (`end`). The velocity field of a rigid body is v(x) = V + ω × x and its
/// acceleration a(x) = A + α × x + ω × (ω × x), with V and A those of the body point now at the
/// origin (Goldstein, Classical Mechanics, §4.9 and §4.10):
///   translation: V = d'(τ), A = d''(τ), ω = α = 0;
///   rotation by θ about unit axis n through p: ω = θ' n, α = θ'' n, V = −ω × p,
///   A = −α × p − ω × (ω × p).
///
/// Every position, velocity and angle here is double: a particle's position is R x0 + T in
/// float from these (rigid_position), so it follows the prescribed path within float rounding.

#include "neighbours/vec.h"

#include <cstdint>

namespace sluice {

/// What a segment's profile is.
enum class SegmentKind : std::uint8_t {
    translation_polynomial, ///< d = v τ + a τ²/2 (vectors)
    rotation_polynomial,    ///< θ = ω τ + α τ²/2
    translation_sines,      ///< d = direction · p(τ)
    rotation_sines,         ///< θ = p(τ)
    translation_table,      ///< d = f(start + τ) − f(start), f linear between samples (vectors)
    rotation_table,         ///< θ = f(start + τ) − f(start)
};

/// A pose: x = R x0 + T (R row-major).
struct RigidPose {
    double rotation[9];
    double translation[3];
};

/// One segment of an object's motion (physics layer, plain data for the device).
///
/// Sines: p(τ) = r(τ) Σ_i a_i sin(ω_i τ + φ_i) − offset, with the ramp r(τ) = (1 − cos(π τ /
/// ramp))/2 for τ < ramp (1 after; ramp 0: r ≡ 1) and offset = r(0) Σ_i a_i sin φ_i, so that p(0)
/// = 0: the segment starts where the last one left the object.
struct MotionSegmentData {
    double start = 0.0, end = 0.0; ///< s; end > start (may be +∞)
    SegmentKind kind = SegmentKind::translation_polynomial;
    RigidPose base{};            ///< the pose at start
    RigidPose end_pose{};        ///< the pose at end (the object rests there after it)
    double direction[3] = {};    ///< translation_sines: unit vector
    double point[3] = {};        ///< rotations: a point of the axis (m)
    double axis[3] = {};         ///< rotations: unit vector
    double velocity[3] = {};     ///< translation_polynomial: v (m/s); rotation: [0] = ω (rad/s)
    double acceleration[3] = {}; ///< translation_polynomial: a (m/s²); rotation: [0] = α
    std::uint32_t first = 0;     ///< sines: first component; tables: first sample
    std::uint32_t count = 0;     ///< components or samples
    double ramp = 0.0;           ///< sines: s
    double offset = 0.0;         ///< sines: p's value at τ = 0 before it is taken off
    /// Rotations: the largest distance of the object's points from the axis during the segment
    /// (m), so that |ω| × radius bounds their speed.
    double radius = 0.0;
};

/// One sinusoid of a sines profile: a sin(ω τ + φ) (m or rad).
struct SineComponent {
    double amplitude = 0.0, omega = 0.0, phase = 0.0;
};

/// One sample of a table profile: time (s, absolute) and value (m, or rad in [0]).
struct TableSample {
    double time = 0.0;
    double value[3] = {};
};

/// The motion tables of every boundary object of a case (host or device pointers).
/// Object k's segments are segments[object_first[k] … object_first[k + 1]), in time order.
struct MotionTablesView {
    const MotionSegmentData* segments = nullptr;
    const SineComponent* sines = nullptr;
    const TableSample* samples = nullptr;
    const std::uint32_t* object_first = nullptr; ///< objects + 1 entries
    std::uint32_t objects = 0;
};

/// An object's pose and velocity field at one time.
struct RigidState {
    RigidPose pose{};
    double velocity[3] = {};             ///< V (m/s): of the body point at the origin
    double angular_velocity[3] = {};     ///< ω (rad/s)
    double acceleration[3] = {};         ///< A (m/s²)
    double angular_acceleration[3] = {}; ///< α (rad/s²)
    /// The largest speed of the object's points now (m/s): |V| for a translation, |ω| × the
    /// segment's radius for a rotation; 0 at rest.
    double speed_bound = 0.0;
    bool moving = false; ///< a segment is running (V, ω nonzero in general)
};

namespace detail {

SLUICE_HD SLUICE_INLINE void identity_pose(RigidPose& p) {
    for (int k = 0; k < 9; ++k)
        p.rotation[k] = (k % 4 == 0) ? 1.0 : 0.0;
    for (int k = 0; k < 3; ++k)
        p.translation[k] = 0.0;
}

SLUICE_HD SLUICE_INLINE void cross3(const double* a, const double* b, double* out) {
    const double x = a[1] * b[2] - a[2] * b[1];
    const double y = a[2] * b[0] - a[0] * b[2];
    const double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x, out[1] = y, out[2] = z;
}

/// Rodrigues' rotation matrix of angle θ about unit axis n (row-major).
SLUICE_HD SLUICE_INLINE void axis_angle(const double* n, double theta, double* r) {
    const double c = cos(theta), s = sin(theta), t = 1.0 - c;
    r[0] = c + t * n[0] * n[0];
    r[1] = t * n[0] * n[1] - s * n[2];
    r[2] = t * n[0] * n[2] + s * n[1];
    r[3] = t * n[1] * n[0] + s * n[2];
    r[4] = c + t * n[1] * n[1];
    r[5] = t * n[1] * n[2] - s * n[0];
    r[6] = t * n[2] * n[0] - s * n[1];
    r[7] = t * n[2] * n[1] + s * n[0];
    r[8] = c + t * n[2] * n[2];
}

/// p(τ), p'(τ), p''(τ) of a sines profile (MotionSegmentData's comment).
SLUICE_HD SLUICE_INLINE void sines_profile(const MotionSegmentData& s, const SineComponent* c,
                                           double tau, double out[3]) {
    double f = 0.0, df = 0.0, ddf = 0.0;
    for (std::uint32_t i = 0; i < s.count; ++i) {
        const SineComponent& k = c[s.first + i];
        const double arg = k.omega * tau + k.phase;
        const double sn = sin(arg), cs = cos(arg);
        f += k.amplitude * sn;
        df += k.amplitude * k.omega * cs;
        ddf -= k.amplitude * k.omega * k.omega * sn;
    }
    double r = 1.0, dr = 0.0, ddr = 0.0;
    if (s.ramp > 0.0 && tau < s.ramp) {
        const double w = 3.14159265358979323846 / s.ramp;
        r = 0.5 * (1.0 - cos(w * tau));
        dr = 0.5 * w * sin(w * tau);
        ddr = 0.5 * w * w * cos(w * tau);
    }
    out[0] = r * f - s.offset;
    out[1] = dr * f + r * df;
    out[2] = ddr * f + 2.0 * dr * df + r * ddf;
}

/// f(t) and its slope of a table profile, component k (f held at the ends, slope 0 there).
SLUICE_HD SLUICE_INLINE void table_value(const MotionSegmentData& s, const TableSample* samples,
                                         double t, int k, double& f, double& slope) {
    const TableSample* p = samples + s.first;
    const std::uint32_t n = s.count;
    slope = 0.0;
    if (t <= p[0].time) {
        f = p[0].value[k];
        return;
    }
    if (t >= p[n - 1].time) {
        f = p[n - 1].value[k];
        return;
    }
    std::uint32_t lo = 0, hi = n - 1; // p[lo].time < t < p[hi].time
    while (hi - lo > 1) {
        const std::uint32_t mid = (lo + hi) / 2;
        if (p[mid].time <= t)
            lo = mid;
        else
            hi = mid;
    }
    slope = (p[hi].value[k] - p[lo].value[k]) / (p[hi].time - p[lo].time);
    f = p[lo].value[k] + slope * (t - p[lo].time);
}

/// pose ← (rotation by θ about the axis through point) ∘ base.
SLUICE_HD SLUICE_INLINE void rotate_pose(const RigidPose& base, const double* axis,
                                         const double* point, double theta, RigidPose& out) {
    double r[9];
    axis_angle(axis, theta, r);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0.0;
            for (int k = 0; k < 3; ++k)
                s += r[3 * i + k] * base.rotation[3 * k + j];
            out.rotation[3 * i + j] = s;
        }
    for (int i = 0; i < 3; ++i) {
        double s = point[i];
        for (int k = 0; k < 3; ++k)
            s += r[3 * i + k] * (base.translation[k] - point[k]);
        out.translation[i] = s;
    }
}

} // namespace detail

/// The pose a segment reaches τ seconds after its start (τ clamped to [0, end − start]), and
/// its profile's derivatives: translation d', d'' (into state's V and A) or rotation θ', θ''.
SLUICE_HD SLUICE_INLINE void segment_state(const MotionSegmentData& s, const MotionTablesView& m,
                                           double tau, RigidState& out) {
    tau = fmin(fmax(tau, 0.0), s.end - s.start);
    const bool rotation = s.kind == SegmentKind::rotation_polynomial ||
                          s.kind == SegmentKind::rotation_sines ||
                          s.kind == SegmentKind::rotation_table;
    double d[3] = {}, dd[3] = {}, ddd[3] = {}; // translation: d, d', d''; rotation: [0] θ, θ', θ''
    switch (s.kind) {
    case SegmentKind::translation_polynomial:
        for (int k = 0; k < 3; ++k) {
            d[k] = s.velocity[k] * tau + 0.5 * s.acceleration[k] * tau * tau;
            dd[k] = s.velocity[k] + s.acceleration[k] * tau;
            ddd[k] = s.acceleration[k];
        }
        break;
    case SegmentKind::rotation_polynomial:
        d[0] = s.velocity[0] * tau + 0.5 * s.acceleration[0] * tau * tau;
        dd[0] = s.velocity[0] + s.acceleration[0] * tau;
        ddd[0] = s.acceleration[0];
        break;
    case SegmentKind::translation_sines:
    case SegmentKind::rotation_sines: {
        double p[3];
        detail::sines_profile(s, m.sines, tau, p);
        if (rotation) {
            d[0] = p[0], dd[0] = p[1], ddd[0] = p[2];
        } else {
            for (int k = 0; k < 3; ++k)
                d[k] = s.direction[k] * p[0], dd[k] = s.direction[k] * p[1],
                ddd[k] = s.direction[k] * p[2];
        }
        break;
    }
    case SegmentKind::translation_table:
    case SegmentKind::rotation_table:
        for (int k = 0; k < (rotation ? 1 : 3); ++k) {
            double f0, f, slope, unused;
            detail::table_value(s, m.samples, s.start, k, f0, unused);
            detail::table_value(s, m.samples, s.start + tau, k, f, slope);
            d[k] = f - f0;
            dd[k] = slope;
        }
        break;
    }
    if (!rotation) {
        for (int k = 0; k < 9; ++k)
            out.pose.rotation[k] = s.base.rotation[k];
        double speed2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            out.pose.translation[k] = s.base.translation[k] + d[k];
            out.velocity[k] = dd[k];
            out.acceleration[k] = ddd[k];
            out.angular_velocity[k] = out.angular_acceleration[k] = 0.0;
            speed2 += dd[k] * dd[k];
        }
        out.speed_bound = sqrt(speed2);
        return;
    }
    detail::rotate_pose(s.base, s.axis, s.point, d[0], out.pose);
    double omega_p[3], alpha_p[3], omega_omega_p[3];
    for (int k = 0; k < 3; ++k) {
        out.angular_velocity[k] = dd[0] * s.axis[k];
        out.angular_acceleration[k] = ddd[0] * s.axis[k];
    }
    detail::cross3(out.angular_velocity, s.point, omega_p);
    detail::cross3(out.angular_acceleration, s.point, alpha_p);
    detail::cross3(out.angular_velocity, omega_p, omega_omega_p);
    for (int k = 0; k < 3; ++k) {
        out.velocity[k] = -omega_p[k];
        out.acceleration[k] = -alpha_p[k] - omega_omega_p[k];
    }
    out.speed_bound = fabs(dd[0]) * s.radius;
}

/// Object `object`'s state at time t (s): the segment running at t, or at rest where the last
/// segment that started by t ended (the identity pose before the first).
SLUICE_HD SLUICE_INLINE RigidState rigid_state(const MotionTablesView& m, std::uint32_t object,
                                               double t) {
    RigidState out;
    detail::identity_pose(out.pose);
    const std::uint32_t first = m.object_first[object], last = m.object_first[object + 1];
    for (std::uint32_t k = last; k > first; --k) {
        const MotionSegmentData& s = m.segments[k - 1];
        if (t < s.start)
            continue;
        if (t >= s.end) { // at rest after it
            out.pose = s.end_pose;
            return out;
        }
        segment_state(s, m, t - s.start, out);
        out.moving = true;
        return out;
    }
    return out;
}

/// An object's state in the float form a particle kernel takes: x = R x0 + T, v = V + ω × x,
/// a = A + α × x + ω × (ω × x) (2D: the x–z components, the solver vector's 0 and 1).
struct RigidMotionF {
    float rotation[9];
    float translation[3];
    float velocity[3];
    float angular_velocity[3];
    float acceleration[3];
    float angular_acceleration[3];
};

SLUICE_HD SLUICE_INLINE RigidMotionF to_float(const RigidState& s) {
    RigidMotionF f;
    for (int k = 0; k < 9; ++k)
        f.rotation[k] = static_cast<float>(s.pose.rotation[k]);
    for (int k = 0; k < 3; ++k) {
        f.translation[k] = static_cast<float>(s.pose.translation[k]);
        f.velocity[k] = static_cast<float>(s.velocity[k]);
        f.angular_velocity[k] = static_cast<float>(s.angular_velocity[k]);
        f.acceleration[k] = static_cast<float>(s.acceleration[k]);
        f.angular_acceleration[k] = static_cast<float>(s.angular_acceleration[k]);
    }
    return f;
}

namespace detail {
/// A solver vector as (x, y, z) (2D: y = 0) and back.
template <int D>
SLUICE_HD SLUICE_INLINE void to_xyz(const Vec<D>& v, float out[3]) {
    out[0] = v[0];
    out[1] = D == 3 ? v[1] : 0.0f;
    out[2] = v[D - 1];
}
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> from_xyz(const float v[3]) {
    Vec<D> r{};
    r[0] = v[0];
    if constexpr (D == 3)
        r[1] = v[1];
    r[D - 1] = v[2];
    return r;
}
SLUICE_HD SLUICE_INLINE void cross3f(const float* a, const float* b, float* out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
} // namespace detail

/// R v (a direction: a ghost offset turns with its object).
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> rigid_rotate(const RigidMotionF& m, const Vec<D>& v) {
    float a[3], r[3];
    detail::to_xyz(v, a);
    for (int i = 0; i < 3; ++i)
        r[i] =
            m.rotation[3 * i] * a[0] + m.rotation[3 * i + 1] * a[1] + m.rotation[3 * i + 2] * a[2];
    return detail::from_xyz<D>(r);
}

/// R x0 + T (m).
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> rigid_position(const RigidMotionF& m, const Vec<D>& x0) {
    Vec<D> x = rigid_rotate(m, x0);
    float t[3] = {m.translation[0], m.translation[1], m.translation[2]};
    return x + detail::from_xyz<D>(t);
}

/// V + ω × x (m/s).
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> rigid_velocity(const RigidMotionF& m, const Vec<D>& x) {
    float a[3], w[3];
    detail::to_xyz(x, a);
    detail::cross3f(m.angular_velocity, a, w);
    for (int k = 0; k < 3; ++k)
        w[k] += m.velocity[k];
    return detail::from_xyz<D>(w);
}

/// A + α × x + ω × (ω × x) (m/s²).
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> rigid_acceleration(const RigidMotionF& m, const Vec<D>& x) {
    float a[3], ax[3], wx[3], wwx[3];
    detail::to_xyz(x, a);
    detail::cross3f(m.angular_acceleration, a, ax);
    detail::cross3f(m.angular_velocity, a, wx);
    detail::cross3f(m.angular_velocity, wx, wwx);
    for (int k = 0; k < 3; ++k)
        ax[k] += m.acceleration[k] + wwx[k];
    return detail::from_xyz<D>(ax);
}

/// Per boundary particle, by id: its object and reference position (case/motion_table.h).
/// `object` is no_object for a particle of no moving object (it never moves).
constexpr std::uint16_t no_object = 0xffffu;

/// What a particle pass needs to move walls and to read a wall's own velocity: per boundary id
/// its moving object (or no_object) and reference position, and each object's state now.
template <int D>
struct MovingWallsView {
    const std::uint16_t* object = nullptr; ///< by id, ids < ids
    const Vec<D>* reference = nullptr;     ///< x0 by id (m)
    const RigidMotionF* states = nullptr;  ///< by object, at the pass's time
    std::uint32_t ids = 0;                 ///< boundary ids covered

    SLUICE_HD SLUICE_INLINE std::uint16_t object_of(std::uint32_t id) const {
        return id < ids ? object[id] : no_object;
    }
    /// A wall particle's own velocity (m/s): its object's at x; zero for a fixed wall.
    SLUICE_HD SLUICE_INLINE Vec<D> wall_velocity(std::uint32_t id, const Vec<D>& x) const {
        const std::uint16_t k = object_of(id);
        return k == no_object ? Vec<D>{} : rigid_velocity(states[k], x);
    }
};

} // namespace sluice
