#include "case/motion_table.h"

#include "case/motion_bounds.h"
#include "case/state_conversion.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace sluice {

namespace {

using Eigen::Vector3d;

constexpr double pi = 3.14159265358979323846;

void put(const Vector3d& v, double* out) {
    out[0] = v.x(), out[1] = v.y(), out[2] = v.z();
}

/// The largest distance from the axis through p along unit n of the box's points in pose `base`
/// (at a corner: the distance from a line is convex).
double radius_about(const RigidPose& base, const Box& box, const Vector3d& p, const Vector3d& n) {
    double r = 0.0;
    for (const Vector3d& x : box_corners(box)) {
        const Vector3d d = apply_pose(base, x) - p;
        r = std::max(r, (d - d.dot(n) * n).norm());
    }
    return r;
}

/// Bounds on |f| and |f'| of a segment's sines over τ ∈ [0, span]: f' = Σ a_i ω_i sin(ω_i τ +
/// φ_i + π/2) is itself a sum of sinusoids, so both come from SinesRange (case/sines_bound.h),
/// tight where Σ|a_i| and Σ|a_i ω_i| grow as √N for N random-phase components (a JONSWAP
/// paddle of 10,000 components: some 30 times the motion's own); those sums where the span is
/// not finite.
void sine_sums(const MotionTables& t, const MotionSegmentData& s, double span, double& amplitude,
               double& rate) {
    amplitude = rate = 0.0;
    std::vector<SineComponent> derivative;
    for (std::uint32_t i = 0; i < s.count; ++i) {
        const SineComponent& c = t.sines[s.first + i];
        amplitude += std::fabs(c.amplitude);
        rate += std::fabs(c.amplitude * c.omega);
        derivative.push_back({c.amplitude * c.omega, c.omega, c.phase + 0.5 * pi});
    }
    if (!std::isfinite(span) || s.count < 2)
        return; // one sinusoid: the sums are its exact bounds
    const auto largest = [](const Range& r) { return std::max(std::fabs(r.lo), std::fabs(r.hi)); };
    amplitude = std::min(
        amplitude, largest(SinesRange(t.sines.data() + s.first, s.count, span).over(0.0, span)));
    rate = std::min(rate, largest(SinesRange(derivative.data(), s.count, span).over(0.0, span)));
}

/// No point of the object moves faster during the segment's part of [0, end_time] (m/s).
double segment_speed_bound(const MotionTables& t, const MotionSegmentData& s, double end_time) {
    const double span = std::max(0.0, std::min(s.end, end_time) - s.start);
    const bool rotation = s.kind == SegmentKind::rotation_polynomial ||
                          s.kind == SegmentKind::rotation_sines ||
                          s.kind == SegmentKind::rotation_table;
    double rate = 0.0; // of the profile: m/s or rad/s
    switch (s.kind) {
    case SegmentKind::translation_polynomial: {
        Vector3d v(s.velocity[0], s.velocity[1], s.velocity[2]);
        Vector3d a(s.acceleration[0], s.acceleration[1], s.acceleration[2]);
        rate = std::max(v.norm(), (v + span * a).norm()); // |v + aτ| is convex in τ
        break;
    }
    case SegmentKind::rotation_polynomial:
        rate =
            std::max(std::fabs(s.velocity[0]), std::fabs(s.velocity[0] + span * s.acceleration[0]));
        break;
    case SegmentKind::translation_sines:
    case SegmentKind::rotation_sines: {
        double amplitude, sum_rate;
        sine_sums(t, s, span, amplitude, sum_rate);
        // p' = r' f + r f': |r'| ≤ π/(2 ramp), r ≤ 1
        rate = sum_rate + (s.ramp > 0.0 ? 0.5 * pi / s.ramp * amplitude : 0.0);
        break;
    }
    case SegmentKind::translation_table:
    case SegmentKind::rotation_table:
        for (std::uint32_t i = 0; i + 1 < s.count; ++i) {
            const TableSample& a = t.samples[s.first + i];
            const TableSample& b = t.samples[s.first + i + 1];
            double d2 = 0.0;
            for (int k = 0; k < (rotation ? 1 : 3); ++k)
                d2 += (b.value[k] - a.value[k]) * (b.value[k] - a.value[k]);
            rate = std::max(rate, std::sqrt(d2) / (b.time - a.time));
        }
        break;
    }
    return rotation ? rate * s.radius : rate;
}

/// Appends the segment of `motion` (one alternative of SegmentMotion) to the tables.
struct AddSegment {
    MotionTables& t;
    MotionSegmentData& s;
    const Box& box; ///< the object's at t = 0

