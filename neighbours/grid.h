#pragma once
/// \file grid.h
/// The uniform grid of bins (thesis ch. 2.5): geometry and the particle → bin mapping that every
/// builder (CPU and CUDA) and every query shares, so that they agree bit for bit.

#include "vec.h"

#include <cstdint>

namespace sluice {

/// Geometry of a uniform grid. Bin (b_0, …, b_{D−1}) covers
/// [origin + b·bin_size, origin + (b+1)·bin_size) per axis. Bins are numbered with axis 0 (x)
/// fastest, so a row of bins along x is contiguous in bin order (what Strips relies on).
template <int D>
struct GridSpec {
    Vec<D> origin{};       ///< m, lower corner of bin 0
    float bin_size = 1.0f; ///< m, edge of a (cubic) bin = binWidth · R
    float inv_bin_size = 1.0f;
    int dims[D] = {}; ///< bins per axis, each ≥ 1

    SLUICE_HD SLUICE_INLINE std::uint32_t bin_count() const {
        std::uint32_t count = 1;
        SLUICE_UNROLL
        for (int k = 0; k < D; ++k)
            count *= static_cast<std::uint32_t>(dims[k]);
        return count;
    }

    /// Continuous bin coordinate of x along an axis (unclamped). Monotone in x: both the
    /// builders and the query block bounds go through it, which is what makes the query exact
    /// in float arithmetic (see query.h).
    SLUICE_HD SLUICE_INLINE float axis_coordinate(float x, int axis) const {
        return (x - origin[axis]) * inv_bin_size;
    }

    /// Bin index along an axis, clamped into [0, dims−1]; NaN maps to 0.
    SLUICE_HD SLUICE_INLINE int axis_bin(float x, int axis) const {
        float c = axis_coordinate(x, axis);
        // fmaxf/fminf return the non-NaN operand, so NaN lands in bin 0, never in UB.
        c = fminf(fmaxf(c, 0.0f), static_cast<float>(dims[axis] - 1));
        return static_cast<int>(c);
    }

    /// True when x lies inside the grid box [origin, origin + dims·bin_size) on every axis.
    /// NaN is outside.
    SLUICE_HD SLUICE_INLINE bool contains(const Vec<D>& x) const {
        bool inside = true;
        SLUICE_UNROLL
        for (int k = 0; k < D; ++k) {
            const float c = axis_coordinate(x[k], k);
            inside = inside && (c >= 0.0f) && (c < static_cast<float>(dims[k]));
        }
        return inside;
    }

    /// Linear bin index of per-axis bin indices (x fastest).
    SLUICE_HD SLUICE_INLINE std::uint32_t linear_bin(const int (&b)[D]) const {
        std::uint32_t index = static_cast<std::uint32_t>(b[D - 1]);
        SLUICE_UNROLL
        for (int k = D - 2; k >= 0; --k)
            index = index * static_cast<std::uint32_t>(dims[k]) + static_cast<std::uint32_t>(b[k]);
        return index;
    }

    /// Linear bin of a position, clamped into the grid.
    SLUICE_HD SLUICE_INLINE std::uint32_t bin_of(const Vec<D>& x) const {
        int b[D];
        SLUICE_UNROLL
        for (int k = 0; k < D; ++k)
            b[k] = axis_bin(x[k], k);
        return linear_bin(b);
    }
};

/// What a builder does with a position outside the grid box.
enum class OutsidePolicy {
    clamp,  ///< put it in the nearest edge bin; queries stay exact (clamping is monotone)
    exclude ///< leave it out of the PBM: it is sorted after every binned particle,
            ///< pbm[nbins] counts only the binned ones, and queries never see it
};

/// The sort key of a position, shared by every builder (CPU and CUDA): its linear bin, or
/// grid.bin_count() — which sorts after every real bin — for a position that `policy` excludes.
template <int D>
SLUICE_HD SLUICE_INLINE std::uint32_t bin_key(const GridSpec<D>& grid, const Vec<D>& x,
                                              OutsidePolicy policy) {
    if (policy == OutsidePolicy::exclude && !grid.contains(x))
        return grid.bin_count();
    return grid.bin_of(x);
}

/// Builds the grid that covers the box [lo, hi] with bins of edge bin_width · radius.
/// Every axis gets at least one bin; the upper edge is rounded up to a whole bin.
/// \throws std::invalid_argument on a non-positive radius, a bin width outside (0, 1], an empty
///         or inverted box, or more than max_bins bins (the message gives the count).
template <int D>
GridSpec<D> make_grid(const Vec<D>& lo, const Vec<D>& hi, float radius, float bin_width,
                      std::uint64_t max_bins = std::uint64_t{1} << 31);

} // namespace sluice
