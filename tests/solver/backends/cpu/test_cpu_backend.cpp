// What the CPU backend (backends/cpu/) promises beyond the checks every backend passes
// (../test_backend_checks.cpp): results that do not depend on the neighbour module at a bin width
// (its constructions are stable sorts) nor on the OpenMP thread count, bit for bit; the index
// layouts and linked lists within rounding of reorder; and a restart that continues the
// uninterrupted run bit for bit.

#include "backends/backend_checks.h"
#include "backends/simulation.h"
#include "support/cases.h"

#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

using namespace sluice;

namespace {

bool bitwise_equal(const Snapshot& a, const Snapshot& b) {
    auto same = [](const auto& x, const auto& y) {
        return x.size() == y.size() &&
               std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
    };
    return same(a.id, b.id) && same(a.position, b.position) && same(a.velocity, b.velocity) &&
           same(a.density, b.density);
}

Snapshot run_steps(Case c, int steps) {
    auto sim = make_simulation(c, Backend::cpu);
    for (int k = 0; k < steps; ++k)
        sim->step();
    return sim->snapshot();
}

/// Every neighbour module finds the same neighbours in the same order for a given bin width
/// (both CPU constructions are stable sorts; moore and strips visit a row in the same order),
/// so the results are bit-identical. Across bin widths the bin order differs, so each
/// particle's sums add the same terms in another order: equal up to float rounding, which the
/// flow then amplifies slowly — checked with a tolerance.
TEST(CpuBackend, NeighbourModulesAgree) {
    Case c = test::dambreak_case(0.04);
    const int steps = 100;
    Snapshot first_of_width[3];
    const float widths[3] = {1.0f, 0.5f, 1.0f / 3.0f};
    for (int w = 0; w < 3; ++w) {
        for (Construction construction : {Construction::counting_sort, Construction::radix_sort})
            for (QueryTag query :
                 {QueryTag(MooreQuery{}), QueryTag(StripsQuery{}), QueryTag(ChordsQuery{})}) {
                c.neighbours = {construction, query, widths[w]};
                const Snapshot s = run_steps(c, steps);
                if (first_of_width[w].size() == 0)
                    first_of_width[w] = s;
                else
                    EXPECT_TRUE(bitwise_equal(s, first_of_width[w])) << c.neighbours.name();
            }
    }
    const Snapshot& reference = first_of_width[0];
    for (int w = 1; w < 3; ++w) {
        const Snapshot& s = first_of_width[w];
        ASSERT_EQ(s.id, reference.id);
        float dx = 0, drho = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            for (int k = 0; k < 3; ++k)
                dx = std::max(dx, std::fabs(s.position[i][k] - reference.position[i][k]));
            drho = std::max(drho, std::fabs(s.density[i] - reference.density[i]));
        }
        std::printf("binWidth %.3f vs 1 after %d steps: max |dx| = %.3g m, max |drho| = %.3g "
                    "kg/m3\n",
                    widths[w], steps, dx, drho);
        EXPECT_LT(dx, 1e-5f);
        EXPECT_LT(drho, 0.1f);
    }
}

/// The index layouts and the linked list find the same neighbours as reorder; within a bin they
/// visit them in another order (the input order, or falling input order for a list, where
/// reorder keeps the last step's bin order), so each particle's sums add the same terms in
/// another order: equal up to float rounding, which the flow amplifies slowly (as across bin
/// widths, NeighbourModulesAgree).
TEST(CpuBackend, IndexLayoutsAndLinkedListsAgreeWithReorder) {
    Case c = test::dambreak_case(0.04);
    const int steps = 100;
    c.neighbours = parse_neighbour_module("counting-sort/strips/0.5");
    const Snapshot reference = run_steps(c, steps);
    for (const char* module :
         {"counting-sort/strips/0.5/index", "radix-sort/hybrid/0.5/index",
          "counting-sort/modular/1/index", "linked-list/moore/0.5", "linked-list/modular/1"}) {
        c.neighbours = parse_neighbour_module(module);
        const Snapshot s = run_steps(c, steps);
        ASSERT_EQ(s.id, reference.id) << module;
        float dx = 0, drho = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            for (int k = 0; k < 3; ++k)
                dx = std::max(dx, std::fabs(s.position[i][k] - reference.position[i][k]));
            drho = std::max(drho, std::fabs(s.density[i] - reference.density[i]));
        }
        std::printf("%s vs counting-sort/strips/0.5 after %d steps: max |dx| = %.3g m, "
                    "max |drho| = %.3g kg/m3\n",
                    module, steps, dx, drho);
        EXPECT_LT(dx, 1e-5f) << module;
        EXPECT_LT(drho, 0.1f) << module;
    }
}

TEST(CpuBackend, ResultsDoNotDependOnTheThreadCount) {
    const Case c = test::dambreak_case(0.04);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const Snapshot one = run_steps(c, 50);
    omp_set_num_threads(std::max(2, threads));
    const Snapshot many = run_steps(c, 50);
    omp_set_num_threads(threads);
    EXPECT_TRUE(bitwise_equal(one, many));
}

TEST(CpuBackend, RestartContinuesBitForBit) {
    // The CPU backend saves its particles in its own order and rebuilds them stably, so a run
    // continued from a checkpoint is the uninterrupted run, bit for bit.
    const auto dir = std::filesystem::temp_directory_path() / "sluice_restart_cpu";
    std::filesystem::remove_all(dir);
    Case verlet = test::dambreak_case(0.04);
    verlet.physics.integrator = IntegratorKind::verlet; // step n−1 is state; a reset at 40
    test::check_restart(test::dambreak_case(0.04), Backend::cpu, 60, 150, true, 0.0, dir);
    test::check_restart(verlet, Backend::cpu, 57, 150, true, 0.0, dir / "verlet");
    // Water running off an open floor: exclusions before and after the save.
    Case open = test::tank_case_2d(0.02, 0.6, 0.6, test::box(0.0, 0.0, 0.3, 0.3));
    open.tank->faces = face_bottom | face_left;
    open.domain = test::box(-0.2, -0.3, 0.8, 0.8);
    const auto [before, all] =
        test::check_restart(open, Backend::cpu, 2500, 5000, true, 0.0, dir / "open");
    EXPECT_GT(before, 0u) << "the case must exclude particles before the save";
    EXPECT_GT(all, before) << "and after it";
    std::filesystem::remove_all(dir);
}

} // namespace
