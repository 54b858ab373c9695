#pragma once
/// \file query.h
/// The fixed-radius neighbour query shared by the CPU backend and CUDA kernels.
///
/// Exactness in float arithmetic: a candidate j is a neighbour of x when
/// neighbour_distance2(x, x_j) < R² (both computed in float as below). That implies, per axis,
/// |fl(x_j − x)| < R, hence x_j ≥ fl(x − R) and x_j ≤ fl(x + R) (rounding is monotone and x_j is
/// a float); GridSpec::axis_bin is monotone, so bin(x_j) lies in
/// [axis_bin(x − R), axis_bin(x + R)], the block the query visits. Clamping keeps this true for
/// points outside the grid. So the query finds exactly the brute-force set. The tight grid
/// visits the bins of a smaller box and argues its own exactness (list_views.h,
/// tight_axis_bins).

#include "grid.h"
#include "list_views.h"
#include "module.h"
#include "vec.h"
#include "view.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

namespace sluice {

/// Whether traversal QueryT can walk view type ViewT: a linked list has no PBM, so no row of
/// bins is one contiguous range (module.h's query_needs_pbm, at compile time).
template <class QueryT, class ViewT>
constexpr bool traversal_walks_view = !is_list_view<ViewT> || std::is_same_v<QueryT, MooreQuery> ||
                                      std::is_same_v<QueryT, ModularQuery>;

/// Whether a view's j indexes the input order (Layout::index) rather than the bin order.
template <class ViewT>
constexpr bool indexes_input_order = !std::is_same_v<ViewT, NeighbourView<ViewT::dimension>>;

namespace detail {

/// Candidates per batch of visit_range: their positions are loaded before the first distance
/// test, so that this many loads are in flight at once on the device.
constexpr int candidate_batch = 4;

template <int D, class VisitorT>
SLUICE_HD SLUICE_INLINE void visit_range(const NeighbourView<D>& view, const Vec<D>& x,
                                         std::uint32_t begin, std::uint32_t end,
                                         VisitorT& visitor) {
    for (std::uint32_t j = begin; j < end; j += candidate_batch) {
        // Past the end of the range the last candidate is loaded again (a cache hit) and
        // skipped below: every load is valid and none is predicated.
        Vec<D> xj[candidate_batch];
        SLUICE_UNROLL
        for (int u = 0; u < candidate_batch; ++u)
            xj[u] = load_position(view.positions + (j + u < end ? j + u : end - 1));
        SLUICE_UNROLL
        for (int u = 0; u < candidate_batch; ++u) {
            const Vec<D> rij = x - xj[u];
            const float r2 = neighbour_distance2(rij);
            if (j + u < end && r2 < view.radius2)
                visitor(j + u, rij, r2);
        }
    }
}

/// IndexedNeighbourView: the same batches over bin-order positions begin..end, each candidate's
/// input index read from the permutation first, then its position (a scattered read).
template <int D, class VisitorT>
SLUICE_HD SLUICE_INLINE void visit_range(const IndexedNeighbourView<D>& view, const Vec<D>& x,
                                         std::uint32_t begin, std::uint32_t end,
                                         VisitorT& visitor) {
    for (std::uint32_t k = begin; k < end; k += candidate_batch) {
        std::uint32_t j[candidate_batch];
        SLUICE_UNROLL
        for (int u = 0; u < candidate_batch; ++u)
            j[u] = load_pbm(view.permutation + (k + u < end ? k + u : end - 1));
        Vec<D> xj[candidate_batch];
        SLUICE_UNROLL
        for (int u = 0; u < candidate_batch; ++u)
            xj[u] = load_position(view.positions + j[u]);
        SLUICE_UNROLL
        for (int u = 0; u < candidate_batch; ++u) {
            const Vec<D> rij = x - xj[u];
            const float r2 = neighbour_distance2(rij);
            if (k + u < end && r2 < view.radius2)
                visitor(j[u], rij, r2);
        }
    }
}

/// Traversals that visit the block bin by bin (the others take a row as one range).
template <class QueryT>
constexpr bool bin_by_bin =
    std::is_same_v<QueryT, MooreQuery> || std::is_same_v<QueryT, ModularQuery>;
/// Traversals that visit bins (Modular) or rows (Hybrid) in label order (poster 000).
template <class QueryT>
constexpr bool in_label_order =
    std::is_same_v<QueryT, ModularQuery> || std::is_same_v<QueryT, HybridQuery>;

/// The label modulus of an axis whose block is [lo, hi]: the block's nominal span 2R/w + 1
/// (3 at bin width 1, 5 at 0.5, 7 at 1/3; a tight box's R/w + 1: 2 at 1, 3 at 0.5), or the
/// block's own span where rounding (or a skin) made it wider.
template <class ViewT>
SLUICE_HD SLUICE_INLINE int label_modulus(const ViewT& view, int lo, int hi) {
    const float edge = is_tight_view<ViewT> ? view.radius : 2.0f * view.radius;
    const int nominal = static_cast<int>(edge * view.grid.inv_bin_size + 0.5f) + 1;
    return hi - lo + 1 > nominal ? hi - lo + 1 : nominal;
}

/// The k-th bin (k = 0 … m−1) of the block [lo, hi] in label order, label = b mod m: the block's
/// bin labelled k, or −1 when no bin of the (clamped or narrow) block has that label. The m
/// labels of m consecutive bins differ, so each bin of the block comes once.
SLUICE_HD SLUICE_INLINE int label_order_bin(int lo, int hi, int m, int k) {
    const int b = lo + ((m - lo % m) % m + k) % m;
    return b <= hi ? b : -1;
}

/// The k-th row coordinate along an axis whose block is [lo, hi]: in label order for
/// Modular/Hybrid (k < m), else lo + k (k < hi − lo + 1). −1: skip.
template <class QueryT>
SLUICE_HD SLUICE_INLINE int row_coordinate(int lo, int hi, int m, int k) {
    if constexpr (in_label_order<QueryT>)
        return label_order_bin(lo, hi, m, k);
    else
        return lo + k <= hi ? lo + k : -1;
}

/// How many k row_coordinate takes along an axis.
template <class QueryT>
SLUICE_HD SLUICE_INLINE int row_steps(int lo, int hi, int m) {
    if constexpr (in_label_order<QueryT>)
        return m;
    else
        return hi - lo + 1;
}

/// A tight view's row (bin coordinates by, bz): bit 2a set where the row is the first of the
/// block along axis a > 0 (visit_list's first_axes; visit_row adds axis 0). 0 for other views.
template <class ViewT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE std::uint32_t row_first_axes(const int (&lo)[D], int by, int bz) {
    if constexpr (is_tight_view<ViewT>) {
        std::uint32_t axes = bz == lo[D - 1] ? 1u << (2 * (D - 1)) : 0u;
        if constexpr (D == 3)
            axes |= by == lo[1] ? 1u << 2 : 0u;
        return axes;
    } else {
        (void)lo, (void)by, (void)bz;
        return 0u;
    }
}

/// Visits bins lo_x..hi_x of the row whose first bin is row_start; m_x: the label modulus along x;
/// first_axes: row_first_axes of the row (tight views only).
template <class QueryT, class ViewT, class VisitorT>
SLUICE_HD SLUICE_INLINE void visit_row(const ViewT& view, const Vec<ViewT::dimension>& x,
                                       std::uint32_t row_start, int lo_x, int hi_x, int m_x,
                                       std::uint32_t first_axes, VisitorT& visitor) {
    static_assert(traversal_walks_view<QueryT, ViewT>,
                  "strips, chords and hybrid need a PBM: a linked list walks bin by bin");
    if constexpr (is_list_view<ViewT>) {
        // Linked lists: one list per bin, in x order (Moore) or label order (Modular).
        for (int k = 0; k < (std::is_same_v<QueryT, ModularQuery> ? m_x : hi_x - lo_x + 1); ++k) {
            const int bx = std::is_same_v<QueryT, ModularQuery>
                               ? label_order_bin(lo_x, hi_x, m_x, k)
                               : lo_x + k;
            if (bx >= 0)
                visit_list(view, x, row_start + static_cast<std::uint32_t>(bx),
                           first_axes | (bx == lo_x ? 1u : 0u), visitor);
        }
    } else if constexpr (!bin_by_bin<QueryT>) {
        // Strips (thesis Alg. 7), and Chords and Hybrid: the row's bins are contiguous in bin
        // order, so the whole row is one range of the storage array: two PBM loads per row.
        const std::uint32_t* row = view.pbm + row_start;
        visit_range(view, x, load_pbm(row + lo_x), load_pbm(row + hi_x + 1), visitor);
    } else if constexpr (std::is_same_v<QueryT, ModularQuery>) {
        // Modular (poster 000): bin by bin in label order.
        const std::uint32_t* row = view.pbm + row_start;
        for (int k = 0; k < m_x; ++k) {
            const int bx = label_order_bin(lo_x, hi_x, m_x, k);
            if (bx >= 0)
                visit_range(view, x, load_pbm(row + bx), load_pbm(row + bx + 1), visitor);
        }
    } else {
        static_assert(std::is_same_v<QueryT, MooreQuery>, "unknown traversal");
        // Moore neighbourhood (thesis Alg. 5): bin by bin. A bin's end is the next bin's begin,
        // so each PBM entry of the row is loaded once.
        const std::uint32_t* row = view.pbm + row_start;
        std::uint32_t begin = load_pbm(row + lo_x);
        for (int bx = lo_x; bx <= hi_x; ++bx) {
            const std::uint32_t end = load_pbm(row + bx + 1);
            visit_range(view, x, begin, end, visitor);
            begin = end;
        }
    }
}

/// What ChordsQuery adds to its bounds along `axis`: more than float rounding of the bin faces,
/// of the coordinate differences the distance test forms and of axis_bin can move them
/// (generous: it only widens chords).
template <int D>
SLUICE_HD SLUICE_INLINE float chord_margin(const GridSpec<D>& g, const Vec<D>& x, int axis) {
    constexpr float epsilon = 1.1920929e-7f; // FLT_EPSILON
    return 1e-3f * g.bin_size + 16.0f * epsilon *
                                    (fabsf(x[axis]) + fabsf(g.origin[axis]) +
                                     static_cast<float>(g.dims[axis]) * g.bin_size);
}

/// A lower bound on the distance along `axis` from x to the points of bin b: the gap to the
/// bin's faces less chord_margin. The first and last bins of an axis also hold what a builder
/// clamped into them from outside the grid (OutsidePolicy::clamp): their outer faces are open.
template <int D>
SLUICE_HD SLUICE_INLINE float gap_to_bin(const GridSpec<D>& g, const Vec<D>& x, int axis, int b) {
    const float low = g.origin[axis] + static_cast<float>(b) * g.bin_size;
    const float below = b > 0 ? low - x[axis] : 0.0f;
    const float above = b < g.dims[axis] - 1 ? x[axis] - (low + g.bin_size) : 0.0f;
    const float gap = fmaxf(fmaxf(below, above), 0.0f);
    return fmaxf(gap - chord_margin(g, x, axis), 0.0f);
}

/// ChordsQuery: narrows [lo_x, hi_x] to the bins of the row whose other bin coordinates are
/// `row` (row[0] unused) that a point within R of x can lie in: the chord of the sphere through
/// the row. False when the row misses the sphere. Exact: the gaps are lower bounds (above) and R
/// is widened by 10⁻⁵ relative, more than the float distance test can err by, so every j with
/// neighbour_distance2 < R² lies in the narrowed range (the rest is query.h's argument).
template <class ViewT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE bool chord_of_row(const ViewT& view, const Vec<D>& x, const int (&row)[D],
                                          int& lo_x, int& hi_x) {
    // A skin s bounds the move along each axis, so s·√D the move in space (above √D).
    constexpr float root_d = D == 3 ? 1.7320509f : 1.4142137f;
    const float reach = view.radius + root_d * load_skin(view);
    float rest = reach * reach * (1.0f + 1e-5f);
    SLUICE_UNROLL
    for (int a = 1; a < D; ++a) {
        const float gap = gap_to_bin(view.grid, x, a, row[a]);
        rest -= gap * gap;
    }
    if (!(rest > 0.0f))
        return false;
    const float half = sqrtf(rest) + chord_margin(view.grid, x, 0);
    const int lo = view.grid.axis_bin(x[0] - half, 0), hi = view.grid.axis_bin(x[0] + half, 0);
    lo_x = lo > lo_x ? lo : lo_x;
    hi_x = hi < hi_x ? hi : hi_x;
    return lo_x <= hi_x;
}

/// The bins lo_x..hi_x (the block's on entry) that a query at x visits in the row of bins whose
/// other coordinates are by (3D only) and bz: for ChordsQuery narrowed to the sphere's chord
/// (chord_of_row), false when the row misses it; the whole row for the other traversals.
template <class QueryT, class ViewT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE bool row_bins(const ViewT& view, const Vec<D>& x, int by, int bz, int& lo_x,
                                      int& hi_x) {
    if constexpr (std::is_same_v<QueryT, ChordsQuery>) {
        int row[D];
        row[0] = 0;
        row[D - 1] = bz;
        if constexpr (D == 3)
            row[1] = by;
        return chord_of_row(view, x, row, lo_x, hi_x);
    } else {
        (void)view, (void)x, (void)by, (void)bz, (void)lo_x, (void)hi_x;
        return true;
    }
}

/// The block of bins a query at x visits: floor((x−R)/w) .. floor((x+R)/w) per axis, clamped.
/// With a skin s (positions moved by up to s along each axis since the build), R + s plus
/// chord_margin: a neighbour within R of x now was within R + s of it at the build, in
/// exact arithmetic; the margin covers the rounding of the distance test, of the displacement
/// and of these bounds (it only widens the block).
///
/// A tight view: the bins of the query's own box, edge R (tight_axis_bins), and with a skin the
/// box widened by s plus chord_margin per side: a neighbour then was within R + s of x, so its
/// box at the build overlapped the widened one. The pair is still visited once, in the first
/// bin the two boxes share (visit_list), whatever the query box's width.
template <class ViewT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE void query_block(const ViewT& view, const Vec<D>& x, int (&lo)[D],
                                         int (&hi)[D]) {
    const float reach_without_skin = is_tight_view<ViewT> ? 0.5f * view.radius : view.radius;
    if (view.skin == nullptr) {
        SLUICE_UNROLL
        for (int k = 0; k < D; ++k) {
            if constexpr (is_tight_view<ViewT>) {
                tight_axis_bins(view.grid, x[k], reach_without_skin, k, lo[k], hi[k]);
            } else {
                lo[k] = view.grid.axis_bin(x[k] - view.radius, k);
                hi[k] = view.grid.axis_bin(x[k] + view.radius, k);
            }
        }
        return;
    }
    const float skin = load_skin(view);
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k) {
        const float reach = reach_without_skin + skin + chord_margin(view.grid, x, k);
        lo[k] = view.grid.axis_bin(x[k] - reach, k);
        hi[k] = view.grid.axis_bin(x[k] + reach, k);
    }
}

} // namespace detail

