#include "case/gauge_plan.h"

#include "case/wall_normals.h"
#include "physics/corrected_interpolation.h"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <variant>

namespace sluice {

namespace {

constexpr double empty = std::numeric_limits<double>::quiet_NaN();

std::array<float, 3> to_float3(const Eigen::Vector3d& p) {
    return {static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z())};
}

} // namespace

std::optional<Eigen::Vector3d> sensor_wall_normal(const Case& c, const Eigen::Vector3d& point) {
    return wall_surface_normal(c, point);
}

std::vector<Eigen::Vector3d> sensor_points(const Case& c, const Gauge& sensor) {
    std::vector<Eigen::Vector3d> out;
    const std::optional<Eigen::Vector3d> n = sensor_wall_normal(c, sensor.point);
    if (sensor.radius <= 0.0 || !n)
        return {sensor.point};
    const int m = static_cast<int>(std::ceil(sensor.radius / (0.5 * c.dp)));
    const double spacing = sensor.radius / m;
    // Two directions in the wall's plane (2D: the one in the x–z plane).
    const Eigen::Vector3d t1 =
        c.dimension == 2 ? Eigen::Vector3d(-n->z(), 0.0, n->x()) : n->unitOrthogonal();
    const Eigen::Vector3d t2 = n->cross(t1);
    const int m2 = c.dimension == 2 ? 0 : m;
    for (int i = -m; i <= m; ++i)
        for (int k = -m2; k <= m2; ++k)
            if (i * i + k * k <= m * m)
                out.push_back(sensor.point + spacing * (i * t1 + k * t2));
    return out;
}

namespace {

template <int D>
double wall_pressure_in(const WallSums& flat) {
    CorrectedSums<D> sums;
    std::size_t k = 0;
    for (int r = 0; r <= D; ++r)
        for (int q = 0; q <= D; ++q)
            sums.a[r][q] = flat[k++];
    for (int r = 0; r <= D; ++r)
        sums.b[r] = flat[k++];
    if (!(sums.a[0][0] > 0.0f))
        return 0.0; // no boundary particle in reach
    double x[D + 1];
    corrected_value(sums, x);
    // Both wall models keep a wall particle's density ≥ ρ0 (integrators.h boundary_density,
    // mdbc.h), so the wall's pressure field is ≥ 0 and so is its interpolation: where the linear
    // extrapolation from the wall particles to their surface overshoots below zero (a steep
    // gradient across the wall layers during an impact), the reading is 0.
    return std::max(x[0], 0.0);
}

} // namespace

double wall_pressure(const WallSums& sums, int dimension) {
    return dimension == 2 ? wall_pressure_in<2>(sums) : wall_pressure_in<3>(sums);
}

GaugePlan::GaugePlan(const Case& c, double support) : dimension_(c.dimension), dp_(c.dp) {
    sample_spacing_ = 0.25 * c.dp;
    line_bottom_ = c.domain.min.z();
    const std::size_t samples = static_cast<std::size_t>(
        std::max(1.0, std::ceil((c.domain.max.z() - c.domain.min.z()) / sample_spacing_)));
    request_.front_neighbour_distance = static_cast<float>(std::min(2.0 * c.dp, support));
    // Sensors' points, the averaged ones first (step_request() is their prefix).
    std::vector<std::size_t> first_wall(c.gauges.gauges.size()), wall_count(first_wall.size());
    for (const bool averaged : {true, false})
        for (std::size_t i = 0; i < c.gauges.gauges.size(); ++i) {
            const Gauge& g = c.gauges.gauges[i];
            if (g.kind != GaugeKind::sensor || g.average != averaged)
                continue;
            first_wall[i] = request_.wall_points.size();
            for (const Eigen::Vector3d& p : sensor_points(c, g))
                request_.wall_points.push_back(to_float3(p));
            wall_count[i] = request_.wall_points.size() - first_wall[i];
            if (averaged)
                step_request_.wall_points = request_.wall_points;
        }
    for (std::size_t i = 0; i < c.gauges.gauges.size(); ++i) {
        const Gauge& g = c.gauges.gauges[i];
        Entry e;
        e.kind = g.kind;
        switch (g.kind) {
        case GaugeKind::height:
            e.first_point = request_.points.size();
            e.point_count = samples;
            for (std::size_t k = 0; k < samples; ++k)
                request_.points.push_back(
                    {static_cast<float>(g.point.x()), static_cast<float>(g.point.y()),
                     static_cast<float>(line_bottom_ +
                                        (static_cast<double>(k) + 0.5) * sample_spacing_)});
            columns_.push_back({g.name, "m"});
            break;
        case GaugeKind::probe:
            e.first_point = request_.points.size();
            e.point_count = 1;
            request_.points.push_back({static_cast<float>(g.point.x()),
                                       static_cast<float>(g.point.y()),
                                       static_cast<float>(g.point.z())});
            e.fields = g.fields;
            for (const ProbeField f : g.fields) {
                if (f == ProbeField::pressure)
                    columns_.push_back({g.name + ".pressure", "Pa"});
                else if (f == ProbeField::density)
                    columns_.push_back({g.name + ".density", "kg/m3"});
                else if (f == ProbeField::fraction)
                    columns_.push_back({g.name + ".fraction", "1"});
                else {
                    columns_.push_back({g.name + ".velocity_x", "m/s"});
                    if (dimension_ == 3)
                        columns_.push_back({g.name + ".velocity_y", "m/s"});
                    columns_.push_back({g.name + ".velocity_z", "m/s"});
                }
            }
            break;
        case GaugeKind::front:
            e.front = request_.fronts.size();
            request_.fronts.push_back({g.axis, g.sign});
            columns_.push_back({g.name, "m"});
            break;
        case GaugeKind::sensor:
            e.first_point = first_wall[i];
            e.point_count = wall_count[i];
            if (g.average) {
                averaged_entries_.push_back(entries_.size());
                averaged_columns_.push_back(columns_.size());
            }
            columns_.push_back({g.name, "Pa"});
            break;
        }
        entries_.push_back(std::move(e));
    }
}

