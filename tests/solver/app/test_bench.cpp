// `sluice bench` (bench.h) on the CPU backend with a tiny case (the CUDA path is the same code
// with the GPU simulation), the module list, the --dp override (case_override.h) and the
// background snapshot writer (async_output.h). Also a driver for benchmark runs on a GPU machine
// before the CLI has `sluice bench`: it runs only when SLUICE_BENCH_CASE is set.

#include "app/bench.h"
#include "backends/cpu/cpu_backend.h"
#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/constants.h"
#include "case/particles.h"
#include "io/async_output.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace sluice;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Bench, ModuleLists) {
    const std::vector<NeighbourModule> all = parse_module_list("all");
    // (counting-sort, radix-sort) × 5 traversals × 2 layouts + linked-list × (moore, modular),
    // each at 3 bin widths.
    EXPECT_EQ(all.size(), 66u);
    EXPECT_EQ(all.front().name(), "counting-sort/strips/1");
    EXPECT_EQ(all.back().name(), "linked-list/modular/0.333333/index");
    EXPECT_EQ(parse_module_list("index").size(), 36u);
    EXPECT_EQ(parse_module_list("reorder").size(), 30u);
    const std::vector<NeighbourModule> two =
        parse_module_list(" radix-sort/moore/0.5 ,counting-sort/strips/1");
    ASSERT_EQ(two.size(), 2u);
    EXPECT_EQ(two[0].construction, Construction::radix_sort);
    EXPECT_FLOAT_EQ(two[0].bin_width, 0.5f);
    EXPECT_THROW(parse_module_list("counting-sort/strips/1,"), std::invalid_argument);
    EXPECT_THROW(parse_module_list("heap-sort/strips/1"), std::invalid_argument);
    EXPECT_THROW(parse_module_list("linked-list/hybrid/1"), std::invalid_argument);
    EXPECT_EQ(parse_module_list("linked-list/moore/1")[0].layout, Layout::index);
    EXPECT_THROW(parse_module_list(""), std::invalid_argument);
}

TEST(Bench, RunsEveryModuleOnTheCpuAndWritesTableAndCsv) {
    BenchOptions o;
    o.case_path = std::string(SLUICE_CASES_DIR) + "/dambreak2d.xml";
    o.dp = 0.06; // walls 0.18 m thick: the domain leaves 0.2 m
    o.steps = 3;
    o.warmup_steps = 1;
    o.modules = "counting-sort/strips/1,radix-sort/moore/0.5";
    o.backend = Backend::cpu;
    o.csv_path = (std::filesystem::temp_directory_path() / "sluice_test_bench.csv").string();
    std::ostringstream out;
    EXPECT_EQ(run_bench(o, out), 0);
    const std::string report = out.str();
    std::cout << report;
    EXPECT_NE(report.find("| counting-sort/strips/1 |"), std::string::npos);
    EXPECT_NE(report.find("| radix-sort/moore/0.5 |"), std::string::npos);
    EXPECT_NE(report.find("all agree"), std::string::npos);
    const std::string csv = read_file(o.csv_path);
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3); // header + 2 modules
    EXPECT_NE(csv.find("dambreak2d,2,"), std::string::npos);
    std::filesystem::remove(o.csv_path);

    o.steps = 0;
    EXPECT_THROW(run_bench(o, out), std::invalid_argument);
}

TEST(DpOverride, ChangesTheLatticeAndKeepsTheRest) {
    Case c = read_case(std::string(SLUICE_CASES_DIR) + "/dambreak3d.xml");
    const Box domain = c.domain;
    apply_dp_override(c, 0.04);
    EXPECT_EQ(c.dp, 0.04);
    EXPECT_EQ(c.domain.min, domain.min);
    const ParticleSet p = generate_particles(c);
    // Fluid 1.228 × 1 × 0.55 m at dp = 0.04: 31 × 25 × 14 lattice points.
    EXPECT_EQ(p.fluid_count, 31u * 25u * 14u);
    EXPECT_NEAR(p.constants.h, 1.0 * std::sqrt(3.0) * 0.04, 1e-12);
}

TEST(DpOverride, RejectsWhatTheReaderWouldReject) {
    Case c = read_case(std::string(SLUICE_CASES_DIR) + "/dambreak3d.xml");
    const Case original = c;
    EXPECT_THROW(apply_dp_override(c, 0.0), std::invalid_argument);
    EXPECT_THROW(apply_dp_override(c, -0.01), std::invalid_argument);
    EXPECT_THROW(apply_dp_override(c, std::nan("")), std::invalid_argument);
    // The obstacle is 0.161 m thick: a larger dp leaves it empty.
    try {
        apply_dp_override(c, 0.2);
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("thinner than dp"), std::string::npos) << e.what();
    }
    // Walls 3 × 0.1 m thick reach beyond the domain, which leaves 0.2 m.
    Case thin = c;
    thin.obstacles.clear();
    try {
        apply_dp_override(thin, 0.1);
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("outside the domain"), std::string::npos) << e.what();
    }
    EXPECT_EQ(c.dp, original.dp);
}

