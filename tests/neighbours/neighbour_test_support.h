#pragma once
/// \file neighbour_test_support.h
/// One test body for every neighbour module (ArborX style): a module runner (CPU or CUDA) turns
/// an input into a build result and every particle's neighbour set; the checks compare them with
/// brute force and with an independently computed PBM. Included by test_cpu_builder.cpp and
/// test_cuda_builder.cu.

#include "cpu_builder.h"
#include "grid.h"
#include "module.h"
#include "query.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace sluice::test {

// ---------------------------------------------------------------------------------------------
// Parameters: every module (construction × query × binWidth) × dimension × outside policy.

struct ModuleParam {
    Construction construction;
    QueryTag query;
    float bin_width;
    int dim;
    OutsidePolicy policy;
    Layout layout = Layout::reorder;
};

inline const std::vector<float>& tested_bin_widths() {
    static const std::vector<float> widths = {1.0f, 0.5f, 1.0f / 3.0f};
    return widths;
}

inline std::vector<ModuleParam> all_module_params(const std::vector<OutsidePolicy>& policies) {
    std::vector<ModuleParam> out;
    for (int dim : {2, 3})
        for (const NeighbourModule& m : all_neighbour_modules(tested_bin_widths()))
            for (OutsidePolicy p : policies)
                out.push_back({m.construction, m.query, m.bin_width, dim, p, m.layout});
    return out;
}

inline std::string module_param_name(const ModuleParam& p) {
    std::ostringstream s;
    s << (p.construction == Construction::counting_sort        ? "counting"
          : p.construction == Construction::radix_sort         ? "radix"
          : p.construction == Construction::linked_list        ? "linked"
          : p.construction == Construction::linked_list_packed ? "packed"
                                                               : "tight")
      << '_' << query_name(p.query) << (p.layout == Layout::index ? "_index" : "") << "_w"
      << (p.bin_width == 1.0f   ? "1"
          : p.bin_width == 0.5f ? "0_5"
                                : "1_3")
      << '_' << p.dim << "D_" << (p.policy == OutsidePolicy::clamp ? "clamp" : "exclude");
    return s.str();
}

inline std::string param_name(const testing::TestParamInfo<ModuleParam>& info) {
    return module_param_name(info.param);
}

/// How GoogleTest prints a parameter in messages.
inline void PrintTo(const ModuleParam& p, std::ostream* os) {
    *os << module_param_name(p);
}

// ---------------------------------------------------------------------------------------------
// Inputs. Search radius 1 and domain box [0, 4]^D, so bins are 1, 0.5 or 1/3 wide.

template <int D>
struct Input {
    std::string name;
    std::vector<Vec<D>> positions;
    Vec<D> lo{}, hi{};
    float radius = 1.0f;
};

template <int D>
Vec<D> filled(float v) {
    Vec<D> x{};
    for (int k = 0; k < D; ++k)
        x[k] = v;
    return x;
}

/// Every point of the lattice {lo + i·spacing} inside [lo, hi] (i ≥ 0 per axis).
template <int D>
std::vector<Vec<D>> lattice(float lo, float hi, float spacing) {
    const int per_axis = static_cast<int>(std::floor((hi - lo) / spacing + 1e-4f)) + 1;
    int total = 1;
    for (int k = 0; k < D; ++k)
        total *= per_axis;
    std::vector<Vec<D>> out;
    for (int idx = 0; idx < total; ++idx) {
        Vec<D> x{};
        int rest = idx;
        for (int k = 0; k < D; ++k) {
            x[k] = lo + static_cast<float>(rest % per_axis) * spacing;
            rest /= per_axis;
        }
        out.push_back(x);
    }
    return out;
}

