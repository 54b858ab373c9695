#pragma once
/// \file dambreak_validation.h
/// The 2D dam break against the surge-front measurements of Koshizuka & Oka (1996), scaled to a
/// water column 1 m wide and 2 m high at the left wall of a tank 4 m long, for any backend:
/// test_dambreak.cpp runs it on each (a typed test over the backends).
///
/// The case is the shipped cases/dambreak2d.xml itself, with a water-like viscosity (Monaghan
/// α = 0.01, no calibration), and the front is its own `front` gauge (case/gauge_plan.h: the
/// farthest fluid particle with a fluid neighbour within 2 dp, plus dp/2), sampled every 5 ms.
///
/// The experiment's clock. The water in the experiment was held by a gate that takes a finite
/// time to clear the column; the simulation releases it at once. The measured front therefore
/// lags the simulated one by a start-up delay s: x_measured(t) ≈ x_simulated(t − s). The test
/// fits s by least mean relative error over the measurements after 0.1 s, within
/// 0 ≤ s ≤ 0.1 s — a gate opening time (of the order of a tenth of the column's free-fall time
/// sqrt(2H/g) = 0.64 s at most), far too short to stand in for a wrong front speed: the front
/// speed itself must match. Points before 0.1 s are where the gate still acts; they are printed,
/// not checked. Limits after the shift: 3 % mean and 5 % at every point after 0.1 s. The
/// unshifted errors are printed too (with α = 0.01 the simulated front leads by about 11 %,
/// as inviscid SPH does against this experiment; the old shipped case hid it with α = 0.3).

#include "backends/simulation.h"
#include "case/case_reader.h"
#include "case/gauge_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace sluice::test {

struct Measurement {
    double t, x; ///< s, m
};

inline std::vector<Measurement> read_csv(const std::string& path) {
    std::ifstream in(path);
    std::vector<Measurement> rows;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("t_s", 0) == 0)
            continue;
        std::istringstream fields(line);
        Measurement m{};
        char comma = 0;
        if (fields >> m.t >> comma >> m.x && comma == ',')
            rows.push_back(m);
    }
    return rows;
}

/// The folder of the validation data: $SLUICE_VALIDATION_DIR if set (e.g. on a machine the
/// tests were copied to), else the one configured at build time.
inline std::string validation_dir() {
    if (const char* dir = std::getenv("SLUICE_VALIDATION_DIR"); dir && *dir)
        return dir;
    return SLUICE_VALIDATION_DIR;
}

/// The fitted start-up delay and the errors (%) it leaves.
struct ShiftFit {
    double shift = 0.0; ///< s
    double mean = 0.0;  ///< mean |error| after 0.1 s, %
    double max = 0.0;   ///< max |error| after 0.1 s, %
};

/// Linear interpolation of the sampled front at time t.
inline double front_at(const std::vector<std::pair<double, double>>& front, double t) {
    if (t <= front.front().first)
        return front.front().second;
    for (std::size_t k = 1; k < front.size(); ++k)
        if (front[k].first >= t) {
            const auto [t0, x0] = front[k - 1];
            const auto [t1, x1] = front[k];
            return x0 + (x1 - x0) * (t - t0) / (t1 - t0);
        }
    return front.back().second;
}

inline ShiftFit fit_shift(const std::vector<std::pair<double, double>>& front,
                          const std::vector<Measurement>& measured, double max_shift) {
    ShiftFit best{0.0, HUGE_VAL, HUGE_VAL};
    for (double s = 0.0; s <= max_shift + 1e-12; s += 0.001) {
        ShiftFit f{s, 0.0, 0.0};
        int n = 0;
        for (const Measurement& m : measured) {
            if (m.t <= 0.1)
                continue;
            const double e = 100.0 * std::fabs(front_at(front, m.t - s) - m.x) / m.x;
            f.mean += e;
            f.max = std::max(f.max, e);
            ++n;
        }
        f.mean /= n;
        if (f.mean < best.mean)
            best = f;
    }
    return best;
}

