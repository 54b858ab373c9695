// The cut of the domain into slabs (parallel/slabs.h): by particle count, on bin boundaries,
// each slab at least two halos wide; load balancing by measured time with hysteresis and
// bounded moves.

#include "parallel/slabs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sluice;

namespace {

constexpr double radius = 0.1; // m: halo 0.1125 m, slabs at least 0.225 m = 9 bins of 0.025 m
constexpr double bin = 0.025;

void expect_valid(const SlabDecomposition& s, double start, double end) {
    ASSERT_GE(s.ranks(), 1);
    EXPECT_DOUBLE_EQ(s.faces.front(), start);
    EXPECT_DOUBLE_EQ(s.faces.back(), end);
    for (int r = 0; r < s.ranks(); ++r) {
        const double width = s.faces[r + 1] - s.faces[r];
        EXPECT_GE(width, 2.0 * s.halo_width - 1e-12) << "slab " << r;
        const double bins = (s.faces[r] - start) / s.bin;
        EXPECT_NEAR(bins, std::round(bins), 1e-9) << "face " << r << " not on a bin boundary";
    }
}

TEST(Slabs, EqualParticleCountsOnBinBoundaries) {
    // 1000 particles in [0, 1) m, 3000 in [1, 2) m: the faces crowd where the particles are.
    std::vector<float> x;
    for (int i = 0; i < 1000; ++i)
        x.push_back(0.001f * i);
    for (int i = 0; i < 3000; ++i)
        x.push_back(1.0f + i / 3000.0f);
    const SlabDecomposition s = balanced_slabs(x, {}, 3, 0, 0.0, 2.0, bin, radius, 4);
    expect_valid(s, 0.0, 2.0);
    EXPECT_DOUBLE_EQ(s.halo_width, radius + 2.0 * radius / 16.0);
    EXPECT_DOUBLE_EQ(s.max_step_move, radius / 16.0);
    std::vector<int> count(4, 0);
    for (const float v : x)
        ++count[s.rank_of(v)];
    for (int r = 0; r < 4; ++r)
        EXPECT_NEAR(count[r], 1000, 75) << "rank " << r; // within a dense bin (75)
}

TEST(Slabs, EqualWorkWhenParticlesWeighDifferently) {
    // Uniform particles over [0, 2) m, those in [0, 1) m weighing a third (wall particles with a
    // third of the neighbours): two slabs meet where the work halves, at 4/3 m, not at 1 m.
    std::vector<float> x, w;
    for (int i = 0; i < 2000; ++i) {
        x.push_back(0.001f * i);
        w.push_back(i < 1000 ? 1.0f / 3.0f : 1.0f);
    }
    const SlabDecomposition s = balanced_slabs(x, w, 3, 0, 0.0, 2.0, bin, radius, 2);
    expect_valid(s, 0.0, 2.0);
    EXPECT_NEAR(s.faces[1], 4.0 / 3.0, bin);
}

TEST(Slabs, EveryPointHasOneOwnerAndTheEndsReachPastTheDomain) {
    const std::vector<float> x = {0.1f, 0.5f, 0.9f, 1.3f, 1.7f};
    const SlabDecomposition s = balanced_slabs(x, {}, 2, 1, 0.0, 2.0, bin, radius, 2);
    EXPECT_EQ(s.rank_of(-5.0), 0);
    EXPECT_EQ(s.rank_of(5.0), 1);
    EXPECT_EQ(s.rank_of(s.faces[1]), 1); // a face belongs to the slab above it
    EXPECT_EQ(s.rank_of(std::nextafter(s.faces[1], 0.0)), 0);
    EXPECT_TRUE(std::isinf(s.lower(0)));
    EXPECT_TRUE(std::isinf(s.upper(1)));
    EXPECT_EQ(s.lower(1), s.faces[1]);
    EXPECT_EQ(axis_name(2, 1), "z");
    EXPECT_EQ(axis_name(3, 1), "y");
}

TEST(Slabs, EmptyRegionsStillGetSlabsWideEnough) {
    // Particles in the first 10 cm and the last 10 cm of 2 m: two slabs, each wide enough.
    std::vector<float> x(500, 0.05f);
    x.insert(x.end(), 500, 1.95f);
    const SlabDecomposition s = balanced_slabs(x, {}, 3, 0, 0.0, 2.0, bin, radius, 2);
    expect_valid(s, 0.0, 2.0);
    EXPECT_EQ(s.rank_of(0.05), 0);
    EXPECT_EQ(s.rank_of(1.95), 1);
}

TEST(Slabs, AProcessNeverOwnsAnEmptySlab) {
    // Every particle in the first 10 cm: five slabs of at least 22.5 cm leave some empty.
    const std::vector<float> x(500, 0.05f);
    try {
        balanced_slabs(x, {}, 3, 0, 0.0, 2.0, bin, radius, 5);
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("would hold no particles"), std::string::npos)
            << e.what();
    }
    // Balancing does not empty a slab either: all the work in rank 1's first columns.
    std::vector<float> y;
    for (int i = 0; i < 2000; ++i)
        y.push_back(0.001f * i);
    const SlabDecomposition s = balanced_slabs(y, {}, 3, 0, 0.0, 2.0, bin, radius, 2);
    std::vector<double> work(80, 0.0);
    work[static_cast<std::size_t>(s.face_bins()[0])] = 100.0;
    EXPECT_EQ(rebalanced_slabs(s, {0.0, 10.0}, work, 0.05).faces, s.faces);
}

TEST(Slabs, TooManyProcessesIsAClearError) {
    const std::vector<float> x = {0.1f};
    try {
        balanced_slabs(x, {}, 3, 2, 0.0, 0.5, bin, radius, 3);
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("3 processes need 3 slabs along z"), std::string::npos) << what;
        EXPECT_NE(what.find("at most 2 process(es) fit this domain"), std::string::npos) << what;
    }
}

TEST(Slabs, BalancingMovesFacesTowardsEqualTimesBoundedAndWithHysteresis) {
    std::vector<float> x;
    for (int i = 0; i < 2000; ++i)
        x.push_back(0.001f * i); // uniform over [0, 2) m
    const SlabDecomposition s = balanced_slabs(x, {}, 3, 0, 0.0, 2.0, bin, radius, 2);
    const std::vector<double> counts(80, 25.0); // 80 bins of 25 particles' work
    // Within 5 %: nothing moves.
    EXPECT_EQ(rebalanced_slabs(s, {1.0, 1.04}, counts, 0.05).faces, s.faces);
    // Rank 0 three times slower per particle: its slab shrinks, by less than a minimum slab.
    const SlabDecomposition moved = rebalanced_slabs(s, {3.0, 1.0}, counts, 0.05);
    expect_valid(moved, 0.0, 2.0);
    EXPECT_LT(moved.faces[1], s.faces[1]);
    EXPECT_LT(s.faces[1] - moved.faces[1], 2.0 * s.halo_width);
    // Repeated, it converges towards the face that evens the times: 1/4 of the particles
    // (at 3× the cost) to rank 0, where 0.5 m is the fixed point.
    SlabDecomposition t = s;
    for (int k = 0; k < 20; ++k) {
        const double f = t.faces[1];
        const double seconds0 = 3.0 * f, seconds1 = 2.0 - f; // cost ∝ particles, 3× for rank 0
        t = rebalanced_slabs(t, {seconds0, seconds1}, counts, 0.05);
    }
    EXPECT_NEAR(t.faces[1], 0.5, 0.05);
    expect_valid(t, 0.0, 2.0);
}

} // namespace
