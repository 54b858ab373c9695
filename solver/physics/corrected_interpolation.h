#pragma once
/// \file corrected_interpolation.h
/// The first-order-corrected SPH interpolation of a field f at a point x (Liu & Liu 2006, Appl.
/// Numer. Math. 56, 19–36, eqs. 20–22; the form mDBC uses, English et al. 2022 eqs. 8–10), one
/// source for mDBC's ghost nodes (mdbc.h) and the wall pressure sensors (gauges.h): with
/// V_j = m_j/ρ_j, r_j = x_j − x and ∇W = ∇_x W(x − x_j) over the neighbours j a caller keeps,
///
///   | Σ V W       Σ V W r_j^T      | | f(x)  |   | Σ V W f_j  |
///   | Σ V ∇W      Σ V ∇W ⊗ r_j     | | ∇f(x) | = | Σ V ∇W f_j |,
///
/// exact for a linear field. The matrix's determinant is dimensionless (row 0 has units 1, m;
/// the others 1/m, 1). Where |det| < 10⁻³ (DualSPHysics's `determlimit` for mDBC's first
/// order) the Shepard value Σ V W f_j / Σ V W is taken instead; with no neighbour, none.

#include "neighbours/vec.h"
#include "physics/kernels.h"

#include <cmath>

namespace sluice {

/// |det A| below which the corrected interpolation falls back to Shepard's (dimensionless).
constexpr float corrected_determinant_limit = 1e-3f;

/// The sums of the corrected interpolation at one point. Row/column 0 is the value, 1…D the
/// gradient's components. Sums of disjoint neighbour sets add (processes, warp lanes).
template <int D>
struct CorrectedSums {
    float a[D + 1][D + 1] = {}; ///< A (first row: Σ V W, Σ V W r_j; then Σ V ∇W, Σ V ∇W ⊗ r_j)
    float b[D + 1] = {};        ///< Σ V W f_j, Σ V ∇W f_j

    /// Neighbour j: rij = x − x_j (the query's), vw = V_j·W, vfac = V_j·F (∇W = rij·F), its f_j.
    SLUICE_HD SLUICE_INLINE void add(const Vec<D>& rij, float vw, float vfac, float f) {
        a[0][0] += vw;
        b[0] += vw * f;
        for (int k = 0; k < D; ++k) {
            const float vgrad = vfac * rij[k];
            a[0][k + 1] -= vw * rij[k]; // r_j = −rij
            a[k + 1][0] += vgrad;
            b[k + 1] += vgrad * f;
            for (int l = 0; l < D; ++l)
                a[k + 1][l + 1] -= vgrad * rij[l];
        }
    }
};

/// Solves the (N × N) system a·x = b in double by Gaussian elimination with partial pivoting;
/// returns det(a) (0 when singular, x then unspecified). Every loop is unrolled and the pivot
/// row is brought up by compare-and-swap with each row below in turn, so that every index is a
/// constant and the arrays stay in registers on the GPU (a pivot row chosen by index put them in
/// local memory: Nsight Compute found 98 MB of local traffic per mDBC pass at 10⁶ particles).
/// The row that ends up as the pivot is the first of the largest |a[r][k]|, as with a search;
/// the order of the others differs, which changes a later pivot only between rows of equal
/// |a[r][k]| (and then the rounding alone).
template <int N>
SLUICE_HD SLUICE_INLINE double solve_small(const float (&a_in)[N][N], const float (&b_in)[N],
                                           double (&x)[N]) {
    double a[N][N], b[N];
    SLUICE_UNROLL
    for (int r = 0; r < N; ++r) {
        b[r] = b_in[r];
        SLUICE_UNROLL
        for (int c = 0; c < N; ++c)
            a[r][c] = a_in[r][c];
    }
    double det = 1.0;
    SLUICE_UNROLL
    for (int k = 0; k < N; ++k) {
        SLUICE_UNROLL
        for (int r = k + 1; r < N; ++r) {
            const bool swap = fabs(a[r][k]) > fabs(a[k][k]);
            SLUICE_UNROLL
            for (int c = k; c < N; ++c) {
                const double t = a[k][c];
                a[k][c] = swap ? a[r][c] : t;
                a[r][c] = swap ? t : a[r][c];
            }
            const double t = b[k];
            b[k] = swap ? b[r] : t;
            b[r] = swap ? t : b[r];
            det = swap ? -det : det;
        }
        if (a[k][k] == 0.0)
            return 0.0;
        det *= a[k][k];
        SLUICE_UNROLL
        for (int r = k + 1; r < N; ++r) {
            const double f = a[r][k] / a[k][k];
            SLUICE_UNROLL
            for (int c = k; c < N; ++c)
                a[r][c] -= f * a[k][c];
            b[r] -= f * b[k];
        }
    }
    SLUICE_UNROLL
    for (int r = N - 1; r >= 0; --r) {
        double s = b[r];
        SLUICE_UNROLL
        for (int c = r + 1; c < N; ++c)
            s -= a[r][c] * x[c];
        x[r] = s / a[r][r];
    }
    return det;
}

/// The interpolated value and gradient (x[0], x[1…D]) from the sums: first order where the
/// matrix allows it (returns true), else Shepard's value with a zero gradient (false). The
/// caller checks a[0][0] > 0 (some neighbour) first.
template <int D>
SLUICE_HD SLUICE_INLINE bool corrected_value(const CorrectedSums<D>& s, double (&x)[D + 1]) {
    const double det = solve_small<D + 1>(s.a, s.b, x);
    if (fabs(det) >= corrected_determinant_limit && fabs(x[0]) < 1e30) // NaN fails too
        return true;
    x[0] = static_cast<double>(s.b[0]) / s.a[0][0];
    for (int k = 1; k <= D; ++k)
        x[k] = 0.0;
    return false;
}

} // namespace sluice
