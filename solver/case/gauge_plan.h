#pragma once
/// \file gauge_plan.h
/// The case's <gauges> turned into backend queries and the answers into gauges.csv columns.
///
/// - height: the fluid fraction φ is sampled on the vertical line every dp/4 from the bottom of
///   the domain to its top; the height is the highest point where φ reaches ½, linearly
///   interpolated between samples (resolution dp/4 before interpolation). On still water with
///   a lattice surface it lies half a spacing above the top particle centres, at the surface.
///   No fluid on the line: empty.
/// - probe: Shepard interpolation of each field (physics/gauges.h); no fluid in reach: empty.
/// - front: the largest (or, for "-x", smallest) coordinate of a fluid particle that has
///   another fluid particle within 2 dp (capped at the search radius), so droplets ahead of the
///   front do not count, plus half a spacing ahead of it: the water's edge (at t = 0 exactly the
///   face of a fluid box).

#include "case/case_model.h"
#include "io/gauge_samples.h"

#include <functional>
#include <string>
#include <vector>

namespace sluice {

struct GaugeColumn {
    std::string name; ///< e.g. "H2", "P1.pressure", "P1.velocity_x"
    std::string unit; ///< e.g. "m", "Pa", "m/s", "kg/m3"
};

class GaugePlan {
public:
    /// \param support the kernel support 2h (m): the front's neighbour distance is capped at it.
    GaugePlan(const Case& c, double support);

    const GaugeRequest& request() const { return request_; }
    const std::vector<GaugeColumn>& columns() const { return columns_; }
    /// One value per column; NaN where the gauge has no reading.
    std::vector<double> evaluate(const GaugeResponse& response) const;
    /// evaluate as a function (for io/gauge_rows.h); the plan must outlive it.
    std::function<std::vector<double>(const GaugeResponse&)> evaluator() const {
        return [this](const GaugeResponse& r) { return evaluate(r); };
    }

private:
    struct Entry {
        GaugeKind kind;
        std::size_t first_point = 0, point_count = 0; ///< into request_.points
        std::size_t front = 0;                        ///< into request_.fronts
        std::vector<ProbeField> fields;
    };
    int dimension_;
    double dp_;
    double sample_spacing_ = 0.0; ///< m, along height lines
    double line_bottom_ = 0.0;    ///< m
    GaugeRequest request_;
    std::vector<Entry> entries_;
    std::vector<GaugeColumn> columns_;
};

} // namespace sluice
