#pragma once
/// \file list_views.h
/// The three linked-list grids of Barbieri, Cardellini & Filippone, "Fast uniform grid
/// construction on GPGPUs using atomic operations" (papers/004): their views and how a query
/// walks one bin's list. None has a PBM or a bin order, so only traversals that walk bin by bin
/// (moore, modular) apply, and j is always the input index (Layout::index).
///
/// - LinkedListView (§2, "Linked List Loose"): each particle on its own bin's list; a step
///   reads the candidate's position and its `next`, two streams.
/// - PackedLinkedListView (§2 last paragraph, "Linked List Loose Packed" of §3): the same
///   lists, with each particle's `next` packed beside its position in one 16-byte node, so a
///   step is one load. The paper packs into the 4 bytes of padding after a float3; sluice's 3D
///   positions carry the solver's p/ρ² in that word (solver/backends/cuda/packed_particles.h)
///   and 2D positions have none, so the build writes a node per particle, a copy of its
///   position (16 bytes written per particle instead of a 4-byte next). The nodes are the
///   build's positions: the view takes no skin (a solver rebuilds it each pass, as every index
///   layout is).
/// - TightLinkedListView (§1 "Tight Uniform Grids", "Linked List Tight" of §3): each particle
///   has a box of edge R about it, and is listed in every bin that box touches; two particles
///   closer than R have overlapping boxes, hence a bin in common, so a query walks only the
///   bins its own box touches (2^D at binWidth 1, against 3^D for the loose grid). A list entry
///   is the particle with two bits per axis, its bin's offset from the first bin of its box
///   (the paper's "last three bits"), and the pair is visited only in the first bin the two
///   boxes share: on each axis the bin is the first of the query's box or of the candidate's
///   (the paper's bitmask test, decided before the candidate's position is read).

#include "grid.h"
#include "vec.h"
#include "view.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace sluice {

/// The linked-list grid (Barbieri et al. §2): heads[b] is the first particle of bin b's list
/// (list_end: empty) and next[i] the one after particle i; no bin order at all. j is the input
/// index. Lists visit a bin's particles in no specified order (atomics).
template <int D>
struct LinkedListView : SearchGeometry<D> {
    static constexpr std::uint32_t list_end = 0xFFFFFFFFu;
    const std::uint32_t* heads = nullptr;  ///< grid.bin_count() entries
    const std::uint32_t* next = nullptr;   ///< one per particle
    const Vec<D>* positions = nullptr;     ///< in the input order
    const std::uint32_t* binned = nullptr; ///< → number of particles in the lists

    SLUICE_HD SLUICE_INLINE std::uint32_t size() const { return *binned; }
};

/// A node of the packed list: the particle's position as the build read it (components D..2
/// zero) and the next particle of its bin's list (LinkedListView::list_end: the last), one
/// 16-byte load on the device.
struct alignas(16) PackedListNode {
    float c[3];
    std::uint32_t next;
};

/// The packed linked list: heads as LinkedListView's, nodes[i] = particle i's position and next.
template <int D>
struct PackedLinkedListView : SearchGeometry<D> {
    static constexpr std::uint32_t list_end = LinkedListView<D>::list_end;
    const std::uint32_t* heads = nullptr;  ///< grid.bin_count() entries
    const PackedListNode* nodes = nullptr; ///< one per particle, in the input order
    /// The positions the build read (input order). The traversal reads the nodes' copies; this
    /// is for callers that need the build's input.
    const Vec<D>* positions = nullptr;
    const std::uint32_t* binned = nullptr; ///< → number of particles in the lists

    SLUICE_HD SLUICE_INLINE std::uint32_t size() const { return *binned; }
};

/// The tight grid: heads[b] is the first entry of bin b's list, next[e] the entry after entry e.
/// Entry e = (j << entry_shift) | offsets, where j is the particle and bits 2a, 2a+1 of
/// `offsets` hold the bin's coordinate along axis a less the first bin of j's box along a (0..3).
/// next has 4^D slots per particle (64 in 3D), of which a particle uses one per bin its box
/// touches; a build of n particles needs n · 4^D < 2^32.
template <int D>
struct TightLinkedListView : SearchGeometry<D> {
    static constexpr std::uint32_t list_end = LinkedListView<D>::list_end;
    static constexpr int bits_per_axis = 2;
    static constexpr int entry_shift = bits_per_axis * D;
    static constexpr std::uint32_t slots_per_particle = 1u << entry_shift;
    const std::uint32_t* heads = nullptr;  ///< grid.bin_count() entries
    const std::uint32_t* next = nullptr;   ///< slots_per_particle per particle
    const Vec<D>* positions = nullptr;     ///< in the input order
    const std::uint32_t* binned = nullptr; ///< → number of particles in the lists