    void rotation_about(const Vector3d& point, const Vector3d& axis) {
        put(point, s.point);
        put(axis.normalized(), s.axis);
        s.radius = radius_about(s.base, box, point, axis.normalized());
    }
    void sines(const std::vector<PaddleComponent>& components, double ramp) {
        s.first = static_cast<std::uint32_t>(t.sines.size());
        s.count = static_cast<std::uint32_t>(components.size());
        double at_start = 0.0;
        for (const PaddleComponent& c : components) {
            t.sines.push_back({c.amplitude, c.omega, c.phase});
            at_start += c.amplitude * std::sin(c.phase);
        }
        s.ramp = ramp;
        s.offset = ramp > 0.0 ? 0.0 : at_start; // r(0) = 0 with a ramp
    }

    void operator()(const RectilinearMotion& m) {
        s.kind = SegmentKind::translation_polynomial;
        put(m.velocity, s.velocity);
        put(m.acceleration, s.acceleration);
    }
    void operator()(const RotationMotion& m) {
        s.kind = SegmentKind::rotation_polynomial;
        rotation_about(m.point, m.axis);
        s.velocity[0] = m.angular_velocity;
        s.acceleration[0] = m.angular_acceleration;
    }
    void operator()(const SinusoidalTranslation& m) {
        s.kind = SegmentKind::translation_sines;
        const double a = m.amplitude.norm();
        put(a > 0.0 ? Vector3d(m.amplitude / a) : Vector3d::UnitX(), s.direction);
        sines({{a, 2.0 * pi / m.period, m.phase}}, 0.0);
    }
    void operator()(const SinusoidalRotation& m) {
        s.kind = SegmentKind::rotation_sines;
        rotation_about(m.point, m.axis);
        sines({{m.amplitude, 2.0 * pi / m.period, m.phase}}, 0.0);
    }
    void operator()(const FileTranslation& m) {
        s.kind = SegmentKind::translation_table;
        s.first = static_cast<std::uint32_t>(t.samples.size());
        s.count = static_cast<std::uint32_t>(m.times.size());
        for (std::size_t i = 0; i < m.times.size(); ++i) {
            TableSample sample;
            sample.time = m.times[i];
            put(m.displacement[i], sample.value);
            t.samples.push_back(sample);
        }
    }
    void operator()(const FileRotation& m) {
        s.kind = SegmentKind::rotation_table;
        rotation_about(m.point, m.axis);
        s.first = static_cast<std::uint32_t>(t.samples.size());
        s.count = static_cast<std::uint32_t>(m.times.size());
        for (std::size_t i = 0; i < m.times.size(); ++i) {
            TableSample sample;
            sample.time = m.times[i];
            sample.value[0] = m.angles[i];
            t.samples.push_back(sample);
        }
    }
    void operator()(const WaveMakerMotion& m) {
        if (m.spec.kind == WaveMakerKind::piston) {
            s.kind = SegmentKind::translation_sines;
            put(m.direction.normalized(), s.direction);
        } else {
            s.kind = SegmentKind::rotation_sines;
            rotation_about(m.point, m.axis);
        }
        sines(paddle_motion(m.spec), m.spec.ramp);
    }
};

} // namespace

bool MotionTables::any() const {
    return std::any_of(moves.begin(), moves.end(), [](char m) { return m != 0; });
}

MotionTablesView MotionTables::view() const {
    MotionTablesView v;
    v.segments = segments.data();
    v.sines = sines.data();
    v.samples = samples.data();
    v.object_first = object_first.data();
    v.objects = objects();
    return v;
}

