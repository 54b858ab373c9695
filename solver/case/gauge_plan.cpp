#include "case/gauge_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sluice {

namespace {

constexpr double empty = std::numeric_limits<double>::quiet_NaN();

} // namespace

GaugePlan::GaugePlan(const Case& c, double support) : dimension_(c.dimension), dp_(c.dp) {
    sample_spacing_ = 0.25 * c.dp;
    line_bottom_ = c.domain.min.z();
    const std::size_t samples = static_cast<std::size_t>(
        std::max(1.0, std::ceil((c.domain.max.z() - c.domain.min.z()) / sample_spacing_)));
    request_.front_neighbour_distance = static_cast<float>(std::min(2.0 * c.dp, support));
    for (const Gauge& g : c.gauges.gauges) {
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
        }
        entries_.push_back(std::move(e));
    }
}

std::vector<double> GaugePlan::evaluate(const GaugeResponse& r) const {
    std::vector<double> values;
    for (const Entry& e : entries_) {
        switch (e.kind) {
        case GaugeKind::height: {
            // Up the line from the lowest sample in the water (φ ≥ ½): the first sample where φ
            // falls below ½ again is above the surface; the level is the crossing between it
            // and the one below (spray above the column does not count). DualSPHysics's SWL
            // gauge scans the same way (Domínguez et al. 2022, Comp. Part. Mech. 9, §4).
            double height = empty;
            const auto phi = [&](std::size_t k) {
                return static_cast<double>(r.sums[e.first_point + k][0]);
            };
            std::size_t k = 0;
            while (k < e.point_count && phi(k) < 0.5)
                ++k;
            if (k < e.point_count) { // water on the line: k is its lowest sample
                while (k + 1 < e.point_count && phi(k + 1) >= 0.5)
                    ++k;
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
        }
    }
    return values;
}

} // namespace sluice
