#include "case/motion_bounds.h"

#include "case/motion_table.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace sluice {

namespace {

using Eigen::Vector3d;

constexpr double pi = 3.14159265358979323846;
constexpr double two_pi = 2.0 * pi;
constexpr double unit_roundoff = 0.5 * DBL_EPSILON;

bool is_rotation(SegmentKind k) {
    return k == SegmentKind::rotation_polynomial || k == SegmentKind::rotation_sines ||
           k == SegmentKind::rotation_table;
}

/// The range of v τ + a τ²/2 over [τ0, τ1]: its ends and, inside, its vertex τ = −v/a.
Range quadratic_range(double v, double a, double tau0, double tau1) {
    const auto q = [&](double tau) { return v * tau + 0.5 * a * tau * tau; };
    Range r{std::min(q(tau0), q(tau1)), std::max(q(tau0), q(tau1))};
    if (a != 0.0) {
        const double vertex = -v / a;
        if (vertex > tau0 && vertex < tau1) {
            r.lo = std::min(r.lo, q(vertex));
            r.hi = std::max(r.hi, q(vertex));
        }
    }
    return r;
}

/// The range of cos over [v0, v1] (v0 ≤ v1): its ends, or 1 where it passes 2πk, −1 at
/// π + 2πk.
Range cos_range(double v0, double v1) {
    if (v1 - v0 >= two_pi)
        return {-1.0, 1.0};
    const double c0 = std::cos(v0), c1 = std::cos(v1);
    Range r{std::min(c0, c1), std::max(c0, c1)};
    if (two_pi * std::ceil(v0 / two_pi) <= v1)
        r.hi = 1.0;
    if (pi + two_pi * std::ceil((v0 - pi) / two_pi) <= v1)
        r.lo = -1.0;
    return r;
}

/// The ramp r(τ) = (1 − cos(π τ/ramp))/2 for τ < ramp, 1 after (0: none), over [τ0, τ1]:
/// it rises, so [r(τ0), r(τ1)].
Range ramp_range(double ramp, double tau0, double tau1) {
    if (!(ramp > 0.0))
        return {1.0, 1.0};
    const auto r = [&](double tau) {
        return tau < ramp ? 0.5 * (1.0 - std::cos(pi / ramp * tau)) : 1.0;
    };
    return {r(tau0), r(tau1)};
}

/// The range of f over [t0, t1] (absolute times) of a table profile's component k: f is
/// linear between samples and held beyond its ends, so its values at t0, t1 and at the samples
/// between.
Range table_range(const MotionSegmentData& s, const TableSample* samples, double t0, double t1,
                  int k) {
    double f0, f1, slope;
    detail::table_value(s, samples, t0, k, f0, slope);
    detail::table_value(s, samples, t1, k, f1, slope);
    Range r{std::min(f0, f1), std::max(f0, f1)};
    const TableSample* first = samples + s.first;
    const TableSample* last = first + s.count;
    const auto by_time = [](const TableSample& a, double t) { return a.time < t; };
    for (const TableSample* p = std::lower_bound(first, last, t0, by_time);
         p != last && p->time <= t1; ++p) {
        r.lo = std::min(r.lo, p->value[k]);
        r.hi = std::max(r.hi, p->value[k]);
    }
    return r;
}

} // namespace

std::vector<Vector3d> box_corners(const Box& b) {
    std::vector<Vector3d> out;
    for (int k = 0; k < 8; ++k)
        out.emplace_back((k & 1) ? b.max.x() : b.min.x(), (k & 2) ? b.max.y() : b.min.y(),
                         (k & 4) ? b.max.z() : b.min.z());
    return out;
}

Vector3d apply_pose(const RigidPose& p, const Vector3d& x) {
    Vector3d r;
    for (int i = 0; i < 3; ++i)
        r[i] = p.rotation[3 * i] * x[0] + p.rotation[3 * i + 1] * x[1] +
               p.rotation[3 * i + 2] * x[2] + p.translation[i];
    return r;
}

SegmentRange::SegmentRange(const MotionTables& tables, const MotionSegmentData& segment,
                           double span)
    : tables_(tables), segment_(segment), span_(std::max(span, 0.0)) {
    if (segment.kind == SegmentKind::translation_sines ||
        segment.kind == SegmentKind::rotation_sines)
        sines_.emplace(tables.sines.data() + segment.first, segment.count, span_);
}

double SegmentRange::work() const {
    return calls_ + (sines_ ? sines_->work() : 0.0);
}

