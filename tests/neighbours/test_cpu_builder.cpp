// The CPU builder (both constructions) with both queries at every tested bin width, against
// brute force on the adversarial inputs (neighbour_test_support.h).
#include "neighbour_test_support.h"

#include "cpu_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <variant>

using namespace sluice;
using namespace sluice::test;

namespace {

/// Collects input indices: a NeighbourView's j is a bin-order index (mapped through the
/// permutation), the other views' j is the input index itself.
template <int D, class ViewT>
struct CollectVisitor {
    const std::vector<std::uint32_t>* permutation;
    std::vector<std::uint32_t>* out;
    void operator()(std::uint32_t j, const Vec<D>&, float) {
        out->push_back(indexes_input_order<ViewT> ? j : (*permutation)[j]);
    }
};

/// Builds on the host and queries from every particle with the module's query; lanes > 0: with
/// for_each_neighbour_shared, every lane's visits together being the set.
template <int D>
BuildResult<D> run_cpu(const ModuleParam& p, const Input<D>& in, const GridSpec<D>& grid,
                       OutsidePolicy policy, std::uint32_t lanes = 0) {
    CpuNeighbourBuilder<D> builder(p.construction);
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    builder.build(in.positions.data(), n, grid, in.radius, policy);
    BuildResult<D> r;
    r.pbm = builder.pbm();
    r.permutation = builder.permutation();
    r.sorted = builder.sorted_positions();
    r.heads = builder.heads();
    r.next = builder.next();
    r.nodes = builder.nodes();
    for (const PackedListNode& node : r.nodes)
        r.next.push_back(node.next);
    r.tight = p.construction == Construction::linked_list_tight;
    r.binned = builder.binned_count();
    r.sets.resize(n);
    dispatch_neighbour_query<D>(p.query, builder.view(p.layout), [&](auto query, const auto& view) {
        using QueryT = decltype(query);
        using ViewT = std::decay_t<decltype(view)>;
        for (std::uint32_t i = 0; i < n; ++i) {
            std::vector<std::uint32_t>& set = r.sets[i];
            CollectVisitor<D, ViewT> visit{&r.permutation, &set};
            if (lanes == 0)
                for_each_neighbour<QueryT>(view, in.positions[i], visit);
            for (std::uint32_t lane = 0; lane < lanes; ++lane)
                for_each_neighbour_shared<QueryT>(view, in.positions[i], lane, lanes, visit);
            std::sort(set.begin(), set.end()); // a neighbour visited twice stays a duplicate
        }
    });
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
                    return run_cpu<2>(p, in, grid, policy, lanes);
                });
        else
            check_module_on_adversarial_inputs<3>(
                p, [&](const auto& in, const auto& grid, OutsidePolicy policy) {
                    return run_cpu<3>(p, in, grid, policy, lanes);
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

/// A structure reused after the particles moved (a solver's corrector): the view reads the moved
/// positions and carries the largest displacement as its skin; the query must still find exactly
/// the particles within R at the moved positions, among those the build held.
template <int D>
void check_skin(const ModuleParam& p) {
    if (p.construction == Construction::linked_list_packed)
        GTEST_SKIP() << "the packed list's nodes are the build's positions: it takes no skin";
    std::mt19937 rng(77 + D);
    for (const Input<D>& in : adversarial_inputs<D>()) {
        SCOPED_TRACE(in.name);
        const GridSpec<D> grid = make_grid<D>(in.lo, in.hi, in.radius, p.bin_width);
        const auto n = static_cast<std::uint32_t>(in.positions.size());
        CpuNeighbourBuilder<D> builder(p.construction);
        builder.build(in.positions.data(), n, grid, in.radius, p.policy);
        // Moves of up to a quarter of the radius along each axis (finite points only).
        const float skin = 0.25f * in.radius;
        std::uniform_real_distribution<float> move(-skin, skin);
        std::vector<Vec<D>> moved = in.positions;
        for (Vec<D>& x : moved)
            for (int k = 0; k < D; ++k)
                if (std::isfinite(x[k]))
                    x[k] += move(rng);
        std::vector<Vec<D>> moved_sorted(n);
        const std::vector<std::uint32_t>& perm = builder.permutation();
        for (std::uint32_t k = 0; k < perm.size(); ++k)
            moved_sorted[k] = moved[perm[k]];
        // Brute force at the moved positions over the particles the build held.
        std::vector<Vec<D>> held;
        std::vector<std::uint32_t> held_index;
        for (std::uint32_t i = 0; i < n; ++i)
            if (p.policy == OutsidePolicy::clamp || grid.contains(in.positions[i])) {
                held.push_back(moved[i]);
                held_index.push_back(i);
            }
        AnyNeighbourView<D> any = builder.view(p.layout);
        std::visit(
            [&](auto& v) {
                v.positions = indexes_input_order<std::decay_t<decltype(v)>> ? moved.data()
                                                                             : moved_sorted.data();
                v.skin = &skin;
            },
            any);
        std::size_t wrong = 0;
        dispatch_neighbour_query<D>(p.query, any, [&](auto query, const auto& view) {
            using ViewT = std::decay_t<decltype(view)>;
            for (std::uint32_t i = 0; i < n; ++i) {
                std::vector<std::uint32_t> got, expected;
                CollectVisitor<D, ViewT> visit{&perm, &got};
                for_each_neighbour<decltype(query)>(view, moved[i], visit);
                std::sort(got.begin(), got.end());
                for (std::uint32_t j : brute_force_neighbours(
                         held.data(), static_cast<std::uint32_t>(held.size()), moved[i], in.radius))
                    expected.push_back(held_index[j]);
                std::sort(expected.begin(), expected.end());
                if (got != expected && ++wrong <= 3)
                    ADD_FAILURE() << module_param_name(p) << ": particle " << i << " finds "
                                  << got.size() << ", brute force " << expected.size();
            }
        });
        EXPECT_EQ(wrong, 0u);
    }
}

TEST_P(CpuModules, SkinKeepsAReusedStructureExact) {
    const ModuleParam p = GetParam();
    if (p.dim == 2)
        check_skin<2>(p);
    else
        check_skin<3>(p);
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

TEST(CpuBuilder, LinkedListsRunInFallingInputOrderAndSkipExcludedParticles) {
    std::vector<Vec<2>> points = {Vec<2>{{0.5f, 0.5f}}, Vec<2>{{-1.0f, 0.5f}}, Vec<2>{{0.7f, 0.6f}},
                                  Vec<2>{{1.5f, 0.5f}}, Vec<2>{{0.2f, 0.1f}}};
    const GridSpec<2> grid = make_grid<2>(Vec<2>{{0.0f, 0.0f}}, Vec<2>{{2.0f, 2.0f}}, 1.0f, 1.0f);
    CpuNeighbourBuilder<2> builder(Construction::linked_list);
    builder.build(points.data(), 5, grid, 1.0f, OutsidePolicy::exclude);
    EXPECT_EQ(builder.binned_count(), 4u);
    const LinkedListView<2> view = builder.linked_list_view();
    EXPECT_EQ(view.size(), 4u);
    std::vector<std::uint32_t> bin0;
    for (std::uint32_t j = builder.heads()[0]; j != LinkedListView<2>::list_end;
         j = builder.next()[j])
        bin0.push_back(j);
    EXPECT_EQ(bin0, (std::vector<std::uint32_t>{4, 2, 0}));
    EXPECT_EQ(builder.heads()[1], 3u);
    EXPECT_THROW(builder.view(), std::logic_error);
    EXPECT_TRUE(std::holds_alternative<LinkedListView<2>>(builder.view(Layout::reorder)));
}

TEST(CpuBuilder, PackedListsAreTheLinkedListsWithNextInTheNodes) {
    std::vector<Vec<2>> points = {Vec<2>{{0.5f, 0.5f}}, Vec<2>{{-1.0f, 0.5f}}, Vec<2>{{0.7f, 0.6f}},
                                  Vec<2>{{1.5f, 0.5f}}, Vec<2>{{0.2f, 0.1f}}};
    const GridSpec<2> grid = make_grid<2>(Vec<2>{{0.0f, 0.0f}}, Vec<2>{{2.0f, 2.0f}}, 1.0f, 1.0f);
    CpuNeighbourBuilder<2> loose(Construction::linked_list),
        packed(Construction::linked_list_packed);
    loose.build(points.data(), 5, grid, 1.0f, OutsidePolicy::exclude);
    packed.build(points.data(), 5, grid, 1.0f, OutsidePolicy::exclude);
    EXPECT_EQ(packed.heads(), loose.heads());
    ASSERT_EQ(packed.nodes().size(), 5u);
    for (std::uint32_t i = 0; i < 5; ++i) {
        EXPECT_EQ(packed.nodes()[i].next, loose.next()[i]);
        EXPECT_EQ(packed.nodes()[i].c[0], points[i][0]);
        EXPECT_EQ(packed.nodes()[i].c[1], points[i][1]);
        EXPECT_EQ(packed.nodes()[i].c[2], 0.0f);
    }
    EXPECT_EQ(packed.binned_count(), 4u);
    EXPECT_TRUE(std::holds_alternative<PackedLinkedListView<2>>(packed.view(Layout::index)));
}

/// The paper's set-up: bins as wide as the box (binWidth 1), so a particle off the bin faces is
/// listed in 2^D bins, and the query walks 2^D lists, not 3^D.
TEST(CpuBuilder, TightListsHoldAParticleInEveryBinItsBoxTouches) {
    const GridSpec<3> grid = make_grid<3>(Vec<3>{{0.0f, 0.0f, 0.0f, 0.0f}},
                                          Vec<3>{{4.0f, 4.0f, 4.0f, 0.0f}}, 1.0f, 1.0f);
    const float top = static_cast<float>(grid.dims[2]) - 0.1f; // 0.1 below the grid's top face
    std::vector<Vec<3>> points = {Vec<3>{{1.7f, 2.2f, 0.9f, 0.0f}},
                                  Vec<3>{{0.1f, 0.2f, top, 0.0f}}};
    CpuNeighbourBuilder<3> builder(Construction::linked_list_tight);
    builder.build(points.data(), 2, grid, 1.0f, OutsidePolicy::exclude);
    using View = TightLinkedListView<3>;
    // Particle 0's box [1.2, 2.2] × [1.7, 2.7] × [0.4, 1.4]: bins x 1–2, y 1–2, z 0–1.
    std::vector<std::uint32_t> bins_of_0;
    for (std::uint32_t b = 0; b < grid.bin_count(); ++b)
        for (std::uint32_t e = builder.heads()[b]; e != View::list_end; e = builder.next()[e])
            if (e >> View::entry_shift == 0)
                bins_of_0.push_back(b);
    std::vector<std::uint32_t> expected;
    for (int z : {0, 1})
        for (int y : {1, 2})
            for (int x : {1, 2})
                expected.push_back(grid.linear_bin({x, y, z}));
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(bins_of_0, expected);
    // Particle 1's box is clamped at the grid's faces: its corner bin only.
    const std::uint32_t corner = grid.linear_bin({0, 0, grid.dims[2] - 1});
    std::uint32_t entries_of_1 = 0;
    for (std::uint32_t b = 0; b < grid.bin_count(); ++b)
        for (std::uint32_t e = builder.heads()[b]; e != View::list_end; e = builder.next()[e])
            if (e >> View::entry_shift == 1) {
                ++entries_of_1;
                EXPECT_EQ(b, corner);
            }
    EXPECT_EQ(entries_of_1, 1u);
}

TEST(CpuBuilder, TightListsRefuseGridsTheirEntriesCannotHold) {
    const std::vector<Vec<2>> points = {Vec<2>{{0.5f, 0.5f}}};
    CpuNeighbourBuilder<2> builder(Construction::linked_list_tight);
    // binWidth 1/3: a box of edge R spans up to 4 bins of 1/3 plus rounding.
    const GridSpec<2> third =
        make_grid<2>(Vec<2>{{0.0f, 0.0f}}, Vec<2>{{2.0f, 2.0f}}, 1.0f, 1.0f / 3.0f);
    EXPECT_THROW(builder.build(points.data(), 1, third, 1.0f, OutsidePolicy::clamp),
                 std::invalid_argument);
    // A grid 2^21 bins from the origin: float cannot place a box's ends within 1/4 bin.
    const GridSpec<2> far =
        make_grid<2>(Vec<2>{{2097152.0f, 0.0f}}, Vec<2>{{2097160.0f, 2.0f}}, 1.0f, 1.0f);
    EXPECT_THROW(builder.build(points.data(), 1, far, 1.0f, OutsidePolicy::clamp),
                 std::invalid_argument);
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