/// The adversarial inputs of the issue: n = 0 and 1, all points in one bin (with duplicates),
/// points exactly on bin faces (and pairs exactly R apart), on the domain bounds, outside it
/// (including NaN and ±inf coordinates), and uniform random points.
template <int D>
std::vector<Input<D>> adversarial_inputs() {
    std::mt19937 rng(12345 + D);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const Vec<D> lo = filled<D>(0.0f), hi = filled<D>(4.0f);
    auto make = [&](std::string name, std::vector<Vec<D>> points) {
        Input<D> in;
        in.name = std::move(name);
        in.positions = std::move(points);
        in.lo = lo;
        in.hi = hi;
        return in;
    };
    std::vector<Input<D>> inputs;
    inputs.push_back(make("empty", {}));
    {
        Vec<D> x{};
        x[0] = 1.3f;
        x[D - 1] = 2.7f;
        inputs.push_back(make("single", {x}));
    }
    {
        // [2.01, 2.3) lies inside one bin for widths 1, 0.5 and 1/3; some exact duplicates.
        std::vector<Vec<D>> points;
        for (int i = 0; i < 300; ++i) {
            Vec<D> x{};
            for (int k = 0; k < D; ++k)
                x[k] = 2.01f + 0.29f * unit(rng);
            points.push_back(x);
            if (i % 10 == 0)
                points.push_back(x);
        }
        inputs.push_back(make("one_bin", points));
    }
    // Faces of bins 1 and 0.5 wide; neighbours exactly R = 1 apart (must not count).
    inputs.push_back(make("faces_half", lattice<D>(0.0f, 4.0f, 0.5f)));
    // Faces of bins 1/3 wide, as the grid computes them in float.
    inputs.push_back(make("faces_third", lattice<D>(0.0f, 4.0f, 1.0f / 3.0f)));
    {
        // Corners and faces of the domain box, the rest of each point random.
        std::vector<Vec<D>> points;
        for (int corner = 0; corner < (1 << D); ++corner) {
            Vec<D> x{};
            for (int k = 0; k < D; ++k)
                x[k] = (corner >> k) & 1 ? 4.0f : 0.0f;
            points.push_back(x);
        }
        for (int i = 0; i < 400; ++i) {
            Vec<D> x{};
            for (int k = 0; k < D; ++k)
                x[k] = 4.0f * unit(rng);
            x[i % D] = (i / D) % 2 ? 4.0f : 0.0f;
            points.push_back(x);
        }
        inputs.push_back(make("bounds", points));
    }
    {
        // Outside the box on every side, near and far, plus non-finite coordinates.
        std::vector<Vec<D>> points;
        for (int i = 0; i < 600; ++i) {
            Vec<D> x{};
            for (int k = 0; k < D; ++k)
                x[k] = -1.5f + 7.0f * unit(rng); // [-1.5, 5.5)
            points.push_back(x);
        }
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        for (float bad : {nan, inf, -inf}) {
            Vec<D> x = filled<D>(2.0f);
            x[0] = bad;
            points.push_back(x);
        }
        Vec<D> just_above = filled<D>(std::nextafter(4.0f, 5.0f));
        points.push_back(just_above);
        points.push_back(filled<D>(std::nextafter(0.0f, -1.0f)));
        inputs.push_back(make("outside", points));
    }
    {
        std::vector<Vec<D>> points;
        for (int i = 0; i < 3000; ++i) {
            Vec<D> x{};
            for (int k = 0; k < D; ++k)
                x[k] = 4.0f * unit(rng);
            points.push_back(x);
        }
        inputs.push_back(make("random", points));
    }
    return inputs;
}

// ---------------------------------------------------------------------------------------------
// References.

/// Every particle's neighbour set as sorted input indices, indexed by input index.
using NeighbourSets = std::vector<std::vector<std::uint32_t>>;

