#pragma once
/// \file gauge_record.h
/// A run's gauge readings as time series, for the validation tests that analyse waves: the
/// simulation stepped to each sampling time t0, t0 + interval, … ≤ end and the plan's values
/// read there (GaugePlan::evaluate of one sample_gauges per time).

#include "backends/simulation.h"
#include "case/gauge_plan.h"

#include <cstddef>
#include <vector>

namespace sluice::test {

struct GaugeRecord {
    std::vector<double> t;                   ///< s: the simulation's time at each sample
    std::vector<std::vector<double>> values; ///< [gauge][sample], in the plan's column order
};

/// Steps `sim` from where it is to `end` (s), sampling `plan` at t0, t0 + interval, … ≤ end (the
/// first step at or past each time).
inline GaugeRecord record_gauges(Simulation& sim, const GaugePlan& plan, double t0, double end,
                                 double interval) {
    GaugeRecord r;
    for (double next = t0; next <= end + 1e-9; next += interval) {
        while (sim.time() < next)
            sim.step();
        const std::vector<double> v = plan.evaluate(sim.sample_gauges(plan.request()));
        r.values.resize(v.size());
        r.t.push_back(sim.time());
        for (std::size_t k = 0; k < v.size(); ++k)
            r.values[k].push_back(v[k]);
    }
    return r;
}

} // namespace sluice::test