TEST(DpOverride, ShippedMillionParticleCase) {
    // cases/dambreak3d_1m.xml: the SPHERIC-2 geometry at about 10^6 particles, h = 1.3 dp.
    const Case c = read_case(std::string(SLUICE_CASES_DIR) + "/dambreak3d_1m.xml");
    EXPECT_NEAR(smoothing_length(c) / c.dp, 1.3, 0.01);
    const auto start = std::chrono::steady_clock::now();
    const ParticleSet p = generate_particles(c);
    std::printf("dambreak3d_1m: %zu particles (%zu fluid) generated in %.1f s\n", p.size(),
                p.fluid_count,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    EXPECT_EQ(p.fluid_count, 123u * 100u * 55u);
    EXPECT_EQ(p.size(), 1047844u);
    // The same geometry through --dp on the shipped dambreak3d.xml.
    Case d = read_case(std::string(SLUICE_CASES_DIR) + "/dambreak3d.xml");
    apply_dp_override(d, 0.01);
    d.constants.coefh = 0.75;
    EXPECT_EQ(generate_particles(d).size(), p.size());
}

TEST(BackgroundSnapshotWriter, WritesInOrderAndReportsErrorsOnce) {
    const Case c = test::still_water_case(0.04);
    auto sim = make_simulation(c, Backend::cpu);
    std::vector<std::uint64_t> steps;
    {
        BackgroundSnapshotWriter writer([&](const Snapshot& s, std::size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            steps.push_back(s.step);
        });
        for (int k = 0; k < 5; ++k) {
            writer.submit(sim->begin_snapshot());
            sim->step();
        }
        writer.flush();
        EXPECT_EQ(writer.written(), 5u);
    }
    EXPECT_EQ(steps, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));

    std::atomic<int> calls{0};
    BackgroundSnapshotWriter failing([&](const Snapshot&, std::size_t) {
        ++calls;
        throw std::runtime_error("disk full");
    });
    failing.submit(sim->begin_snapshot());
    failing.submit(sim->begin_snapshot());
    EXPECT_THROW(failing.flush(), std::runtime_error);
    EXPECT_NO_THROW(failing.flush()); // reported once
    EXPECT_EQ(calls.load(), 1);       // nothing written after the failure
    EXPECT_EQ(failing.written(), 0u);
}

TEST(BackgroundSnapshotWriter, PoolWritesConcurrentlyAndKeepsTheOrderWhereItMatters) {
    const Case c = test::still_water_case(0.04);
    auto sim = make_simulation(c, Backend::cpu);
    std::mutex mutex;
    std::vector<std::size_t> finished;  // tickets in the order their writes ended
    std::vector<std::uint64_t> ordered; // steps seen by in_order
    std::atomic<int> inside{0}, most_inside{0};
    BackgroundSnapshotWriter::Settings settings;
    settings.writers = 4;
    settings.max_queued = 4;
    settings.in_order = [&](const Snapshot& s) { ordered.push_back(s.step); };
    {
        BackgroundSnapshotWriter writer(
            [&](const Snapshot& s, std::size_t ticket) {
                const int now = ++inside;
                int seen = most_inside.load();
                while (now > seen && !most_inside.compare_exchange_weak(seen, now)) {
                }
                // Early tickets take longest, so later ones overtake them.
                std::this_thread::sleep_for(std::chrono::milliseconds(40 - 4 * int(ticket % 8)));
                EXPECT_EQ(s.step, ticket); // each write gets its own snapshot and ticket
                --inside;
                std::lock_guard<std::mutex> lock(mutex);
                finished.push_back(ticket);
            },
            settings);
        EXPECT_EQ(writer.writers(), 4u);
        // The snapshots first, then all submitted at once: the writes overlap however long a
        // step takes on the machine (one at a time between steps, they would not).
        std::vector<std::future<Snapshot>> snapshots;
        for (std::size_t k = 0; k < 8; ++k) {
            snapshots.push_back(sim->begin_snapshot());
            sim->step();
        }
        for (std::size_t k = 0; k < 8; ++k)
            writer.submit(std::move(snapshots[k]), k);
        writer.flush();
        EXPECT_EQ(writer.written(), 8u);
        EXPECT_GT(writer.write_seconds(), 8 * 0.008);
    }
    EXPECT_EQ(ordered, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    ASSERT_EQ(finished.size(), 8u);
    EXPECT_FALSE(std::is_sorted(finished.begin(), finished.end())) << "writes ran one at a time";
    EXPECT_GE(most_inside.load(), 2);
    EXPECT_LE(most_inside.load(), 4);
}

TEST(BackgroundSnapshotWriter, DefaultWriterCountLeavesCoresForTheRun) {
    EXPECT_EQ(default_writer_count(0), 1u);
    EXPECT_EQ(default_writer_count(2), 1u);
    EXPECT_EQ(default_writer_count(4), 2u);
    EXPECT_EQ(default_writer_count(16), 8u);
    EXPECT_EQ(default_writer_count(128), 8u);
}

} // namespace