MotionTables make_motion_tables(const Case& c, double end_time) {
    MotionTables t;
    for (const BoundaryObjectRef& object : boundary_objects(c)) {
        const std::optional<Motion>& motion = object.properties->motion;
        // A floating object moves too; its state comes from its dynamics (physics/rigid_body.h).
        t.moves.push_back(motion || object.properties->floating ? 1 : 0);
        t.floats.push_back(object.properties->floating ? 1 : 0);
        RigidPose pose;
        detail::identity_pose(pose);
        if (motion)
            for (const MotionSegment& segment : motion->segments) {
                MotionSegmentData s;
                s.start = segment.start;
                s.end = segment.end;
                s.base = pose;
                std::visit(AddSegment{t, s, object.box}, segment.motion);
                s.end_pose = pose;
                if (std::isfinite(s.end)) { // where it rests afterwards
                    MotionTablesView view = t.view();
                    const std::uint32_t firsts[2] = {0, 1};
                    view.segments = &s;
                    view.object_first = firsts;
                    RigidState end_state;
                    segment_state(s, view, s.end - s.start, end_state);
                    s.end_pose = end_state.pose;
                }
                pose = s.end_pose;
                t.segments.push_back(s);
                const double bound = segment_speed_bound(t, s, end_time);
                if (!(bound <= t.speed_bound)) { // NaN too: it is the one to report
                    t.speed_bound = bound;
                    t.fastest_segment = static_cast<std::uint32_t>(t.segments.size() - 1);
                }
            }
        t.object_first.push_back(static_cast<std::uint32_t>(t.segments.size()));
    }
    return t;
}

MotionTables run_motion_tables(const Case& c) {
    MotionTables tables = make_motion_tables(c, c.run.end_time);
    if (const auto exit = first_domain_exit(c, tables, c.run.end_time)) {
        const BoundaryObjectRef o = boundary_objects(c)[exit->object];
        throw std::invalid_argument(
            "the <" + std::string(o.element) + "> at line " + std::to_string(o.where.line) +
            (exit->proven ? " leaves the domain under its motion at t = "
                          : " may leave the domain under its motion (by more than dp/100; the "
                            "check could not decide within its work limit) from t = ") +
            std::to_string(exit->time) + " s, before the run's end at " +
            std::to_string(c.run.end_time) + " s");
    }
    return tables;
}

RigidState object_state(const MotionTables& tables, std::uint32_t object, double t) {
    return rigid_state(tables.view(), object, t);
}

namespace {

/// The work that first_domain_exit may spend on a case beyond its tables (SegmentRange::work:
/// about one sine and cosine each), some seconds at most; the search stops there, conservatively.
constexpr double exit_search_work_limit = 3e7;

/// The depth-first search of one object's first exit (first_domain_exit's contract).
struct ExitSearch {
    const Case& c;
    MotionTablesView view;
    int axes[3];
    double tolerance; ///< a corner this far outside still counts as inside (m)
    double slack;     ///< an excursion at most this far beyond may be missed (m)
    double work_left;

    /// A coordinate of b beyond the domain by more than `margin` on one of the case's axes.
    bool beyond(const Box& b, double margin) const {
        for (int a : axes)
            if (b.min[a] < c.domain.min[a] - margin || b.max[a] > c.domain.max[a] + margin)
                return true;
        return false;
    }

    /// A corner outside the domain in the pose the segment reaches at τ (evaluated as a run
    /// does).
    bool outside_at(const MotionSegmentData& s, const std::vector<Vector3d>& corners, double tau) {
        RigidState state;
        segment_state(s, view, tau, state);
        work_left -= s.count + 1.0;
        Box b;
        b.min.setConstant(HUGE_VAL);
        b.max.setConstant(-HUGE_VAL);
        for (const Vector3d& x : corners) {
            const Vector3d p = apply_pose(state.pose, x);
            b.min = b.min.cwiseMin(p);
            b.max = b.max.cwiseMax(p);
        }
        return beyond(b, tolerance);
    }

    /// The first exit within τ ∈ (τ0, τ1) of segment s, the poses at τ0 and τ1 being inside;
    /// none past `limit` (absolute, s). Bisects where the corners' box over an interval reaches
    /// beyond the domain by more than the slack; the left half first, so that the time found
    /// is the first.
    std::optional<DomainExit> search(SegmentRange& range, const MotionSegmentData& s,
                                     const std::vector<Vector3d>& corners, double tau0, double tau1,
                                     double limit, int depth) {
        if (s.start + tau0 >= limit)
            return std::nullopt;
        const double before = range.work();
        const Box b = range.corner_box(corners, tau0, tau1);
        work_left -= range.work() - before;
        if (!beyond(b, tolerance + slack))
            return std::nullopt;
        const double mid = 0.5 * (tau0 + tau1);
        // Out of work, or an interval too short to split (a bound that cannot come within
        // the slack there): maybe an exit, not a proven one.
        if (work_left <= 0.0 || depth >= 100 || !(mid > tau0 && mid < tau1))
            return DomainExit{0, s.start + tau0, false};
        if (auto earlier = search(range, s, corners, tau0, mid, limit, depth + 1))
            return earlier;
        if (outside_at(s, corners, mid))
            return DomainExit{0, s.start + mid, true};
        return search(range, s, corners, mid, tau1, limit, depth + 1);
    }
};

} // namespace

