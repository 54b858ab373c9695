#pragma once
/// \file warp_query.cuh
/// for_each_neighbour for the 32 query points of a warp, one per lane, with the lanes kept in
/// step (CUDA only). for_each_neighbour runs a row of bins per lane at a time, so a warp runs
/// each row as long as its longest one, and the visitor whenever any lane accepted a candidate:
/// where the particles are disordered (a developed flow) rows and acceptances differ from lane
/// to lane and half the lanes idle (Nsight Compute on the 10^6-particle dam break at t = 1 s:
/// 15.8 of 32 lanes active, against 25.9 at t = 0 on the initial lattice). Here the lanes queue
/// the candidates they accept in shared memory, and the visitor runs over the queues, all lanes
/// at once.

#include "neighbours/query.h"

#include <cstdint>

namespace sluice {

/// Calls visitor(j, rij, r2) for every neighbour of x, as for_each_neighbour<QueryT>(view, x,
/// visitor) does: the same neighbours in the same order with the same rij and r2. Collective:
/// every lane of the warp calls it at once (converged); a lane with `active` false has no query
/// and only takes part. `queue`: this lane's Capacity slots of shared memory, slot k at
/// queue[k · stride]. Traversals whose rows are one range each (strips, chords, hybrid; not
/// moore or modular, which visit a row bin by bin).
///
/// The lanes walk their blocks row by row together, as for_each_neighbour does, testing
/// candidate_batch candidates at a time; the accepted ones go to the lane's queue, and the
/// visitor runs once every lane still walking has one queued (or when a queue has no room for
/// another batch), so that a warp runs the pair terms with all of its lanes.
template <class QueryT, int Capacity, int D, class VisitorT>
__device__ __forceinline__ void
for_each_neighbour_in_step(const NeighbourView<D>& view, const Vec<D>& x, bool active,
                           std::uint32_t* queue, std::uint32_t stride, VisitorT& visitor) {
    static_assert(!detail::bin_by_bin<QueryT>, "a row must be one range of candidates");
    constexpr int batch = detail::candidate_batch;
    static_assert((Capacity & (Capacity - 1)) == 0 && Capacity > batch,
                  "the queue is a ring of 2^k slots, room for more than a batch");
    constexpr unsigned warp = 0xffffffffu;
    int lo[D], hi[D], m[D];
    detail::query_block(view, x, lo, hi);
    SLUICE_UNROLL
    for (int a = 0; a < D; ++a)
        m[a] = detail::label_modulus(view, lo[a], hi[a]);
    const int steps_y = D == 3 ? detail::row_steps<QueryT>(lo[1], hi[1], m[1]) : 1;
    const int rows =
        active ? steps_y * detail::row_steps<QueryT>(lo[D - 1], hi[D - 1], m[D - 1]) : 0;
    const std::uint32_t nx = static_cast<std::uint32_t>(view.grid.dims[0]);
    const std::uint32_t ny = D == 3 ? static_cast<std::uint32_t>(view.grid.dims[1]) : 1u;

    std::uint32_t head = 0, count = 0; // the ring: queue[(head + k) mod Capacity], k < count
    const auto visit_next = [&] {
        if (count > 0) {
            const std::uint32_t j = queue[(head & (Capacity - 1)) * stride];
            ++head;
            --count;
            const Vec<D> rij = x - detail::load_position(view.positions + j);
            visitor(j, rij, neighbour_distance2(rij));
        }
    };
    int ky = 0, kz = 0; // the row r's coordinates, in for_each_neighbour's order
    for (int r = 0; __any_sync(warp, r < rows); ++r) {
        std::uint32_t begin = 0, end = 0;
        if (r < rows) {
            const int bz = detail::row_coordinate<QueryT>(lo[D - 1], hi[D - 1], m[D - 1], kz);
            const int by = D == 3 ? detail::row_coordinate<QueryT>(lo[1], hi[1], m[1], ky) : 0;
            if (++ky == steps_y) {
                ky = 0;
                ++kz;
            }
            int lo_x = lo[0], hi_x = hi[0];
            if (bz >= 0 && by >= 0 && detail::row_bins<QueryT>(view, x, by, bz, lo_x, hi_x)) {
                const std::uint32_t* row =
                    view.pbm +
                    (static_cast<std::uint32_t>(bz) * ny + static_cast<std::uint32_t>(by)) * nx;
                begin = detail::load_pbm(row + lo_x);
                end = detail::load_pbm(row + hi_x + 1);
            }
        }
        const bool walking = r < rows;
        for (std::uint32_t j = begin; __any_sync(warp, j < end); j += batch) {
            while (__any_sync(warp, count > Capacity - batch)) // room for a whole batch
                visit_next();
            if (j < end) {
                Vec<D> xj[batch];
                SLUICE_UNROLL
                for (int u = 0; u < batch; ++u)
                    xj[u] = detail::load_position(view.positions + (j + u < end ? j + u : end - 1));
                SLUICE_UNROLL
                for (int u = 0; u < batch; ++u) {
                    const Vec<D> rij = x - xj[u];
                    if (j + u < end && neighbour_distance2(rij) < view.radius2) {
                        queue[((head + count) & (Capacity - 1)) * stride] = j + u;
                        ++count;
                    }
                }
            }
            // Every lane still walking has a neighbour queued: visit them all at once.
            while (__all_sync(warp, count > 0 || !walking) && __any_sync(warp, count > 0))
                visit_next();
        }
    }
    while (__any_sync(warp, count > 0))
        visit_next();
}

} // namespace sluice
