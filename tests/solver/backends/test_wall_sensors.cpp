// Wall pressure sensors on a running simulation (CPU backend; the CUDA backend's agree with it
// in test_backend_agreement.cpp): still water reads ρ0·g·depth on the walls, and an averaged
// sensor's row is the mean of its readings over the steps since the previous row, sampled after
// each step or begun with it (both backends).

#include "app/step_loop.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/simulation.h"
#include "case/case_reader.h"
#include "case/gauge_plan.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <string>
#include <vector>

using namespace sluice;

namespace {

constexpr double g = 9.81, rho0 = 1000.0;

} // namespace

TEST(WallSensors, StillWater2DReadsTheHydrostaticPressureOnTheWalls) {
    // cases/still_water2d.xml (0.5 m of water, dp = 0.02 m, DBC walls) after 1 s: sensors on the
    // left and right walls and on the floor.
    Case c = read_case(std::string(SLUICE_CASES_DIR) + "/still_water2d.xml");
    const double depth = 0.5;
    c.gauges.interval = 0.01;
    c.gauges.gauges = {test::wall_sensor("L10", {0.0, 0.0, 0.4}),
                       test::wall_sensor("L25", {0.0, 0.0, 0.25}),
                       test::wall_sensor("L40", {0.0, 0.0, 0.1}),
                       test::wall_sensor("R25", {1.0, 0.0, 0.25}, 0.05),
                       test::wall_sensor("F50", {0.5, 0.0, 0.0}, 0.05),
                       test::wall_sensor("dry", {0.0, 0.0, 0.69})};
    auto sim = make_simulation(c, Backend::cpu);
    while (sim->time() < 1.0)
        sim->step();
    const GaugePlan plan(c, sim->constants().support);
    const std::vector<double> v = plan.evaluate(sim->sample_gauges(plan.request()));
    const double expected[] = {0.1, 0.25, 0.4, 0.25, 0.5};
    std::printf("2D wall sensors after %.2f s:", sim->time());
    for (int k = 0; k < 5; ++k)
        std::printf(" %s %.1f Pa (rho0 g d %.1f, %+.2f %%)", plan.columns()[k].name.c_str(), v[k],
                    rho0 * g * expected[k], 100.0 * (v[k] / (rho0 * g * expected[k]) - 1.0));
    std::printf("; dry %.1f Pa\n", v[5]);
    // DBC wall particles take their density from the continuity equation with the fluid next to
    // them (held >= rho0); after 1 s their pressure extrapolated to the face reads 2-4 % above
    // rho0 g d (measured +3.1, +3.1, +3.5, +3.2, +2.1 % at depths 0.1, 0.25, 0.4, 0.25, 0.5 m),
    // where the fluid probes of still_water2d.xml read within 2 %: the wall layers carry a
    // slightly steeper gradient than the water, which the first-order extrapolation to the
    // face keeps. Tolerance: 5 % of the bottom pressure rho0 g H (245 Pa).
    for (int k = 0; k < 5; ++k) {
        SCOPED_TRACE(plan.columns()[k].name);
        EXPECT_NEAR(v[k], rho0 * g * expected[k], 0.05 * rho0 * g * depth);
    }
    EXPECT_GE(v[5], 0.0);
    EXPECT_LT(v[5], 0.05 * rho0 * g * depth) << "above the water the wall is at rest density";
}