/// Brute force over the particles the view holds: all of them (clamp) or those inside the grid
/// box (exclude). Every particle is a query origin, excluded ones too.
template <int D>
NeighbourSets brute_force_sets(const Input<D>& in, const GridSpec<D>& grid, OutsidePolicy policy) {
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    std::vector<Vec<D>> binned;
    std::vector<std::uint32_t> binned_index;
    for (std::uint32_t i = 0; i < n; ++i)
        if (policy == OutsidePolicy::clamp || grid.contains(in.positions[i])) {
            binned.push_back(in.positions[i]);
            binned_index.push_back(i);
        }
    NeighbourSets sets(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j :
             brute_force_neighbours(binned.data(), static_cast<std::uint32_t>(binned.size()),
                                    in.positions[i], in.radius))
            sets[i].push_back(binned_index[j]);
    }
    return sets;
}

/// The PBM from its definition: pbm[b] = number of binned particles with a key below b.
template <int D>
std::vector<std::uint32_t> reference_pbm(const Input<D>& in, const GridSpec<D>& grid,
                                         OutsidePolicy policy) {
    const std::uint32_t nbins = grid.bin_count();
    std::vector<std::uint32_t> counts(nbins + 1, 0);
    for (const Vec<D>& x : in.positions)
        ++counts[bin_key(grid, x, policy)];
    std::vector<std::uint32_t> pbm(nbins + 1, 0);
    for (std::uint32_t b = 0; b < nbins; ++b)
        pbm[b + 1] = pbm[b] + counts[b];
    return pbm;
}

// ---------------------------------------------------------------------------------------------
// What a runner returns, and the checks every module must pass.

template <int D>
struct BuildResult {
    std::vector<std::uint32_t> pbm;         ///< nbins + 1 (empty for a linked list)
    std::vector<std::uint32_t> permutation; ///< bin order → input index
    std::vector<Vec<D>> sorted;             ///< positions in bin order (empty: index layout)
    std::vector<std::uint32_t> heads, next; ///< a linked list's (nbins and n entries; tight:
                                            ///< n · slots_per_particle, by entry)
    std::vector<PackedListNode> nodes;      ///< a packed list's (n; next is copied from them)
    bool tight = false;                     ///< next holds a tight grid's entries
    std::uint32_t binned = 0;               ///< particles the structure holds
    NeighbourSets sets;                     ///< by input index, sorted
};

/// A linked list: every binned particle on exactly one list, its bin's, the excluded ones on
/// none, and the count right.
template <int D>
void check_lists(const Input<D>& in, const GridSpec<D>& grid, OutsidePolicy policy,
                 const BuildResult<D>& r) {
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    const std::uint32_t nbins = grid.bin_count();
    ASSERT_EQ(r.heads.size(), nbins) << in.name;
    ASSERT_EQ(r.next.size(), n) << in.name;
    std::vector<char> seen(n, 0);
    std::uint32_t listed = 0;
    for (std::uint32_t b = 0; b < nbins; ++b)
        for (std::uint32_t j = r.heads[b]; j != LinkedListView<D>::list_end; j = r.next[j]) {
            ASSERT_LT(j, n) << in.name << ": bin " << b;
            ASSERT_FALSE(seen[j]) << in.name << ": particle " << j << " listed twice";
            seen[j] = 1;
            ++listed;
            ASSERT_EQ(bin_key(grid, in.positions[j], policy), b)
                << in.name << ": particle " << j << " on the list of another bin";
        }
    std::uint32_t binned = 0;
    for (std::uint32_t i = 0; i < n; ++i)
        if (bin_key(grid, in.positions[i], policy) != nbins) {
            ++binned;
            ASSERT_TRUE(seen[i]) << in.name << ": particle " << i << " on no list";
        }
    EXPECT_EQ(listed, binned) << in.name;
    EXPECT_EQ(r.binned, binned) << in.name;
}

inline bool same_bits(float a, float b) {
    std::uint32_t ua, ub;
    std::memcpy(&ua, &a, 4);
    std::memcpy(&ub, &b, 4);
    return ua == ub;
}