/// for_each_neighbour shared by `lanes` cooperating threads (e.g. a warp): the block's rows of
/// bins are dealt out round-robin, and the thread `lane` visits the rows r with
/// r mod lanes = lane exactly as for_each_neighbour does. A neighbour lies in one row, so the
/// lanes together visit every neighbour of x exactly once, each by one lane; combine the
/// lanes' visitors afterwards (a warp reduction). For few query points (gauges), where one
/// thread per point walks its rows one after the other and leaves most of a GPU idle.
template <class QueryT, class ViewT, class VisitorT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE void for_each_neighbour_shared(const ViewT& view, const Vec<D>& x,
                                                       std::uint32_t lane, std::uint32_t lanes,
                                                       VisitorT& visitor) {
    static_assert(std::is_invocable_v<VisitorT&, std::uint32_t, const Vec<D>&, float>,
                  "a neighbour visitor must be callable as visitor(std::uint32_t j, "
                  "const Vec<D>& rij, float r2)");
    int lo[D], hi[D], m[D];
    detail::query_block(view, x, lo, hi);
    SLUICE_UNROLL
    for (int a = 0; a < D; ++a)
        m[a] = detail::label_modulus(view, lo[a], hi[a]);
    const std::uint32_t nx = static_cast<std::uint32_t>(view.grid.dims[0]);
    const std::uint32_t ny = D == 3 ? static_cast<std::uint32_t>(view.grid.dims[1]) : 1u;
    const int steps_y = D == 3 ? detail::row_steps<QueryT>(lo[1], hi[1], m[1]) : 1;
    const int rows = steps_y * detail::row_steps<QueryT>(lo[D - 1], hi[D - 1], m[D - 1]);
    for (int r = static_cast<int>(lane); r < rows; r += static_cast<int>(lanes)) {
        const int bz = detail::row_coordinate<QueryT>(lo[D - 1], hi[D - 1], m[D - 1], r / steps_y);
        const int by = D == 3 ? detail::row_coordinate<QueryT>(lo[1], hi[1], m[1], r % steps_y) : 0;
        if (bz < 0 || by < 0)
            continue;
        int lo_x = lo[0], hi_x = hi[0];
        if (!detail::row_bins<QueryT>(view, x, by, bz, lo_x, hi_x))
            continue;
        detail::visit_row<QueryT>(
            view, x, (static_cast<std::uint32_t>(bz) * ny + static_cast<std::uint32_t>(by)) * nx,
            lo_x, hi_x, m[0], detail::row_first_axes<ViewT>(lo, by, bz), visitor);
    }
}

