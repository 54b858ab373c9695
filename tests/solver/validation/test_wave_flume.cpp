// Regular waves in a flume against first-order wave-maker theory (case/wave_maker.h): the
// shipped cases/wave_flume2d.xml (a piston, H = 0.08 m, T = 1.45 s, d = 0.4 m: kd = 1.0; a
// damping zone over the last 4 m; laminar viscosity of water; h = 2.12 dp) without its
// submerged block, whose reflection would mix with the absorber's. Its level gauges one, two
// and three wavelengths from the paddle, over the window after the waves have reached them and
// the absorber's reflection has come back to the first (12 s to the end):
// - each gauge's median zero-up-crossing height against the target H (the 5 %) and its
//   median period against T (1 %); medians, because a drop above the surface can put one
//   outlying sample in a gauge's record, which splits a wave in two (it did at G3, dp = 0.008 m:
//   mean H +49 %, mean T −11 %, 9 waves for 8);
// - the reflection coefficient of the damping zone by Goda & Suzuki (1976) from the gauge pair
//   G1, G1b 0.3 m (0.12 L) apart at the wave frequency (≤ 10 %).
// The heights fall along the flume by the scheme's numerical dissipation, which is the kernel's
// discretisation error: with h = 1.41 dp (coefh 1.0) the waves lost 8–9 % per wavelength at
// H/dp = 5 and still 5–7 % at H/dp = 10 (G3 −25 % and −20 %, H100), whatever the speed of sound
// (coefSound 10 or 20), the density diffusion (δ = 0.05 or 0.1), artificial viscosity
// (α = 0.001, 0.01), free-slip or DBC walls; h = 1.7 dp lost 3 %, h = 2.12 dp 1–1.5 % per
// wavelength (G1–G3 at H/dp = 5: −2.5 to −4.3 % and −2.2 to −5.0 % in two runs; at H/dp = 10
// +0.7, +0.2 % (G1, G2) and −1.5 to −3.4 %: the GPU's atomic sums take another order each
// run, and the waves' details follow). The GPU runs
// H/dp = 5 and 10 (dp = 0.016 and 0.008 m, the H/dp ≥ 10 at the finest) and checks the
// period, the reflection and the 5 % at both, and that the heights have converged in dp: the two
// resolutions agree at every gauge within 2.5 % of H, the run-to-run spread of one build (two
// H200 runs of the shipped flume at dp = 0.016 m, Nov 2026: G2 −0.9 and −2.7 %, G3 −2.3 and
// −1.6 %) with a margin. The test needs a GPU: the coarsest run worth checking (H/dp = 5) takes
// about 40 s there and hours on two CPU cores, and at H/dp = 2.7 (dp = 0.03 m) the CPU's waves were
// not resolved (G1's period +1.5 % over 11-16 s in the whole flume, +5 % over 6-12 s in one 7.5 m
// long). On the CPU the wave maker's paddle motion is checked by MovingWalls/Cpu (the path
// within 5e-8 m) and its theory by WaveMaker.* (tests/solver/case/test_wave_maker.cpp); the
// moving tank against theory by Sloshing/Cpu.

#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/gauge_plan.h"
#include "support/gauge_record.h"
#include "support/wave_analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace sluice;