double GaugePlan::sensor_reading(const Entry& e, const GaugeResponse& r) const {
    double sum = 0.0;
    for (std::size_t k = 0; k < e.point_count; ++k)
        sum += wall_pressure(r.wall[e.first_point + k], dimension_);
    return sum / static_cast<double>(std::max<std::size_t>(e.point_count, 1));
}

std::vector<double> GaugePlan::averaged_readings(const GaugeResponse& r) const {
    std::vector<double> out;
    for (const std::size_t i : averaged_entries_)
        out.push_back(sensor_reading(entries_[i], r));
    return out;
}

std::vector<double> GaugePlan::evaluate(const GaugeResponse& r) const {
    std::vector<double> values;
    for (const Entry& e : entries_) {
        switch (e.kind) {
        case GaugeKind::height: {
            // The water column is the thickest stretch of samples in the water (φ ≥ ½); the
            // level is where φ falls below ½ above it, linearly interpolated between the
            // samples. So a drop or a sheet of spray above the column, a thin cavity below its
            // surface or a particle in the floor's wall layers (a stretch of a sample or two) is
            // not its top, while a crest, part of the column, is. Ties: the lowest. The scan
            // up the line is DualSPHysics's SWL gauge's (Domínguez et al. 2022, Comp. Part.
            // Mech. 9, §4), which takes the first stretch instead.
            double height = empty;
            const auto phi = [&](std::size_t k) {
                return static_cast<double>(r.sums[e.first_point + k][0]);
            };
            std::size_t best_top = 0, best_length = 0;
            for (std::size_t k = 0; k < e.point_count;) {
                if (!(phi(k) >= 0.5)) { // NaN is not water
                    ++k;
                    continue;
                }
                const std::size_t bottom = k;
                while (k + 1 < e.point_count && phi(k + 1) >= 0.5)
                    ++k;
                if (k + 1 - bottom > best_length) {
                    best_length = k + 1 - bottom;
                    best_top = k;
                }
                ++k;
            }
            if (best_length > 0) { // water on the line: best_top is its column's top sample
                const std::size_t k = best_top;
                const double z = line_bottom_ + (static_cast<double>(k) + 0.5) * sample_spacing_;
                height = k + 1 == e.point_count
                             ? z
                             : z + (phi(k) - 0.5) / (phi(k) - phi(k + 1)) * sample_spacing_;
            }
            values.push_back(height);
            break;
        }
        case GaugeKind::probe: {
            const auto& s = r.sums[e.first_point];
            const bool none = !(s[0] > 0.0f);
            for (const ProbeField f : e.fields) {
                if (f == ProbeField::pressure)
                    values.push_back(none ? empty : s[2] / s[0]);
                else if (f == ProbeField::density)
                    values.push_back(none ? empty : s[1] / s[0]);
                else if (f == ProbeField::fraction)
                    values.push_back(s[0]); // 0 where no fluid is in reach: a reading
                else {
                    values.push_back(none ? empty : s[3] / s[0]);
                    if (dimension_ == 3)
                        values.push_back(none ? empty : s[4] / s[0]);
                    values.push_back(none ? empty : s[5] / s[0]);
                }
            }
            break;
        }
        case GaugeKind::front: {
            // The water's edge: the particle's centre plus half a spacing ahead of it.
            const double centre = r.fronts[e.front];
            const int sign = request_.fronts[e.front].sign;
            values.push_back(std::isfinite(centre) ? centre + 0.5 * sign * dp_ : empty);
            break;
        }
        case GaugeKind::sensor:
            values.push_back(sensor_reading(e, r));
            break;
        }
    }
    return values;
}

void SensorAverages::add_step(const GaugeResponse& step_sample) {
    const std::vector<double> readings = plan_.averaged_readings(step_sample);
    sums_.resize(readings.size(), 0.0);
    for (std::size_t k = 0; k < readings.size(); ++k)
        sums_[k] += readings[k];
    ++steps_;
}

std::vector<double> SensorAverages::row(const GaugeResponse& r) {
    std::vector<double> values = plan_.evaluate(r);
    add_step(r);
    const std::vector<std::size_t>& columns = plan_.averaged_columns();
    for (std::size_t k = 0; k < columns.size(); ++k)
        values[columns[k]] = sums_[k] / static_cast<double>(steps_);
    sums_.assign(sums_.size(), 0.0);
    steps_ = 0;
    return values;
}

} // namespace sluice