TEST(WallSensors, AveragedRowIsTheMeanOfTheStepsSinceThePreviousRow) {
    // The run's way (app/run.cpp): a StepLoop fires the row at the gauges' cadence and the
    // averaged sensors' sample after every other step; SensorAverages turns them into rows.
    Case c = test::dambreak_case(0.04);
    c.gauges.interval = 0.01;
    c.gauges.gauges = {test::wall_sensor("now", {1.5, 0.0, 0.0}),
                       test::wall_sensor("mean", {1.5, 0.0, 0.0}, 0.0, true),
                       test::wall_sensor("wide", {1.5, 0.0, 0.0}, 0.1, true)};
    auto sim = make_simulation(c, Backend::cpu);
    const GaugePlan plan(c, sim->constants().support);
    SensorAverages averages(plan);
    std::vector<std::vector<double>> steps; // every step's averaged readings since the last row
    std::vector<std::vector<double>> rows;
    std::vector<std::vector<double>> expected; // the mean of `steps` at each row
    StepLoop loop(*sim);
    auto take = [&](const GaugeResponse& r) {
        steps.push_back(plan.averaged_readings(r));
        ASSERT_EQ(steps.back().size(), 2u);
    };
    loop.gauges(
        Cadence::multiples(c.gauges.interval, 0),
        [&] {
            const GaugeResponse r = sim->sample_gauges(plan.request());
            take(r);
            std::vector<double> mean(2, 0.0);
            for (const auto& s : steps)
                for (int k = 0; k < 2; ++k)
                    mean[k] += s[k] / steps.size();
            expected.push_back(mean);
            steps.clear();
            rows.push_back(averages.row(r));
        },
        [&] {
            const GaugeResponse r = sim->sample_gauges(plan.step_request());
            take(r);
            averages.add_step(r);
        });
    loop.sample_gauges_if_due();
    loop.advance_to(0.3);
    ASSERT_GE(rows.size(), 30u);
    double spread = 0.0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        SCOPED_TRACE("row " + std::to_string(k));
        EXPECT_NEAR(rows[k][1], expected[k][0], 1e-9 * std::abs(expected[k][0]) + 1e-9);
        EXPECT_NEAR(rows[k][2], expected[k][1], 1e-9 * std::abs(expected[k][1]) + 1e-9);
        spread = std::max(spread, std::abs(rows[k][0] - rows[k][1]));
    }
    std::printf("dam break, floor sensor reached by the surge at ~0.2 s: largest |instantaneous "
                "- averaged| over %zu rows %.1f Pa (last row %.1f, %.1f Pa)\n",
                rows.size(), spread, rows.back()[0], rows.back()[1]);
    EXPECT_GT(spread, 0.0) << "the surge's pressure changes within a row's interval";
}

TEST(WallSensors, SamplesBegunWithTheStepsMakeTheSameRows) {
    // The run's way since the samples between rows are begun with the step
    // (StepLoop::sample_with_step, Simulation::step_and_sample; the CUDA backend on kept lists
    // queues them before it waits for the step): every step is sampled exactly once, by the
    // row or between rows, and each row's averaged readings are the mean of its steps'. On the
    // CPU backend, and on the CUDA backend where a device is present.
    Case c = test::dambreak_case(0.04);
    c.gauges.interval = 0.01;
    c.gauges.gauges = {test::wall_sensor("now", {1.5, 0.0, 0.0}),
                       test::wall_sensor("mean", {1.5, 0.0, 0.0}, 0.0, true)};
    std::vector<Backend> backends = {Backend::cpu};
    if (cuda_device_available())
        backends.push_back(Backend::cuda);
    for (const Backend backend : backends) {
        SCOPED_TRACE(backend == Backend::cpu ? "cpu" : "cuda");
        auto sim = make_simulation(c, backend);
        const GaugePlan plan(c, sim->constants().support);
        SensorAverages averages(plan);
        std::vector<double> readings; // the averaged sensor's, every step since the last row
        std::vector<double> rows, expected;
        std::size_t with_step = 0, after_step = 0, row_samples = 0;
        const auto take_step_sample = [&](const GaugeResponse& r) {
            readings.push_back(plan.averaged_readings(r)[0]);
            averages.add_step(r);
        };
        StepLoop loop(*sim);
        loop.gauges(
            Cadence::multiples(c.gauges.interval, 0),
            [&] {
                const GaugeResponse r = sim->sample_gauges(plan.request());
                readings.push_back(plan.averaged_readings(r)[0]);
                double mean = 0.0;
                for (double v : readings)
                    mean += v / static_cast<double>(readings.size());
                expected.push_back(mean);
                readings.clear();
                rows.push_back(averages.row(r)[1]);
                ++row_samples;
            },
            [&] {
                take_step_sample(sim->sample_gauges(plan.step_request()));
                ++after_step;
            });
        loop.sample_with_step(&plan.step_request(), [&](std::future<GaugeResponse> sample) {
            take_step_sample(sample.get());
            ++with_step;
        });
        loop.sample_gauges_if_due();
        loop.advance_to(0.3);
        ASSERT_GE(rows.size(), 30u);
        EXPECT_EQ(row_samples + with_step + after_step, sim->steps() + 1) << "one per step";
        EXPECT_GT(with_step, 10 * rows.size()) << "most steps sample with the step";
        for (std::size_t k = 0; k < rows.size(); ++k)
            EXPECT_NEAR(rows[k], expected[k], 1e-9 * std::abs(expected[k]) + 1e-9) << "row " << k;
        std::printf("%s: %zu rows, %zu samples begun with the step, %zu after it\n",
                    backend == Backend::cpu ? "cpu" : "cuda", rows.size(), with_step, after_step);
    }
}
