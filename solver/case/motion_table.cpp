#include "case/motion_table.h"

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

Vector3d apply(const RigidPose& p, const Vector3d& x) {
    Vector3d r;
    for (int i = 0; i < 3; ++i)
        r[i] = p.rotation[3 * i] * x[0] + p.rotation[3 * i + 1] * x[1] +
               p.rotation[3 * i + 2] * x[2] + p.translation[i];
    return r;
}

/// The 8 corners of a box (2D: 4 distinct, y = 0).
std::vector<Vector3d> corners(const Box& b) {
    std::vector<Vector3d> out;
    for (int k = 0; k < 8; ++k)
        out.emplace_back((k & 1) ? b.max.x() : b.min.x(), (k & 2) ? b.max.y() : b.min.y(),
                         (k & 4) ? b.max.z() : b.min.z());
    return out;
}

/// The largest distance from the axis through p along unit n of the box's points in pose `base`
/// (at a corner: the distance from a line is convex).
double radius_about(const RigidPose& base, const Box& box, const Vector3d& p, const Vector3d& n) {
    double r = 0.0;
    for (const Vector3d& x : corners(box)) {
        const Vector3d d = apply(base, x) - p;
        r = std::max(r, (d - d.dot(n) * n).norm());
    }
    return r;
}

/// Σ|a_i| and Σ|a_i| ω_i of a segment's sines.
void sine_sums(const MotionTables& t, const MotionSegmentData& s, double& amplitude, double& rate) {
    amplitude = rate = 0.0;
    for (std::uint32_t i = 0; i < s.count; ++i) {
        const SineComponent& c = t.sines[s.first + i];
        amplitude += std::fabs(c.amplitude);
        rate += std::fabs(c.amplitude * c.omega);
    }
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
        sine_sums(t, s, amplitude, sum_rate);
        // p' = r' f + r f': |r'| ≤ π/(2 ramp), |f| ≤ Σ|a|, r ≤ 1, |f'| ≤ Σ|a ω|
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
        t.moves.push_back(motion ? 1 : 0);
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
            " leaves the domain under its motion at t = " + std::to_string(exit->time) +
            " s, before the run's end at " + std::to_string(c.run.end_time) + " s");
    }
    return tables;
}

RigidState object_state(const MotionTables& tables, std::uint32_t object, double t) {
    return rigid_state(tables.view(), object, t);
}

namespace {

/// Calls f(t, state) at the sample times of object k's segments within [0, end_time] (at least
/// 512 per segment, its ends included, and no further apart than max_spacing, up to 10^7);
/// returns the largest sample spacing.
template <class F>
double for_each_sample(const MotionTables& tables, std::uint32_t k, double end_time, F&& f,
                       double max_spacing = HUGE_VAL) {
    double spacing = 0.0;
    for (std::uint32_t s = tables.object_first[k]; s < tables.object_first[k + 1]; ++s) {
        const MotionSegmentData& seg = tables.segments[s];
        const double a = std::min(seg.start, end_time), b = std::min(seg.end, end_time);
        const int samples =
            static_cast<int>(std::clamp(std::ceil((b - a) / max_spacing), 512.0, 1e7));
        const double step = (b - a) / samples;
        spacing = std::max(spacing, step);
        for (int i = 0; i <= samples; ++i) {
            const double time = i == samples ? b : a + i * step;
            f(time, object_state(tables, k, time));
        }
    }
    return spacing;
}

} // namespace

Box swept_box(const MotionTables& tables, std::uint32_t object, const Box& box, double end_time) {
    Box swept = box;
    const std::vector<Vector3d> box_corners = corners(box);
    const double spacing =
        for_each_sample(tables, object, end_time, [&](double, const RigidState& state) {
            for (const Vector3d& x : box_corners) {
                const Vector3d p = apply(state.pose, x);
                swept.min = swept.min.cwiseMin(p);
                swept.max = swept.max.cwiseMax(p);
            }
        });
    const double margin = tables.speed_bound * 0.5 * spacing;
    swept.min.array() -= margin;
    swept.max.array() += margin;
    return swept;
}

std::optional<DomainExit> first_domain_exit(const Case& c, const MotionTables& tables,
                                            double end_time) {
    const std::vector<BoundaryObjectRef> objects = boundary_objects(c);
    const int axes[3] = {0, c.dimension == 3 ? 1 : 0, 2};
    const double tolerance = 1e-6 * c.dp;
    std::optional<DomainExit> first;
    // Samples close enough that no corner moves more than dp/100 between two.
    const double max_spacing =
        tables.speed_bound > 0.0 ? 0.01 * c.dp / tables.speed_bound : HUGE_VAL;
    for (std::uint32_t k = 0; k < tables.objects(); ++k) {
        if (!tables.moves[k])
            continue;
        const std::vector<Vector3d> box_corners = corners(objects[k].box);
        for_each_sample(
            tables, k, end_time,
            [&](double time, const RigidState& state) {
                if (first && first->time <= time)
                    return;
                for (const Vector3d& x : box_corners) {
                    const Vector3d p = apply(state.pose, x);
                    for (int a : axes)
                        if (p[a] < c.domain.min[a] - tolerance ||
                            p[a] > c.domain.max[a] + tolerance) {
                            first = DomainExit{k, time};
                            return;
                        }
                }
            },
            max_spacing);
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
