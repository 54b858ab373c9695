#pragma once
/// \file view.h
/// What a neighbour query reads (DESIGN.md, the neighbour contract): the search geometry, the
/// two views over a PBM (reorder and index layouts), the distance every query and the brute-force
/// reference compute, and the loads the traversals share. The linked lists' views are in
/// list_views.h, the traversals in query.h.

#include "grid.h"
#include "vec.h"

#include <cstdint>

namespace sluice {

/// What every view holds besides its arrays: the grid, the search radius and an optional skin.
/// set_search() is the one place that derives R² from R.
template <int D>
struct SearchGeometry {
    static constexpr int dimension = D;
    GridSpec<D> grid;
    float radius = 0.0f;  ///< search radius R (m)
    float radius2 = 0.0f; ///< R², computed as radius * radius in float
    /// Optional: → the largest distance along any axis a particle has moved since the build
    /// (m; null: none). The query then reads positions that are no longer the build's, and
    /// widens its block by that much (query_block) so that it stays exact. Every view but the
    /// packed linked list's takes one (its nodes are copies of the build's positions).
    const float* skin = nullptr;

    void set_search(const GridSpec<D>& g, float r) {
        grid = g;
        radius = r;
        radius2 = r * r;
    }
};

/// What a query reads, one struct per layout (DESIGN.md; module.h's Construction and Layout).
/// Each is trivially copyable (kernels take it by value) and names, for every particle it holds,
/// the index j it hands to a visitor: the caller's particle arrays must be in that order.
/// Pointers are device pointers on the CUDA backend, host ones on the CPU backend. On the device
/// the query reads them through the read-only data cache: a kernel that queries a view must not
/// write the arrays it points to (write to another array).
///
/// Layout::reorder over a PBM (counting-sort, radix-sort): positions in bin order; j is the
/// bin-order index, so the caller's arrays are gathered into bin order after each build.
template <int D>
struct NeighbourView : SearchGeometry<D> {
    const std::uint32_t* pbm = nullptr; ///< grid.bin_count()+1 entries; pbm[b]..pbm[b+1] = bin b
    const Vec<D>* positions = nullptr;  ///< in bin order

    /// Number of particles the PBM covers (excluded ones are not counted).
    SLUICE_HD SLUICE_INLINE std::uint32_t size() const { return pbm[this->grid.bin_count()]; }
};

/// Layout::index over a PBM (paper 003's indexing method): the query walks the bin order through
/// the permutation and reads positions in the input order; j is the input index, so the caller's
/// arrays stay in their order (no gather).
template <int D>
struct IndexedNeighbourView : SearchGeometry<D> {
    const std::uint32_t* pbm = nullptr;         ///< as NeighbourView's
    const std::uint32_t* permutation = nullptr; ///< bin-order position k → input index
    const Vec<D>* positions = nullptr;          ///< in the input order

    SLUICE_HD SLUICE_INLINE std::uint32_t size() const { return pbm[this->grid.bin_count()]; }
};

/// Squared distance used by every query and by the brute-force reference. On the device the
/// products and sums are rounded one by one (no fused multiply-add), exactly as the host computes
/// them, so the CPU and CUDA backends find bit-identical neighbour sets.
template <int D>
SLUICE_HD SLUICE_INLINE float neighbour_distance2(const Vec<D>& rij) {
#if defined(__CUDA_ARCH__)
    float s = __fmul_rn(rij[0], rij[0]);
    SLUICE_UNROLL
    for (int k = 1; k < D; ++k)
        s = __fadd_rn(s, __fmul_rn(rij[k], rij[k]));
    return s;
#else
    return norm2(rij);
#endif
}

namespace detail {

/// A position of the view. On the device: one 16-byte (3D) or 8-byte (2D) load through the
/// read-only data cache, which the compiler may hoist above the visitor's stores.
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> load_position(const Vec<D>* p) {
#if defined(__CUDA_ARCH__)
    Vec<D> v;
    if constexpr (D == 3) {
        const float4 q = __ldg(reinterpret_cast<const float4*>(p));
        v.c[0] = q.x, v.c[1] = q.y, v.c[2] = q.z, v.c[3] = q.w;
    } else {
        const float2 q = __ldg(reinterpret_cast<const float2*>(p));
        v.c[0] = q.x, v.c[1] = q.y;
    }
    return v;
#else
    return *p;
#endif
}

/// A PBM entry (read-only cache on the device).
SLUICE_HD SLUICE_INLINE std::uint32_t load_pbm(const std::uint32_t* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

/// The view's skin (0 without one); read-only cache on the device.
template <class ViewT>
SLUICE_HD SLUICE_INLINE float load_skin(const ViewT& view) {
    if (view.skin == nullptr)
        return 0.0f;
#if defined(__CUDA_ARCH__)
    return __ldg(view.skin);
#else
    return *view.skin;
#endif
}

} // namespace detail
} // namespace sluice
