// The part of the neighbour grid a build uses (parallel/slab_start.h): covering_grid, the bins
// of the domain's grid around the particles' box, and with slab_reach a process's slab with
// everything its particles reach in a step, clipped to the domain's grid, and nothing of the
// other slabs beyond that.

#include "parallel/slab_start.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

using namespace sluice;

namespace {

/// What a process of a run over several GPUs builds on when its particles' box is the whole
/// space (CudaSimulation::cover): covering_grid of its slab_reach along the slab axis.
template <int D>
GridSpec<D> slab_grid(const GridSpec<D>& grid, const SlabDecomposition& slabs, int rank) {
    std::array<double, D> lo, hi;
    lo.fill(-HUGE_VAL);
    hi.fill(HUGE_VAL);
    const auto [lower, upper] = slab_reach(slabs, rank);
    lo[slabs.axis] = lower;
    hi[slabs.axis] = upper;
    return covering_grid<D>(grid, lo, hi);
}

TEST(SlabGrid, CoversTheSlabAndItsReachAndNoMore) {
    // 2 m along x in bins of 0.025 m (R = 0.1 m, bin width 1/4): 80 columns, and one more
    // where the float bin edge rounds the box's end up; halo 0.1125 m.
    const GridSpec<3> grid =
        make_grid<3>(Vec<3>{0.0f, 0.0f, 0.0f}, Vec<3>{2.0f, 0.5f, 0.4f}, 0.1f, 0.25f);
    ASSERT_GE(grid.dims[0], 80);
    const SlabDecomposition slabs = slabs_with_faces(0, {0.0, 0.7, 1.3, 2.0}, grid.bin_size, 0.1);
    const double reach = slabs.halo_width + 2.0 * slabs.max_step_move;
    const double grid_end = grid.origin[0] + grid.dims[0] * double(grid.bin_size);
    for (int rank = 0; rank < slabs.ranks(); ++rank) {
        const GridSpec<3> g = slab_grid(grid, slabs, rank);
        // The other axes and the bin size are the domain grid's.
        EXPECT_EQ(g.bin_size, grid.bin_size);
        EXPECT_EQ(g.inv_bin_size, grid.inv_bin_size);
        for (int k = 1; k < 3; ++k) {
            EXPECT_EQ(g.origin[k], grid.origin[k]) << "rank " << rank;
            EXPECT_EQ(g.dims[k], grid.dims[k]) << "rank " << rank;
        }
        // Along the slab axis: a whole number of the domain grid's bins inside it.
        const double shift = (g.origin[0] - grid.origin[0]) / grid.bin_size;
        EXPECT_NEAR(shift, std::round(shift), 1e-4) << "rank " << rank;
        const double start = g.origin[0], end = g.origin[0] + g.dims[0] * double(g.bin_size);
        EXPECT_GE(start, grid.origin[0] - 1e-6) << "rank " << rank;
        EXPECT_LE(end, grid_end + 1e-6) << "rank " << rank;
        // Everything within the slab's reach, clipped to the domain's grid.
        const double want_start = std::max<double>(grid.origin[0], slabs.faces[rank] - reach);
        const double want_end = std::min(grid_end, slabs.faces[rank + 1] + reach);
        EXPECT_LE(start, want_start + 1e-6) << "rank " << rank;
        EXPECT_GE(end, want_end - 1e-6) << "rank " << rank;
        // ... and at most two bins more on each side (the rounding margin).
        EXPECT_GE(start, want_start - 2.0 * grid.bin_size - 1e-6) << "rank " << rank;
        EXPECT_LE(end, want_end + 2.0 * grid.bin_size + 1e-6) << "rank " << rank;
        // Every point of the reach is inside it, so a build on it holds every particle that a
        // build on the domain's grid holds there.
        for (double x = want_start; x < want_end; x += 0.001) {
            const Vec<3> p{static_cast<float>(x), 0.25f, 0.2f};
            if (grid.contains(p)) {
                EXPECT_TRUE(g.contains(p)) << "rank " << rank << ", x = " << x;
            }
        }
    }
    // The first slab starts, and the last ends, exactly where the domain's grid does.
    EXPECT_EQ(slab_grid(grid, slabs, 0).origin[0], grid.origin[0]);
    const GridSpec<3> last = slab_grid(grid, slabs, 2);
    EXPECT_NEAR(last.origin[0] + last.dims[0] * double(last.bin_size), grid_end, 1e-6);
    // The middle slab (0.6 m of 2 m, reach 0.125 m each side) needs well under half the bins.
    EXPECT_LT(slab_grid(grid, slabs, 1).bin_count(), grid.bin_count() / 2);
}

TEST(CoveringGrid, HoldsTheBoxWithWholeBinsAndClipsToTheGrid) {
    // The dam break's domain: the particles fill the tank, far less than the domain with its
    // margins and the air above the tank.
    const GridSpec<3> grid =
        make_grid<3>(Vec<3>{-0.2f, -0.2f, -0.2f}, Vec<3>{3.42f, 1.2f, 1.6f}, 0.026f, 1.0f / 3.0f);
    const std::array<double, 3> lo{-0.03, -0.03, -0.03}, hi{3.25, 1.03, 1.0};
    const GridSpec<3> g = covering_grid<3>(grid, lo, hi);
    EXPECT_EQ(g.bin_size, grid.bin_size);
    for (int a = 0; a < 3; ++a) {
        const double shift = (g.origin[a] - grid.origin[a]) / grid.bin_size;
        EXPECT_NEAR(shift, std::round(shift), 1e-3) << "axis " << a;
        EXPECT_GE(shift, -1e-3) << "axis " << a;
        EXPECT_LE(g.origin[a], lo[a]) << "axis " << a;
        EXPECT_GE(g.origin[a] + g.dims[a] * double(g.bin_size), hi[a]) << "axis " << a;
        // One bin of margin each side, and up to one more where an end rounds out to a bin.
        EXPECT_LE(g.dims[a] * double(g.bin_size), hi[a] - lo[a] + 4.0 * grid.bin_size)
            << "axis " << a;
    }
    EXPECT_LT(g.bin_count(), grid.bin_count() / 2);
    // Every point of the box, corners included, is inside it.
    for (const double x : {lo[0], 1.0, hi[0]})
        for (const double y : {lo[1], 0.5, hi[1]})
            for (const double z : {lo[2], 0.2, hi[2]})
                EXPECT_TRUE(g.contains(Vec<3>{float(x), float(y), float(z)}))
                    << x << " " << y << " " << z;
    // A box reaching past the grid, or an infinite one, is clipped to it: the same grid.
    const GridSpec<3> whole =
        covering_grid<3>(grid, {-HUGE_VAL, -5.0, -HUGE_VAL}, {HUGE_VAL, 5.0, 100.0});
    for (int a = 0; a < 3; ++a) {
        EXPECT_EQ(whole.origin[a], grid.origin[a]);
        EXPECT_EQ(whole.dims[a], grid.dims[a]);
    }
    // A box outside the grid leaves a grid of one bin along that axis, which holds none of it.
    const GridSpec<3> none = covering_grid<3>(grid, {5.0, 0.0, 0.0}, {6.0, 1.0, 1.0});
    EXPECT_EQ(none.dims[0], 1);
    EXPECT_FALSE(none.contains(Vec<3>{5.5f, 0.5f, 0.5f}));
}

TEST(SlabGrid, TwoDimensionsAlongTheVerticalAxis) {
    // A tall 2D domain cut along z (index 1): the slab grid keeps x whole.
    const GridSpec<2> grid = make_grid<2>(Vec<2>{-0.5f, 0.0f}, Vec<2>{0.5f, 3.0f}, 0.1f, 0.5f);
    const SlabDecomposition slabs = slabs_with_faces(1, {0.0, 1.5, 3.0}, grid.bin_size, 0.1);
    const GridSpec<2> lower = slab_grid(grid, slabs, 0), upper = slab_grid(grid, slabs, 1);
    EXPECT_EQ(lower.dims[0], grid.dims[0]);
    EXPECT_EQ(upper.dims[0], grid.dims[0]);
    EXPECT_EQ(lower.origin[1], grid.origin[1]);
    EXPECT_LT(lower.dims[1], grid.dims[1]);
    EXPECT_LT(upper.dims[1], grid.dims[1]);
    EXPECT_TRUE(lower.contains(Vec<2>{0.0f, 1.5f + float(slabs.halo_width)}));
    EXPECT_TRUE(upper.contains(Vec<2>{0.0f, 1.5f - float(slabs.halo_width)}));
    EXPECT_FALSE(lower.contains(Vec<2>{0.0f, 2.5f}));
    EXPECT_FALSE(upper.contains(Vec<2>{0.0f, 0.5f}));
}

} // namespace
