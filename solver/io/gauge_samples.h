#pragma once
/// \file gauge_samples.h
/// What a gauge sample asks a running simulation for and what it answers (Simulation::
/// sample_gauges; case/gauge_plan.h makes the requests from a case, io/gauge_rows.h turns the
/// answers into rows of gauges.csv).

#include <array>
#include <cstdint>
#include <vector>

namespace sluice {

/// Gauge queries for Simulation::sample_gauges (case/gauge_plan.h makes them from a case).
struct GaugeRequest {
    /// Query points (m; 2D: y ignored): kernel sums of the fluid around each (physics/gauges.h).
    std::vector<std::array<float, 3>> points;
    struct Front {
        int axis = 0; ///< 0 x, 1 y, 2 z
        int sign = 1; ///< +1: the largest coordinate; −1: the smallest
    };
    std::vector<Front> fronts;
    /// A front particle needs another fluid particle within this distance (m).
    float front_neighbour_distance = 0.0f;
    /// Points on wall surfaces (m; 2D: y ignored): the corrected-interpolation sums of the
    /// boundary particles around each (physics/gauges.h, WallSensorVisitor).
    std::vector<std::array<float, 3>> wall_points;
    /// Bodies: the force and moment of the fluid on each (physics/forces.h).
    struct Body {
        std::uint32_t first_id = 0; ///< its particles' ids: [first_id, first_id + id_count)
        std::uint32_t id_count = 0;
        std::array<float, 3> moment_point{}; ///< m, at t = 0 (it moves with the body)
        std::uint32_t object = 0; ///< its index among the case's boundary objects (its motion)
    };
    std::vector<Body> bodies;
    /// Floating bodies: each one's state and loads (FloatingSample).
    bool floating = false;
};

/// A floating body's state and the loads of the step's last BodyLoads pass (physics/
/// rigid_body.h), world axes (2D: y components 0; per unit width).
struct FloatingSample {
    double center[3] = {};           ///< centre of mass, m
    double orientation[4] = {};      ///< unit quaternion (w, x, y, z) from the pose at t = 0
    double velocity[3] = {};         ///< of the centre, m/s
    double angular_velocity[3] = {}; ///< rad/s
    double fluid_force[3] = {};      ///< N (2D: N/m)
    double fluid_moment[3] = {};     ///< about the centre, N·m (2D: N·m/m)
    double spring_force[3] = {};     ///< N
    double contact_force[3] = {};    ///< N
};

/// The sums of the corrected interpolation of the wall's pressure at one wall point, D + 1 = N:
/// the N × N matrix A row by row, then the right-hand side b (physics/gauges.h, WallSensorSums);
/// 2D uses the first 12 entries.
using WallSums = std::array<float, 20>;

/// A regular grid of query points for the fluid fraction (Simulation::sample_fraction_grid; what
/// `sluice surface` contours). Point (i, j, l), i fastest, lies at origin + (i, j, l)·spacing; in
/// 2D the grid lies in the x–z plane: origin and counts are (x, z, ·), l = 0 (physics/gauges.h,
/// grid_point). Only the points [first, first + points) of the grid's x-fastest order are asked.
/// Plain arrays: the struct goes to the device as a kernel argument and is read there.
struct FractionGrid {
    float origin[3] = {0.0f, 0.0f, 0.0f}; ///< m
    float spacing = 0.0f;                 ///< m
    std::uint32_t counts[3] = {1, 1, 1};
    std::uint64_t first = 0;
    std::uint64_t points = 0;
};

struct GaugeResponse {
    /// Per query point: φ, Σ V W ρ, Σ V W p, Σ V W v (x, y, z; 2D: y = 0).
    std::vector<std::array<float, 6>> sums;
    /// Per front: the coordinate of the front (m), NaN when no fluid particle qualifies.
    std::vector<float> fronts;
    /// Per wall point: WallSums.
    std::vector<WallSums> wall;
    /// Per body: the force (x, y, z; N, in 2D N/m) and the moment about its point (x, y, z;
    /// N·m, in 2D N·m/m) of the fluid on it; 2D: y force, x and z moments 0.
    std::vector<std::array<double, 6>> forces;
    /// Per floating body (request.floating), in case order.
    std::vector<FloatingSample> floating;
};

} // namespace sluice