/// Runs the dam break on `backend` and checks its front gauge against the measurements (the
/// method and limits at the top of this file). Skips when the data are not found.
inline void check_front_against_koshizuka_oka(Backend backend,
                                              ShiftingKind shifting = ShiftingKind::none) {
    const std::string path = validation_dir() + "/dambreak2d_koshizuka_oka_1996.csv";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << "validation data not found: " << path
                     << " (configure with -DSLUICE_VALIDATION_DIR=<folder with the csv> or set it "
                        "in the environment)";
    std::vector<Measurement> measured = read_csv(path);
    measured.erase(std::remove_if(measured.begin(), measured.end(),
                                  [](const Measurement& m) { return m.t > 0.6; }),
                   measured.end());
    ASSERT_GE(measured.size(), 10u) << "unexpected content in " << path;

    // The shipped default case is the validated one, with its own front gauge.
    Case c = read_case(std::string(SLUICE_CASES_DIR) + "/dambreak2d.xml");
    c.physics.shifting = shifting;
    ASSERT_EQ(c.dimension, 2);
    ASSERT_LE(c.physics.viscosity_value, 0.02) << "the validated case must be water-like";
    ASSERT_EQ(c.gauges.gauges.size(), 1u);
    ASSERT_EQ(c.gauges.gauges[0].kind, GaugeKind::front);
    auto sim = make_simulation(c, backend);
    const GaugePlan plan(c, sim->constants().support);
    auto sample = [&] { return plan.evaluate(sim->sample_gauges(plan.request()))[0]; };
    EXPECT_NEAR(sample(), 1.0, 1e-6) << "at t = 0 the front is the column's face";

    std::vector<std::pair<double, double>> front{{0.0, sample()}};
    const double interval = 0.005;
    for (int k = 1; k * interval <= 0.6 + 1e-9; ++k) {
        while (sim->time() < k * interval)
            sim->step();
        front.emplace_back(sim->time(), sample());
    }
    const double max_shift = 0.1;
    const ShiftFit fit = fit_shift(front, measured, max_shift);
    std::printf("dam break 2D (%s, shifting %s), dp = %.3f m, alpha = %.3g; front gauge vs "
                "Koshizuka & Oka "
                "(1996)\nfitted start-up delay %.3f s (allowed 0 .. %.1f s)\n"
                "    t (s)   measured (m)   simulated at t (m)   error (%%)   at t - %.3f s (m)   "
                "error (%%)\n",
                sim->backend_name().c_str(), to_string(shifting), c.dp, c.physics.viscosity_value,
                fit.shift, max_shift, fit.shift);
    double unshifted_mean = 0.0;
    int after = 0;
    for (const Measurement& m : measured) {
        const double x0 = front_at(front, m.t), x1 = front_at(front, m.t - fit.shift);
        const double e0 = 100.0 * (x0 - m.x) / m.x, e1 = 100.0 * (x1 - m.x) / m.x;
        std::printf("  %7.4f   %12.3f   %18.3f   %+9.1f   %17.3f   %+9.1f%s\n", m.t, m.x, x0, e0,
                    x1, e1, m.t <= 0.1 ? "   (gate still acting: not checked)" : "");
        if (m.t > 0.1) {
            unshifted_mean += std::fabs(e0);
            ++after;
            EXPECT_LE(std::fabs(e1), 5.0) << "t = " << m.t;
        }
    }
    std::printf(
        "  after 0.1 s: shifted mean |error| %.1f %%, max %.1f %%; unshifted mean %.1f %%\n",
        fit.mean, fit.max, unshifted_mean / after);
    EXPECT_LE(fit.mean, 3.0);
    EXPECT_LT(fit.shift, max_shift) << "the fit hit the end of the allowed range";
}

} // namespace sluice::test
