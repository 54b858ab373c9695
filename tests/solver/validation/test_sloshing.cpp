// Sloshing against linear theory: the free oscillation of the first mode of a rectangular tank,
// ω1² = g k1 tanh(k1 h), k1 = π/L (Ibrahim 2005, Liquid Sloshing Dynamics, eq. 1.32; Faltinsen
// & Timokha 2009, Sloshing, §4.3). cases/sloshing2d.xml as shipped: water 0.5 m deep in a tank
// 1 m long (T1 = 1.1818 s), the tank shaken for two periods of the mode (A = 5 mm) and then
// held still; mDBC walls. The period is the mean zero-up-crossing period of the antisymmetric
// part of the levels at the two walls, (η_left − η_right)/2 (the even modes drop out), over
// the free oscillation from 3 s to 10 s (about six periods).
// Target (the issue's): within 2 % of T1 at the finest resolution run, and nearer with every
// refinement. The period comes out short, by what the artificial viscosity and the resolution
// add: α = 0.01 gave −4.2 % at dp = 0.02 m (CPU) and α = 0.001 −2.8 %; with α = 0.001 (the case's)
// −0.96 % at dp = 0.005 m (H200, a first run). The wave is 5–6 cm high at the walls when the
// shaking stops (ka ≈ 0.08: linear; the nonlinear correction, Tadjbakhsh & Keller 1960, is
// −0.06 %). The CPU runs the shipped dp = 0.02 m (25 particles deep; CI's time), checked within
// 4 %; the GPU runs 0.01 and 0.005 m, the 2 % at the finest.

#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/gauge_plan.h"
#include "support/gauge_record.h"
#include "support/wave_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

using namespace sluice;

namespace {

constexpr double g = 9.81, pi = 3.14159265358979323846;

/// The first mode's period from linear theory for the case's tank and water.
double theory_period(double length, double depth) {
    const double k = pi / length;
    return 2.0 * pi / std::sqrt(g * k * std::tanh(k * depth));
}

/// The shipped case at spacing dp with the given walls; the measured period of its free
/// oscillation (s).
double free_period(double dp, BoundaryKind boundary, Backend backend) {
    Case c = read_case(SLUICE_CASES_DIR "/sloshing2d.xml");
    apply_dp_override(c, dp);
    c.physics.boundary = boundary;
    auto sim = make_simulation(c, backend);
    const GaugePlan plan(c, sim->constants().support);
    const test::GaugeRecord r =
        test::record_gauges(*sim, plan, 3.0, c.run.end_time, c.gauges.interval);
    std::vector<double> eta;
    for (std::size_t i = 0; i < r.t.size(); ++i)
        eta.push_back(0.5 * (r.values[0][i] - r.values[1][i])); // left, right
    const test::WaveStatistics s = test::zero_crossing(r.t, eta);
    std::printf("sloshing, %s, dp = %.4f m (%s): period %.4f s over %d waves (theory %.4f s, "
                "%+.2f %%), amplitude %.4f m\n",
                to_string(boundary), dp, sim->backend_name().c_str(), s.mean_period, s.waves,
                theory_period(1.0, 0.5), 100.0 * (s.mean_period / theory_period(1.0, 0.5) - 1.0),
                0.5 * s.mean_height);
    return s.mean_period;
}

template <class TagT>
class Sloshing : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(Sloshing, test::AllBackends, test::BackendName);

TYPED_TEST(Sloshing, FirstModeFrequency) {
    const double T1 = theory_period(1.0, 0.5);
    EXPECT_NEAR(T1, 1.1818, 1e-4); // the case's comment
    if (TypeParam::backend == Backend::cpu) {
        const double t = free_period(0.02, BoundaryKind::mdbc, TypeParam::backend);
        EXPECT_NEAR(t, T1, 0.04 * T1);
        return;
    }
    std::vector<double> error;
    for (double dp : {0.01, 0.005}) {
        error.push_back(std::fabs(free_period(dp, BoundaryKind::mdbc, TypeParam::backend) - T1) /
                        T1);
    }
    EXPECT_LT(error.back(), 0.02);
    EXPECT_LT(error[1], error[0]);
}

} // namespace