/// A tight grid: every binned particle has exactly one entry in each bin its box touches
/// (the box's bins computed here from their definition: axis_bin of x ± R/2, at most 4), with
/// the bin's offsets from the box's first bin in its low bits, and no other entry.
template <int D>
void check_tight_lists(const Input<D>& in, const GridSpec<D>& grid, OutsidePolicy policy,
                       const BuildResult<D>& r) {
    using View = TightLinkedListView<D>;
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    const std::uint32_t nbins = grid.bin_count();
    ASSERT_EQ(r.heads.size(), nbins) << in.name;
    ASSERT_EQ(r.next.size(), std::size_t{n} * View::slots_per_particle) << in.name;
    std::map<std::uint32_t, std::uint32_t> seen; // entry → bin
    for (std::uint32_t b = 0; b < nbins; ++b)
        for (std::uint32_t e = r.heads[b]; e != View::list_end; e = r.next[e]) {
            ASSERT_LT(e >> View::entry_shift, n) << in.name << ": bin " << b;
            ASSERT_TRUE(seen.emplace(e, b).second) << in.name << ": entry " << e << " twice";
        }
    std::uint32_t binned = 0, expected_entries = 0;
    const float half = 0.5f * in.radius;
    for (std::uint32_t i = 0; i < n; ++i) {
        if (bin_key(grid, in.positions[i], policy) == nbins)
            continue;
        ++binned;
        int lo[D], span[D];
        std::uint32_t bins = 1;
        for (int k = 0; k < D; ++k) {
            lo[k] = grid.axis_bin(in.positions[i][k] - half, k);
            span[k] = grid.axis_bin(in.positions[i][k] + half, k) - lo[k] + 1;
            ASSERT_LE(span[k], 4) << in.name << ": particle " << i;
            bins *= static_cast<std::uint32_t>(span[k]);
        }
        expected_entries += bins;
        for (std::uint32_t cell = 0; cell < bins; ++cell) {
            int b[D], rest = static_cast<int>(cell);
            std::uint32_t offsets = 0;
            for (int k = 0; k < D; ++k) {
                const int d = rest % span[k];
                rest /= span[k];
                b[k] = lo[k] + d;
                offsets |= static_cast<std::uint32_t>(d) << (2 * k);
            }
            const auto it = seen.find((i << View::entry_shift) | offsets);
            ASSERT_TRUE(it != seen.end()) << in.name << ": particle " << i << " not in a bin";
            EXPECT_EQ(it->second, grid.linear_bin(b)) << in.name << ": particle " << i;
        }
    }
    EXPECT_EQ(seen.size(), expected_entries) << in.name;
    EXPECT_EQ(r.binned, binned) << in.name;
}

template <int D>
void check_build(const Input<D>& in, const GridSpec<D>& grid, OutsidePolicy policy,
                 const BuildResult<D>& r) {
    if (r.tight) {
        check_tight_lists(in, grid, policy, r);
        return;
    }
    if (!r.nodes.empty()) { // a packed list: its nodes copy the input exactly
        ASSERT_EQ(r.nodes.size(), in.positions.size()) << in.name;
        for (std::size_t i = 0; i < r.nodes.size(); ++i)
            for (int k = 0; k < 3; ++k)
                ASSERT_TRUE(same_bits(r.nodes[i].c[k], k < D ? in.positions[i][k] : 0.0f))
                    << in.name << ": node " << i;
    }
    if (r.pbm.empty()) {
        check_lists(in, grid, policy, r);
        return;
    }
    const auto n = static_cast<std::uint32_t>(in.positions.size());
    const std::uint32_t nbins = grid.bin_count();
    ASSERT_EQ(r.pbm, reference_pbm(in, grid, policy)) << in.name;
    ASSERT_EQ(r.binned, r.pbm[nbins]) << in.name;
    ASSERT_EQ(r.permutation.size(), n) << in.name;
    const bool sorted = !r.sorted.empty(); // index layout: no sorted copy
    if (sorted) {
        ASSERT_EQ(r.sorted.size(), n) << in.name;
    }
    std::vector<char> seen(n, 0);
    for (std::uint32_t k = 0; k < n; ++k) {
        const std::uint32_t i = r.permutation[k];
        ASSERT_LT(i, n) << in.name;
        ASSERT_FALSE(seen[i]) << in.name << ": index " << i << " twice in the permutation";
        seen[i] = 1;
        for (int c = 0; c < D && sorted; ++c)
            ASSERT_TRUE(same_bits(r.sorted[k][c], in.positions[i][c]))
                << in.name << ": sorted position " << k << " is not input " << i;
        // Bin order: the particle at k belongs to the bin whose PBM range holds k; excluded ones
        // (key nbins) come after pbm[nbins].
        const std::uint32_t key = bin_key(grid, in.positions[i], policy);
        if (key == nbins) {
            ASSERT_GE(k, r.pbm[nbins]) << in.name;
        } else {
            ASSERT_GE(k, r.pbm[key]) << in.name;
            ASSERT_LT(k, r.pbm[key + 1]) << in.name;
        }
    }
}