Box swept_box(const MotionTables& tables, std::uint32_t object, const Box& box, double end_time) {
    Box swept = box;
    const std::vector<Vector3d> corners = box_corners(box);
    for (std::uint32_t k = tables.object_first[object]; k < tables.object_first[object + 1]; ++k) {
        const MotionSegmentData& s = tables.segments[k];
        if (!(s.start < end_time))
            continue; // it rests where the segments before left it
        SegmentRange range(tables, s, std::min(s.end, end_time) - s.start);
        const Box b = range.corner_box(corners, 0.0, std::min(s.end, end_time) - s.start);
        swept.min = swept.min.cwiseMin(b.min);
        swept.max = swept.max.cwiseMax(b.max);
    }
    return swept;
}

std::optional<DomainExit> first_domain_exit(const Case& c, const MotionTables& tables,
                                            double end_time) {
    const std::vector<BoundaryObjectRef> objects = boundary_objects(c);
    ExitSearch search{c,           tables.view(), {0, c.dimension == 3 ? 1 : 0, 2},
                      1e-6 * c.dp, 0.01 * c.dp,   exit_search_work_limit};
    std::optional<DomainExit> first;
    const auto found = [&](std::uint32_t object, DomainExit exit) {
        exit.object = object;
        if (!first || exit.time < first->time ||
            (exit.time == first->time && exit.proven && !first->proven))
            first = exit;
    };
    for (std::uint32_t k = 0; k < tables.objects(); ++k) {
        if (!tables.moves[k])
            continue;
        const std::vector<Vector3d> corners = box_corners(objects[k].box);
        const double limit = first ? first->time : HUGE_VAL;
        // At rest in its reference pose (the first segment's base) until its first segment
        // starts; each later one starts where the one before it left the object (checked at
        // that one's end).
        for (std::uint32_t i = tables.object_first[k]; i < tables.object_first[k + 1]; ++i) {
            const MotionSegmentData& s = tables.segments[i];
            if (!(s.start < end_time) || !(s.start < limit))
                break;
            const double span = std::min(s.end, end_time) - s.start;
            if (i == tables.object_first[k] && search.outside_at(s, corners, 0.0)) {
                found(k, {0, 0.0, true});
                break;
            }
            SegmentRange range(tables, s, span);
            if (auto exit = search.search(range, s, corners, 0.0, span, limit, 0)) {
                found(k, *exit);
                break;
            }
            if (search.outside_at(s, corners, span)) {
                found(k, {0, s.start + span, true});
                break;
            }
        }
    }
    return first;
}

template <int D>
MovingWallTables<D> moving_wall_tables(const MotionTables& tables,
                                       const std::vector<Eigen::Vector3d>& reference,
                                       const std::vector<ObjectIds>& objects) {
    if (objects.size() >= no_object)
        throw std::invalid_argument(
            "a case with moving walls has at most 65534 boundary objects (" +
            std::to_string(objects.size()) + " given)");
    MovingWallTables<D> out;
    out.object.assign(reference.size(), no_object);
    out.reference.resize(reference.size());
    for (std::size_t i = 0; i < reference.size(); ++i)
        out.reference[i] = from_array3<D>({static_cast<float>(reference[i].x()),
                                           static_cast<float>(reference[i].y()),
                                           static_cast<float>(reference[i].z())});
    for (std::size_t k = 0; k < objects.size() && k < tables.moves.size(); ++k)
        if (tables.moves[k])
            for (std::uint32_t id = objects[k].first; id < objects[k].first + objects[k].count;
                 ++id)
                out.object[id] = static_cast<std::uint16_t>(k);
    return out;
}

template MovingWallTables<2> moving_wall_tables<2>(const MotionTables&,
                                                   const std::vector<Eigen::Vector3d>&,
                                                   const std::vector<ObjectIds>&);
template MovingWallTables<3> moving_wall_tables<3>(const MotionTables&,
                                                   const std::vector<Eigen::Vector3d>&,
                                                   const std::vector<ObjectIds>&);

} // namespace sluice
