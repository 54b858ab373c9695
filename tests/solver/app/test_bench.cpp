// `sluice bench` (bench.h) on the CPU backend with a tiny case (the CUDA path is the same code
// with the GPU simulation), the module list and the --dp override (case_override.h). Also a driver
// for benchmark runs on a GPU machine before the CLI has `sluice bench`: it runs only when
// SLUICE_BENCH_CASE is set.

#include "app/bench.h"
#include "backends/cpu/cpu_backend.h"
#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/constants.h"
#include "case/particles.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
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
    // (counting-sort, radix-sort) × 5 traversals × 2 layouts + (linked-list, linked-list-packed)
    // × (moore, modular), each at 3 bin widths, + linked-list-tight × (moore, modular) at 1 and
    // 0.5.
    EXPECT_EQ(all.size(), 76u);
    EXPECT_EQ(all.front().name(), "counting-sort/strips/1");
    EXPECT_EQ(all.back().name(), "linked-list-tight/modular/0.5/index");
    EXPECT_EQ(parse_module_list("index").size(), 46u);
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

} // namespace