template <int D>
void check_sets(const Input<D>& in, const NeighbourSets& expected, const BuildResult<D>& r,
                const std::string& module) {
    ASSERT_EQ(r.sets.size(), expected.size());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (r.sets[i] != expected[i]) {
            if (++wrong <= 3)
                ADD_FAILURE() << module << " on '" << in.name << "': particle " << i << " has "
                              << r.sets[i].size() << " neighbours, brute force "
                              << expected[i].size();
        }
    }
    EXPECT_EQ(wrong, 0u) << module << " on '" << in.name << "': " << wrong << " of "
                         << expected.size() << " neighbour sets differ from brute force";
}

/// Brute force per (input, grid, policy), computed once per test program: every module shares it.
template <int D>
const NeighbourSets& cached_brute_force(const Input<D>& in, const GridSpec<D>& grid,
                                        OutsidePolicy policy) {
    static std::map<std::pair<std::string, int>, NeighbourSets> cache;
    // The grid matters only through contains() (exclude), whose upper edge depends on the bin
    // width: key on the input, the policy and the grid's bins per axis.
    std::string name = in.name + (policy == OutsidePolicy::clamp ? "/clamp" : "/exclude");
    for (int k = 0; k < D; ++k)
        name += "/" + std::to_string(grid.dims[k]);
    const auto key = std::make_pair(name, D);
    auto it = cache.find(key);
    if (it == cache.end())
        it = cache.emplace(key, brute_force_sets(in, grid, policy)).first;
    return it->second;
}

/// The shared body: runs `run(input, grid, policy, param) -> BuildResult<D>` on every adversarial
/// input and checks the build and every neighbour set.
template <int D, class RunT>
void check_module_on_adversarial_inputs(const ModuleParam& p, RunT&& run) {
    for (const Input<D>& in : adversarial_inputs<D>()) {
        const GridSpec<D> grid = make_grid<D>(in.lo, in.hi, in.radius, p.bin_width);
        const BuildResult<D> r = run(in, grid, p.policy);
        SCOPED_TRACE(in.name);
        check_build(in, grid, p.policy, r);
        check_sets(in, cached_brute_force(in, grid, p.policy), r, module_param_name(p));
    }
}

/// Order-independent fingerprint of a neighbour set (count, sum, sum of a mix): equal sets give
/// equal fingerprints; different sets collide with negligible probability.
struct Fingerprint {
    std::uint32_t count = 0;
    std::uint64_t sum = 0;
    std::uint64_t mixed = 0;
    bool operator==(const Fingerprint& o) const {
        return count == o.count && sum == o.sum && mixed == o.mixed;
    }
};

SLUICE_HD inline std::uint64_t mix64(std::uint64_t z) { // splitmix64 finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

} // namespace sluice::test