/// Calls visitor(j, rij, r2) once for every particle j in the view with
/// |x − x_j|² < R², where j is the view's index of the particle (bin order for NeighbourView,
/// input order for IndexedNeighbourView and LinkedListView), rij = x − x_j and r2 = |rij|².
/// If x is itself a particle of the view, it is visited too (rij = 0, r2 = 0).
/// The block of bins is floor((x−R)/w) .. floor((x+R)/w) per axis, clamped to the grid
/// (DESIGN.md; thesis eq. 6.1–6.3 for bin widths below 1).
template <class QueryT, class ViewT, class VisitorT, int D = ViewT::dimension>
SLUICE_HD SLUICE_INLINE void for_each_neighbour(const ViewT& view, const Vec<D>& x,
                                                VisitorT& visitor) {
    static_assert(std::is_invocable_v<VisitorT&, std::uint32_t, const Vec<D>&, float>,
                  "a neighbour visitor must be callable as visitor(std::uint32_t j, "
                  "const Vec<D>& rij, float r2)");
    int lo[D], hi[D];
    detail::query_block(view, x, lo, hi);
    const std::uint32_t nx = static_cast<std::uint32_t>(view.grid.dims[0]);
    if constexpr (detail::in_label_order<QueryT>) {
        // Modular, Hybrid: rows (and for Modular the bins of a row) in label order.
        int m[D];
        SLUICE_UNROLL
        for (int a = 0; a < D; ++a)
            m[a] = detail::label_modulus(view, lo[a], hi[a]);
        const std::uint32_t ny = D == 3 ? static_cast<std::uint32_t>(view.grid.dims[1]) : 1u;
        for (int kz = 0; kz < m[D - 1]; ++kz) {
            const int bz = detail::label_order_bin(lo[D - 1], hi[D - 1], m[D - 1], kz);
            if (bz < 0)
                continue;
            for (int ky = 0; ky < (D == 3 ? m[1] : 1); ++ky) {
                const int by = D == 3 ? detail::label_order_bin(lo[1], hi[1], m[1], ky) : 0;
                if (by < 0)
                    continue;
                detail::visit_row<QueryT>(
                    view, x,
                    (static_cast<std::uint32_t>(bz) * ny + static_cast<std::uint32_t>(by)) * nx,
                    lo[0], hi[0], m[0], detail::row_first_axes<ViewT>(lo, by, bz), visitor);
            }
        }
    } else if constexpr (D == 2) {
        for (int bz = lo[1]; bz <= hi[1]; ++bz) {
            int lo_x = lo[0], hi_x = hi[0];
            if (!detail::row_bins<QueryT>(view, x, 0, bz, lo_x, hi_x))
                continue;
            detail::visit_row<QueryT>(view, x, static_cast<std::uint32_t>(bz) * nx, lo_x, hi_x, 0,
                                      detail::row_first_axes<ViewT>(lo, 0, bz), visitor);
        }
    } else {
        const std::uint32_t ny = static_cast<std::uint32_t>(view.grid.dims[1]);
        for (int bz = lo[2]; bz <= hi[2]; ++bz)
            for (int by = lo[1]; by <= hi[1]; ++by) {
                int lo_x = lo[0], hi_x = hi[0];
                if (!detail::row_bins<QueryT>(view, x, by, bz, lo_x, hi_x))
                    continue;
                detail::visit_row<QueryT>(
                    view, x,
                    (static_cast<std::uint32_t>(bz) * ny + static_cast<std::uint32_t>(by)) * nx,
                    lo_x, hi_x, 0, detail::row_first_axes<ViewT>(lo, by, bz), visitor);
            }
    }
}

