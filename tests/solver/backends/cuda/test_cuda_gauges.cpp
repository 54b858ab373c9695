// Gauge samples of the CUDA backend that run beside the next step (kept lists, one GPU: the
// sample goes on a stream of its own, and the first pass of the next step that writes what it
// reads waits for it). Skips where no CUDA device is present (it compiles without CUDA too).

#include "backends/cuda/cuda_backend.h"
#include "case/case_reader.h"
#include "case/gauge_plan.h"
#include "neighbours/module.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <future>
#include <limits>
#include <string>

using namespace sluice;

namespace {

/// Whether any entry of any array of `r` is nonzero (the samples compared are not all zeros).
bool any_nonzero(const GaugeResponse& r) {
    for (const auto& s : r.sums)
        for (float v : s)
            if (v != 0.0f)
                return true;
    for (const auto& w : r.wall)
        for (float v : w)
            if (v != 0.0f)
                return true;
    return false;
}

/// The same bits in both (a deterministic build: the atomic counting sort orders a bin's
/// particles differently in each run, and the sums' order with them).
void expect_same(const GaugeResponse& got, const GaugeResponse& expected, int k) {
    ASSERT_EQ(got.sums.size(), expected.sums.size());
    ASSERT_EQ(got.wall.size(), expected.wall.size());
    for (std::size_t p = 0; p < expected.sums.size(); ++p)
        EXPECT_EQ(got.sums[p], expected.sums[p]) << "step " << k << ", point " << p;
    for (std::size_t p = 0; p < expected.wall.size(); ++p)
        EXPECT_EQ(got.wall[p], expected.wall[p]) << "step " << k << ", wall point " << p;
    ASSERT_EQ(got.fronts.size(), expected.fronts.size());
    for (std::size_t f = 0; f < expected.fronts.size(); ++f)
        EXPECT_EQ(std::isnan(got.fronts[f]) ? 0.0f : got.fronts[f],
                  std::isnan(expected.fronts[f]) ? 0.0f : expected.fronts[f])
            << "step " << k;
}

/// cases/dambreak3d.xml (heights over the water, pressure sensors on the obstacle) with a
/// deterministic build (radix sort), at dp = 0.03 m.
Case deterministic_dambreak3d() {
    Case c = read_case(std::string(SLUICE_CASES_DIR) + "/dambreak3d.xml");
    c.dp = 0.03;
    c.neighbours = parse_neighbour_module("radix-sort/strips/0.3333333");
    return c;
}

} // namespace

/// The sample begun after a step and read after the next one holds the state of the step it
/// was begun after: the same bits as a second simulation of the same case sampled
/// synchronously at that step (both on kept lists). Every step samples, as a run with averaged
/// wall sensors does: the next step's interaction passes run beside the sample, its
/// integration must wait for it.
TEST(CudaGauges, ASampleBesideTheNextStepReadsTheStateItWasBegunAt) {
    if (!cuda_device_available())
        GTEST_SKIP() << "no CUDA device";
    const Case c = deterministic_dambreak3d();
    auto beside = make_cuda_simulation(c);
    auto waited = make_cuda_simulation(c);
    const GaugePlan plan(c, beside->constants().support);
    const GaugeRequest& request = plan.request();
    ASSERT_FALSE(request.points.empty());
    ASSERT_FALSE(request.wall_points.empty());
    int nonzero = 0;
    const int steps = 60;
    for (int k = 0; k < steps; ++k) {
        std::future<GaugeResponse> pending = beside->begin_gauges(request);
        const GaugeResponse expected = waited->sample_gauges(request);
        beside->step(); // its first passes run beside the sample
        waited->step();
        const GaugeResponse got = pending.get();
        expect_same(got, expected, k);
        nonzero += any_nonzero(got) ? 1 : 0;
    }
    EXPECT_EQ(nonzero, steps); // the heights' points lie in the water from the start
    EXPECT_GT(beside->counters().kept_list_steps, static_cast<std::uint64_t>(steps) / 2);
    EXPECT_EQ(beside->time(), waited->time());
    std::printf("%d samples, each beside the next step, equal to the same step's sample waited "
                "for; %llu of %d steps on kept lists\n",
                steps, static_cast<unsigned long long>(beside->counters().kept_list_steps), steps);
}

/// Simulation::step_and_sample: the sample queued before the step is waited for (and run beside
/// the next one) holds the state the step ended in, the same bits as a sample taken after an
/// identical simulation's step; a step that does not end before `before` gives no sample.
TEST(CudaGauges, ASampleQueuedWithTheStepReadsTheStateItEndsIn) {
    if (!cuda_device_available())
        GTEST_SKIP() << "no CUDA device";
    const Case c = deterministic_dambreak3d();
    auto with_step = make_cuda_simulation(c);
    auto after_step = make_cuda_simulation(c);
    const GaugePlan plan(c, with_step->constants().support);
    const GaugeRequest& request = plan.request();
    // The first sample builds (no structure yet); the queued ones start from the second step.
    with_step->sample_gauges(request);
    after_step->sample_gauges(request);
    const int steps = 60;
    for (int k = 0; k < steps; ++k) {
        std::future<GaugeResponse> sample =
            with_step->step_and_sample(request, std::numeric_limits<double>::infinity());
        after_step->step();
        ASSERT_TRUE(sample.valid()) << "step " << k;
        const GaugeResponse expected = after_step->sample_gauges(request);
        expect_same(sample.get(), expected, k);
    }
    EXPECT_EQ(with_step->time(), after_step->time());
    // `before` already passed: a step, and no sample.
    const std::uint64_t taken = with_step->steps();
    EXPECT_FALSE(with_step->step_and_sample(request, with_step->time()).valid());
    EXPECT_EQ(with_step->steps(), taken + 1);
    std::printf("%d samples queued with their steps, equal to the samples after an identical "
                "run's steps\n",
                steps);
}