    SLUICE_HD SLUICE_INLINE std::uint32_t size() const { return *binned; }
};

/// Whether a view is one of the linked lists (walked bin by bin, no PBM).
template <class ViewT>
constexpr bool is_list_view = std::is_same_v<ViewT, LinkedListView<ViewT::dimension>> ||
                              std::is_same_v<ViewT, PackedLinkedListView<ViewT::dimension>> ||
                              std::is_same_v<ViewT, TightLinkedListView<ViewT::dimension>>;
template <class ViewT>
constexpr bool is_tight_view = std::is_same_v<ViewT, TightLinkedListView<ViewT::dimension>>;

namespace detail {

/// The bins a tight box touches along one axis: [lo, hi] from the box [x − h, x + h], h = R/2
/// (exact in float), hi at most lo + 3 (two bits). The builder and the query both compute it
/// this way. Exactness: a neighbour (neighbour_distance2 < R², so |fl(x_j − x)| < R per axis,
/// hence |x_j − x| < R in exact arithmetic) has x_j − h < x + h and x − h < x_j + h exactly;
/// rounding and axis_bin (clamped) are monotone, so lo_j ≤ hi and lo ≤ hi_j: the two ranges
/// share a bin. The clamp to lo + 3 never acts where tight_grid_supported holds (the box then
/// spans at most 2.75 bins in float), so the ranges are the boxes' own.
template <int D>
SLUICE_HD SLUICE_INLINE void tight_axis_bins(const GridSpec<D>& grid, float x, float half, int axis,
                                             int& lo, int& hi) {
    lo = grid.axis_bin(x - half, axis);
    const int top = grid.axis_bin(x + half, axis);
    hi = top < lo + 3 ? top : lo + 3;
}

/// Whether a tight box of edge `radius` spans at most 4 bins per axis in float on this grid:
/// radius ≤ 2.25 bins (binWidth ≥ 0.5 gives 2), and every bin coordinate the grid and its
/// neighbourhood use below 2^20, so that each end of the box is rounded by less than 1/4 bin
/// (relative errors of 2^-24 in x ± h, in the subtraction of the origin and in the two
/// multiplications by 1/bin_size).
template <int D>
inline bool tight_grid_supported(const GridSpec<D>& grid, float radius) {
    if (!(radius * grid.inv_bin_size <= 2.25f))
        return false;
    for (int k = 0; k < D; ++k)
        if (!(std::fabs(grid.origin[k]) * grid.inv_bin_size + static_cast<float>(grid.dims[k]) +
                  2.0f <
              1048576.0f))
            return false;
    return true;
}

/// Refuses n particles whose tight entries overflow 32 bits (std::length_error).
template <int D>
inline void check_tight_count(std::uint64_t n) {
    constexpr std::uint64_t slots = TightLinkedListView<D>::slots_per_particle;
    if (n * slots > TightLinkedListView<D>::list_end)
        throw std::length_error("linked-list-tight: " + std::to_string(n) +
                                " particles need more than 2^32 list entries (at most " +
                                std::to_string(TightLinkedListView<D>::list_end / slots) + ")");
}

/// Refuses a tight build the entries cannot hold exactly: std::invalid_argument where
/// !tight_grid_supported, std::length_error as check_tight_count.
template <int D>
inline void check_tight_build(const GridSpec<D>& grid, float radius, std::uint64_t n) {
    if (!tight_grid_supported(grid, radius))
        throw std::invalid_argument(
            "linked-list-tight: a box of edge R must span at most 4 bins per axis in float "
            "(binWidth >= 0.5, and fewer than 2^20 bins between the origin and the grid's far "
            "side on every axis)");
    check_tight_count<D>(n);
}

/// Calls fn(b, offsets) for every bin b of the block [lo, hi] (bin coordinates per axis, at
/// most 4 per axis), offsets = b − lo packed two bits per axis, axis 0 lowest: the entry's low
/// bits (TightLinkedListView). Bins in bin order (x fastest).
template <int D, class FnT>
SLUICE_HD SLUICE_INLINE void for_each_tight_bin(const int (&lo)[D], const int (&hi)[D], FnT&& fn) {
    int b[D];
    if constexpr (D == 3) {
        for (b[2] = lo[2]; b[2] <= hi[2]; ++b[2])
            for (b[1] = lo[1]; b[1] <= hi[1]; ++b[1])
                for (b[0] = lo[0]; b[0] <= hi[0]; ++b[0])
                    fn(b, static_cast<std::uint32_t>((b[0] - lo[0]) | (b[1] - lo[1]) << 2 |
                                                     (b[2] - lo[2]) << 4));
    } else {
        for (b[1] = lo[1]; b[1] <= hi[1]; ++b[1])
            for (b[0] = lo[0]; b[0] <= hi[0]; ++b[0])
                fn(b, static_cast<std::uint32_t>((b[0] - lo[0]) | (b[1] - lo[1]) << 2));
    }
}

/// A packed node of position x (its D components) and next.
template <int D>
SLUICE_HD SLUICE_INLINE PackedListNode pack_node(const Vec<D>& x, std::uint32_t next) {
    PackedListNode node{{0.0f, 0.0f, 0.0f}, next};
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        node.c[k] = x[k];
    return node;
}

/// LinkedListView: walks bin b's list (Barbieri et al. §2, Alg. "cell list traversal"): each
/// step's position and successor loads depend on the one before, the price of no sort.
template <int D, class VisitorT>
SLUICE_HD SLUICE_INLINE void visit_list(const LinkedListView<D>& view, const Vec<D>& x,
                                        std::uint32_t bin, std::uint32_t, VisitorT& visitor) {
    for (std::uint32_t j = load_pbm(view.heads + bin); j != LinkedListView<D>::list_end;) {
        const Vec<D> xj = load_position(view.positions + j);
        const std::uint32_t after = load_pbm(view.next + j);
        const Vec<D> rij = x - xj;
        const float r2 = neighbour_distance2(rij);
        if (r2 < view.radius2)
            visitor(j, rij, r2);
        j = after;
    }
}

/// A packed node (one 16-byte load through the read-only cache on the device).
SLUICE_HD SLUICE_INLINE PackedListNode load_node(const PackedListNode* p) {
#if defined(__CUDA_ARCH__)
    const uint4 q = __ldg(reinterpret_cast<const uint4*>(p));
    PackedListNode node;
    node.c[0] = __uint_as_float(q.x), node.c[1] = __uint_as_float(q.y);
    node.c[2] = __uint_as_float(q.z), node.next = q.w;
    return node;
#else
    return *p;
#endif
}

/// PackedLinkedListView: as the loose list, a node per step (position and successor at once).
template <int D, class VisitorT>
SLUICE_HD SLUICE_INLINE void visit_list(const PackedLinkedListView<D>& view, const Vec<D>& x,
                                        std::uint32_t bin, std::uint32_t, VisitorT& visitor) {
    for (std::uint32_t j = load_pbm(view.heads + bin); j != PackedLinkedListView<D>::list_end;) {
        const PackedListNode node = load_node(view.nodes + j);
        Vec<D> xj{};
        SLUICE_UNROLL
        for (int k = 0; k < D; ++k)
            xj[k] = node.c[k];
        const Vec<D> rij = x - xj;
        const float r2 = neighbour_distance2(rij);
        if (r2 < view.radius2)
            visitor(j, rij, r2);
        j = node.next;
    }
}

/// The entry's axes on which its bin is not the first of its particle's box: bit 2a set for
/// axis a (the other bits clear).
template <int D>
SLUICE_HD SLUICE_INLINE std::uint32_t offset_axes(std::uint32_t entry) {
    constexpr std::uint32_t low_bits = D == 3 ? 0x15u : 0x5u; // bit 2a of every axis a
    return (entry | (entry >> 1)) & low_bits;
}

/// TightLinkedListView: walks bin b's list; `first_axes` has bit 2a set where b is the first
/// bin of the query's box along axis a. An entry is visited only where, on every axis, b is the
/// first bin of the query's box or of the entry's: the first bin the boxes share, so each pair
/// once. The test needs only the entry, so a skipped entry costs no position load.
template <int D, class VisitorT>
SLUICE_HD SLUICE_INLINE void visit_list(const TightLinkedListView<D>& view, const Vec<D>& x,
                                        std::uint32_t bin, std::uint32_t first_axes,
                                        VisitorT& visitor) {
    using View = TightLinkedListView<D>;
    for (std::uint32_t e = load_pbm(view.heads + bin); e != View::list_end;) {
        const std::uint32_t after = load_pbm(view.next + e);
        if ((offset_axes<D>(e) & ~first_axes) == 0) {
            const std::uint32_t j = e >> View::entry_shift;
            const Vec<D> rij = x - load_position(view.positions + j);
            const float r2 = neighbour_distance2(rij);
            if (r2 < view.radius2)
                visitor(j, rij, r2);
        }
        e = after;
    }
}

} // namespace detail
} // namespace sluice