ProfileRange SegmentRange::over(double tau0, double tau1) {
    const MotionSegmentData& s = segment_;
    tau0 = std::clamp(tau0, 0.0, span_);
    tau1 = std::clamp(tau1, tau0, span_);
    calls_ += 1.0;
    ProfileRange out;
    const auto set = [&](int k, const Range& r) { out.lo[k] = r.lo, out.hi[k] = r.hi; };
    switch (s.kind) {
    case SegmentKind::translation_polynomial:
        for (int k = 0; k < 3; ++k)
            set(k, quadratic_range(s.velocity[k], s.acceleration[k], tau0, tau1));
        break;
    case SegmentKind::rotation_polynomial:
        set(0, quadratic_range(s.velocity[0], s.acceleration[0], tau0, tau1));
        break;
    case SegmentKind::translation_sines:
    case SegmentKind::rotation_sines: {
        // p = r f − offset, r ∈ [0, 1]: the product of the two ranges, less the offset, and
        // the rounding of r (a cosine: 2 ulp), of the product and of the difference.
        const Range f = sines_->over(tau0, tau1);
        const Range r = ramp_range(s.ramp, tau0, tau1);
        const double largest = std::max(std::fabs(f.lo), std::fabs(f.hi));
        const double rounding = 8.0 * unit_roundoff * (largest + std::fabs(s.offset));
        const Range p{std::min(r.lo * f.lo, r.hi * f.lo) - s.offset - rounding,
                      std::max(r.lo * f.hi, r.hi * f.hi) - s.offset + rounding};
        if (s.kind == SegmentKind::rotation_sines) {
            set(0, p);
        } else {
            for (int k = 0; k < 3; ++k) // d = direction p, and its product's rounding
                set(k, {std::min(s.direction[k] * p.lo, s.direction[k] * p.hi) -
                            unit_roundoff * largest,
                        std::max(s.direction[k] * p.lo, s.direction[k] * p.hi) +
                            unit_roundoff * largest});
        }
        break;
    }
    case SegmentKind::translation_table:
    case SegmentKind::rotation_table:
        for (int k = 0; k < (is_rotation(s.kind) ? 1 : 3); ++k) {
            const TableSample* samples = tables_.samples.data();
            double f0, slope;
            detail::table_value(s, samples, s.start, k, f0, slope);
            const Range f = table_range(s, samples, s.start + tau0, s.start + tau1, k);
            set(k, {f.lo - f0, f.hi - f0});
        }
        break;
    }
    return out;
}

Box SegmentRange::corner_box(const std::vector<Vector3d>& corners, double tau0, double tau1) {
    const MotionSegmentData& s = segment_;
    const ProfileRange p = over(tau0, tau1);
    Box box;
    box.min.setConstant(HUGE_VAL);
    box.max.setConstant(-HUGE_VAL);
    double scale = 0.0; // of the coordinates that the pose's rounding is relative to
    const Vector3d point(s.point[0], s.point[1], s.point[2]);
    const Vector3d n(s.axis[0], s.axis[1], s.axis[2]);
    for (const Vector3d& x0 : corners) {
        const Vector3d base = apply_pose(s.base, x0);
        scale = std::max(scale, x0.cwiseAbs().maxCoeff() + base.cwiseAbs().maxCoeff());
        if (!is_rotation(s.kind)) {
            for (int a = 0; a < 3; ++a) {
                box.min[a] = std::min(box.min[a], base[a] + p.lo[a]);
                box.max[a] = std::max(box.max[a], base[a] + p.hi[a]);
                scale = std::max(scale, std::max(std::fabs(p.lo[a]), std::fabs(p.hi[a])));
            }
            continue;
        }
        const Vector3d u = base - point;
        const Vector3d along = u.dot(n) * n;
        const Vector3d alpha = u - along, beta = n.cross(u);
        // θ's own rounding (u |θ|) moves the corner by up to |u| u |θ|.
        const double turn = std::max(std::fabs(p.lo[0]), std::fabs(p.hi[0]));
        scale = std::max(scale, point.cwiseAbs().maxCoeff() + u.norm() * (1.0 + turn));
        for (int a = 0; a < 3; ++a) {
            // α_a cos θ + β_a sin θ = ρ cos(θ − ψ)
            const double rho = std::hypot(alpha[a], beta[a]);
            const double psi = std::atan2(beta[a], alpha[a]);
            const Range c = cos_range(p.lo[0] - psi, p.hi[0] - psi);
            box.min[a] = std::min(box.min[a], point[a] + along[a] + rho * c.lo);
            box.max[a] = std::max(box.max[a], point[a] + along[a] + rho * c.hi);
        }
    }
    // The solver's pose (rotate_pose, then R x0 + T) and this formula each within a few ulp of
    // the scale per operation; 64 u of it covers both.
    const double rounding = 64.0 * unit_roundoff * scale;
    box.min.array() -= rounding;
    box.max.array() += rounding;
    return box;
}

} // namespace sluice
