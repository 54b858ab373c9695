#pragma once
/// \file results.h
/// What neighbours_bench measures: one Row per module and configuration (dimension, size,
/// distribution, target neighbours), filled by the measurement (module_bench.cuh,
/// circles_run.cuh) and read by the report (report.h).

#include "module.h"

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sluice::bench {

/// Named stages of a construction with their median time (ms), in order.
using Stages = std::vector<std::pair<std::string, double>>;

struct ConstructionResult {
    double presorted_ms = 0, shuffled_ms = 0; ///< median of the whole construction
    Stages presorted_stages, shuffled_stages; ///< medians of separate timed runs
};

struct QueryResult {
    double count_ms = std::nan(""), circles_ms = std::nan(""); ///< median per workload
    double candidates = 0, neighbours = 0, ranges = 0;         ///< per particle
    double bytes_circles = 0, bytes_count = 0;                 ///< logical bytes per query
    double pbm_loads = 0, bins = 0;                            ///< per particle
    double run_median_ms = std::nan(""); ///< circles-run: median over the steps
};

struct Row {
    int dim = 3;
    std::uint32_t n = 0;
    std::string dist; ///< the data set's name, or "circles-run"
    int target_neighbours = 0;
    std::string note; ///< how the data set was made
    NeighbourModule module;
    std::uint32_t bins = 0; ///< bins of the grid
    ConstructionResult build;
    QueryResult query_result;
};

/// A bin width in a label of the report: "1/3" for a third, else as a std::ostream writes it
/// ("1", "0.5"). Module names are NeighbourModule::name()'s.
inline std::string width_label(float w) {
    std::ostringstream s;
    if (std::fabs(w - 1.0f / 3.0f) < 1e-6f)
        s << "1/3";
    else
        s << w;
    return s.str();
}

/// Whether two rows belong to the same configuration (dimension, n, distribution, density).
inline bool same_configuration(const Row& a, const Row& b) {
    return a.dim == b.dim && a.n == b.n && a.dist == b.dist &&
           a.target_neighbours == b.target_neighbours;
}

} // namespace sluice::bench
