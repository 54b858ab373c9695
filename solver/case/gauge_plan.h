#pragma once
/// \file gauge_plan.h
/// The case's <gauges> turned into backend queries and the answers into gauges.csv columns.
///
/// - height: the fluid fraction φ is sampled on the vertical line every dp/4 from the bottom of
///   the domain to its top; the height is where φ falls below ½ above the thickest stretch of
///   samples with φ ≥ ½ (the water column: drops, sheets of spray and a particle in the floor's
///   wall layers are thinner), linearly interpolated between samples (resolution dp/4 before
///   interpolation). On
///   still water with a lattice surface it lies half a spacing above the top particle centres,
///   at the surface. No fluid on the line: empty.
/// - probe: Shepard interpolation of each field (physics/gauges.h); no fluid in reach: empty.
/// - front: the largest (or, for "-x", smallest) coordinate of a fluid particle that has
///   another fluid particle within 2 dp (capped at the search radius), so droplets ahead of the
///   front do not count, plus half a spacing ahead of it: the water's edge (at t = 0 exactly the
///   face of a fluid box).
/// - sensor: the wall's pressure at a point of its surface: the first-order-corrected
///   interpolation of the boundary particles' pressures (physics/corrected_interpolation.h, as
///   mDBC's ghost nodes) at each sample point of the sensor's face, Shepard's where its matrix
///   is ill-conditioned; no boundary particle in reach: 0 (Pa). On a flat wall with its layers
///   filling the kernel's support |det A| is about 0.1 (tests/solver/case/test_gauge_plan.cpp). The
///   reading is the mean over the face's sample points (sensor_points). Averaged sensors
///   (Gauge::average) report the mean of the readings of every step since the previous row, this
///   row's step included (SensorAverages; the run samples them after every step, step_request()).

#include "case/case_model.h"
#include "io/gauge_samples.h"

#include <Eigen/Core>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

/// The unit normal, into the fluid, of the wall a sensor's point lies on: wall_surface_normal
/// (case/wall_normals.h): the nearest surface piece of the tank or of any obstacle (box,
/// cylinder, sphere, surface mesh) within dp of the point; none when no wall is that near.
std::optional<Eigen::Vector3d> sensor_wall_normal(const Case& c, const Eigen::Vector3d& point);

/// The sample points of a sensor (m): its point for radius 0; otherwise a lattice spaced
/// radius/ceil(2·radius/dp) ≤ dp/2 in the wall's plane (its normal from sensor_wall_normal),
/// the points within the radius: a disk in 3D, a segment along the wall in the x–z plane in 2D.
/// Every point weighs the same. Precondition: the point is on a wall (the reader checks it).
std::vector<Eigen::Vector3d> sensor_points(const Case& c, const Gauge& sensor);

/// The corrected interpolation's value from one wall point's sums (file comment; Pa).
double wall_pressure(const WallSums& sums, int dimension);

struct GaugeColumn {
    std::string name; ///< e.g. "H2", "P1.pressure", "P1.velocity_x"
    std::string unit; ///< e.g. "m", "Pa", "m/s", "kg/m3"
};

class GaugePlan {
public:
    /// \param support the kernel support 2h (m): the front's neighbour distance is capped at it.
    GaugePlan(const Case& c, double support);

    const GaugeRequest& request() const { return request_; }
    /// What the run samples after each step between rows: the averaged sensors' points only
    /// (the first of request()'s wall points); empty when the case has none.
    const GaugeRequest& step_request() const { return step_request_; }
    const std::vector<GaugeColumn>& columns() const { return columns_; }
    /// One value per column; NaN where the gauge has no reading.
    std::vector<double> evaluate(const GaugeResponse& response) const;
    /// evaluate as a function (for io/gauge_rows.h); the plan must outlive it.
    std::function<std::vector<double>(const GaugeResponse&)> evaluator() const {
        return [this](const GaugeResponse& r) { return evaluate(r); };
    }
    /// The averaged sensors' readings (Pa) in the sample r of request() or step_request(), one
    /// per averaged sensor in column order, and their columns.
    std::vector<double> averaged_readings(const GaugeResponse& r) const;
    const std::vector<std::size_t>& averaged_columns() const { return averaged_columns_; }

private:
    struct Entry {
        GaugeKind kind;
        /// into request_.points; a sensor: into request_.wall_points
        std::size_t first_point = 0, point_count = 0;
        std::size_t front = 0; ///< into request_.fronts
        std::vector<ProbeField> fields;
    };
    int dimension_;
    double dp_;
    double sample_spacing_ = 0.0; ///< m, along height lines
    double line_bottom_ = 0.0;    ///< m
    GaugeRequest request_, step_request_;
    std::vector<Entry> entries_;
    std::vector<GaugeColumn> columns_;
    std::vector<std::size_t> averaged_entries_, averaged_columns_;
    double sensor_reading(const Entry& e, const GaugeResponse& r) const;
};

/// The running means of a plan's averaged sensors between rows (Gauge::average): fed the
/// step_request() sample of every step between rows, then the row's sample, which it turns into
/// the row with the averaged sensors' columns replaced by their means. One thread at a time
/// (gauges.csv's writer). After a restart the first row averages from the restart on.
class SensorAverages {
public:
    explicit SensorAverages(const GaugePlan& plan) : plan_(plan) {} ///< plan outlives it
    /// A step between rows.
    void add_step(const GaugeResponse& step_sample);
    /// The row of sample r (of plan.request()); starts the next interval.
    std::vector<double> row(const GaugeResponse& r);

private:
    const GaugePlan& plan_;
    std::vector<double> sums_;
    std::size_t steps_ = 0;
};

} // namespace sluice
