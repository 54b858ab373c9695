// The CPU builder (both constructions) with both queries at every tested bin width, against
// brute force on the adversarial inputs (neighbour_test_support.h).
#include "neighbour_test_support.h"

#include "cpu_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <variant>

using namespace sluice;
using namespace sluice::test;

namespace {

template <int D>
struct CollectVisitor {
    const std::vector<std::uint32_t>* permutation;
    std::vector<std::uint32_t>* out;
    void operator()(std::uint32_t j, const Vec<D>&, float) { out->push_back((*permutation)[j]); }
};

/// Builds on the host and queries from every particle with the module's query.
template <int D>
BuildResult<D> run_cpu(const ModuleParam& p, const Input<D>& in, const GridSpec<D>& grid,
                       OutsidePolicy policy) {
    CpuNeighbourBuilder<D> builder(p.construction);
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    builder.build(in.positions.data(), n, grid, in.radius, policy);
    BuildResult<D> r;
    r.pbm = builder.pbm();
    r.permutation = builder.permutation();
    r.sorted = builder.sorted_positions();
    r.sets.resize(n);
    const NeighbourView<D> view = builder.view();
    for (std::uint32_t k = 0; k < n; ++k) {
        std::vector<std::uint32_t>& set = r.sets[r.permutation[k]];
        CollectVisitor<D> visit{&r.permutation, &set};
        std::visit(
            [&](auto query) { for_each_neighbour<decltype(query)>(view, r.sorted[k], visit); },
            p.query);
        std::sort(set.begin(), set.end());
    }
    return r;
}

/// As run_cpu, with for_each_neighbour_shared: every lane's visits together are the set.
template <int D>
BuildResult<D> run_cpu_shared(const ModuleParam& p, const Input<D>& in, const GridSpec<D>& grid,
                              OutsidePolicy policy, std::uint32_t lanes) {
    BuildResult<D> r = run_cpu<D>(p, in, grid, policy);
    CpuNeighbourBuilder<D> builder(p.construction);
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    builder.build(in.positions.data(), n, grid, in.radius, policy);
    const NeighbourView<D> view = builder.view();
    for (std::uint32_t k = 0; k < n; ++k) {
        std::vector<std::uint32_t>& set = r.sets[r.permutation[k]];
        set.clear();
        CollectVisitor<D> visit{&r.permutation, &set};
        for (std::uint32_t lane = 0; lane < lanes; ++lane)
            std::visit(
                [&](auto query) {
                    for_each_neighbour_shared<decltype(query)>(view, r.sorted[k], lane, lanes,
                                                               visit);
                },
                p.query);
        std::sort(set.begin(), set.end()); // a neighbour visited twice would stay a duplicate
    }
    return r;
}

class CpuModules : public testing::TestWithParam<ModuleParam> {};

TEST_P(CpuModules, SharedQueryMatchesBruteForceOnAdversarialInputs) {
    const ModuleParam p = GetParam();
    for (const std::uint32_t lanes : {1u, 3u, 32u}) {
        SCOPED_TRACE("lanes " + std::to_string(lanes));
        if (p.dim == 2)
            check_module_on_adversarial_inputs<2>(
                p, [&](const auto& in, const auto& grid, OutsidePolicy policy) {
                    return run_cpu_shared<2>(p, in, grid, policy, lanes);
                });
        else
            check_module_on_adversarial_inputs<3>(
                p, [&](const auto& in, const auto& grid, OutsidePolicy policy) {
                    return run_cpu_shared<3>(p, in, grid, policy, lanes);
                });
    }
}

TEST_P(CpuModules, MatchesBruteForceOnAdversarialInputs) {
    const ModuleParam p = GetParam();
    if (p.dim == 2)
        check_module_on_adversarial_inputs<2>(
            p, [&](const auto& in, const auto& grid, OutsidePolicy policy) {
                return run_cpu<2>(p, in, grid, policy);
            });
    else
        check_module_on_adversarial_inputs<3>(
            p, [&](const auto& in, const auto& grid, OutsidePolicy policy) {
                return run_cpu<3>(p, in, grid, policy);
            });
}

INSTANTIATE_TEST_SUITE_P(All, CpuModules,
                         testing::ValuesIn(all_module_params({OutsidePolicy::clamp,
                                                              OutsidePolicy::exclude})),
                         param_name);

TEST(CpuBuilder, BothConstructionsGiveTheSameStableOrder) {
    for (const Input<3>& in : adversarial_inputs<3>()) {
        const GridSpec<3> grid = make_grid<3>(in.lo, in.hi, in.radius, 0.5f);
        CpuNeighbourBuilder<3> counting(Construction::counting_sort),
            radix(Construction::radix_sort);
        const auto n = static_cast<std::uint32_t>(in.positions.size());
        counting.build(in.positions.data(), n, grid, in.radius, OutsidePolicy::exclude);
        radix.build(in.positions.data(), n, grid, in.radius, OutsidePolicy::exclude);
        EXPECT_EQ(counting.permutation(), radix.permutation()) << in.name;
        EXPECT_EQ(counting.pbm(), radix.pbm()) << in.name;
    }
}

TEST(CpuBuilder, ExcludedParticlesAreCountedOutOfThePbm) {
    std::vector<Vec<2>> points = {Vec<2>{{0.5f, 0.5f}}, Vec<2>{{-1.0f, 0.5f}}, Vec<2>{{0.7f, 0.6f}},
                                  Vec<2>{{9.0f, 9.0f}}};
    const GridSpec<2> grid = make_grid<2>(Vec<2>{{0.0f, 0.0f}}, Vec<2>{{2.0f, 2.0f}}, 1.0f, 1.0f);
    CpuNeighbourBuilder<2> builder;
    builder.build(points.data(), 4, grid, 1.0f, OutsidePolicy::exclude);
    EXPECT_EQ(builder.binned_count(), 2u);
    EXPECT_EQ(builder.pbm().back(), 2u);
    EXPECT_EQ(builder.permutation()[2], 1u); // excluded ones last, in input order
    EXPECT_EQ(builder.permutation()[3], 3u);
}

} // namespace