/// Any view a builder hands out; the host picks the instantiation once per launch with
/// std::visit (DESIGN.md).
template <int D>
using AnyNeighbourView = std::variant<NeighbourView<D>, IndexedNeighbourView<D>, LinkedListView<D>,
                                      PackedLinkedListView<D>, TightLinkedListView<D>>;

/// Host-side dispatch of a module: calls fn(QueryT{}, view) with the traversal and the view's
/// type as compile-time types (one instantiation per valid pair; no virtual calls on the
/// device). A pair no module has (a linked list with a traversal that needs a PBM) throws
/// std::logic_error; validate_neighbour_module rejects it earlier, when the module is read. So
/// does a packed list's view with a skin.
template <int D, class FnT>
void dispatch_neighbour_query(const QueryTag& query, const AnyNeighbourView<D>& view, FnT&& fn) {
    std::visit(
        [&fn](auto q, const auto& v) {
            using QueryT = decltype(q);
            using ViewT = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<ViewT, PackedLinkedListView<ViewT::dimension>>)
                if (v.skin != nullptr) // its nodes hold the build's positions, not moved ones
                    throw std::logic_error("a linked-list-packed view takes no skin");
            if constexpr (traversal_walks_view<QueryT, ViewT>)
                fn(q, v);
            else
                throw std::logic_error(std::string("neighbour query '") + QueryT::name +
                                       "' cannot walk a linked list");
        },
        query, view);
}

} // namespace sluice