namespace {

constexpr double g = 9.81, pi = 3.14159265358979323846;
constexpr double H = 0.08, T = 1.45, depth = 0.4;

struct FlumeResult {
    std::vector<test::WaveStatistics> gauges; ///< G1, G2, G3 (those in the window)
    double reflection = 0.0;
};

/// The shipped flume without the block (one fluid box instead of three), at spacing dp, run to
/// `end` (s); the gauges analysed over [t0, end].
FlumeResult flume(double dp, double t0, double end, Backend backend) {
    Case c = read_case(SLUICE_CASES_DIR "/wave_flume2d.xml");
    c.obstacles.pop_back(); // the block
    FluidRegion water = c.fluids.front();
    water.box.max = c.fluids.back().box.max;
    c.fluids = {water};
    c.run.end_time = end;
    apply_dp_override(c, dp);
    auto sim = make_simulation(c, backend);
    const GaugePlan plan(c, sim->constants().support);
    // G1 G1b G2 G2b G3 G3b
    const test::GaugeRecord eta = test::record_gauges(*sim, plan, t0, end, c.gauges.interval);
    const std::vector<double>& t = eta.t;
    FlumeResult r;
    for (std::size_t k = 0; k < eta.values.size(); k += 2) {
        r.gauges.push_back(test::zero_crossing(t, eta.values[k]));
        std::printf("wave flume, dp = %.3f m (H/dp = %.1f, %s): %s at x = %.2f m: H = %.4f m "
                    "(%+.2f %%), T = %.4f s (%+.2f %%), %d waves (medians; means %.4f m, %.4f s)\n",
                    dp, H / dp, sim->backend_name().c_str(), c.gauges.gauges[k].name.c_str(),
                    c.gauges.gauges[k].point.x(), r.gauges.back().median_height,
                    100.0 * (r.gauges.back().median_height / H - 1.0),
                    r.gauges.back().median_period,
                    100.0 * (r.gauges.back().median_period / T - 1.0), r.gauges.back().waves,
                    r.gauges.back().mean_height, r.gauges.back().mean_period);
    }
    const double omega = 2.0 * pi / T;
    const double k = test::wave_number(omega, depth, g);
    const double spacing = c.gauges.gauges[1].point.x() - c.gauges.gauges[0].point.x();
    const test::Reflection refl =
        test::goda_suzuki(test::harmonic(t, eta.values[0], omega),
                          test::harmonic(t, eta.values[1], omega), k, spacing);
    r.reflection = refl.coefficient;
    std::printf("wave flume, dp = %.3f m: incident %.4f m, reflected %.4f m: Kr = %.3f\n", dp,
                refl.incident, refl.reflected, refl.coefficient);
    return r;
}

template <class TagT>
class WaveFlume : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(WaveFlume, test::AllBackends, test::BackendName);

TYPED_TEST(WaveFlume, RegularWavesAgainstFirstOrderTheory) {
    if (TypeParam::backend == Backend::cpu)
        GTEST_SKIP() << "the flume runs on the GPU: H/dp >= 5 over 25 s is hours on CI's two "
                        "cores, and coarser waves (H/dp = 2.7) are not resolved (period +5 %)";
    std::vector<FlumeResult> runs;
    for (double dp : {0.016, 0.008}) {
        runs.push_back(flume(dp, 12.0, 25.0, TypeParam::backend));
        const FlumeResult& r = runs.back();
        for (const test::WaveStatistics& s : r.gauges) {
            EXPECT_NEAR(s.median_period, T, 0.01 * T) << "dp = " << dp;
            EXPECT_NEAR(s.median_height, H, 0.05 * H) << "dp = " << dp;
        }
        EXPECT_LT(r.reflection, 0.10) << "dp = " << dp;
    }
    // Converged in dp: at h = 2.12 dp the heights no longer depend on the resolution (H/dp = 5
    // and 10 agreed within 0.1-1.3 % of H at every gauge in two H200 runs, Nov 2026), and the 1-3 %
    // they lie below first-order theory is the theory's own (H/d = 0.2 is not a small wave:
    // second order and the paddle's evanescent modes differ by a few per cent), not the
    // kernel's dissipation, which at h = 1.41 dp took 5-9 % a wavelength. So convergence is
    // asserted as agreement between the resolutions within 2.5 % of H: two runs of one build
    // differ by up to 1.8 % of H at a gauge (the GPU's atomic sums take another order each run,
    // and the waves' details follow).
    ASSERT_EQ(runs[0].gauges.size(), runs[1].gauges.size());
    for (std::size_t k = 0; k < runs[0].gauges.size(); ++k)
        EXPECT_NEAR(runs[1].gauges[k].median_height, runs[0].gauges[k].median_height, 0.025 * H)
            << "gauge " << k;
}

} // namespace
