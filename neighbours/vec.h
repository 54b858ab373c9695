#pragma once
/// \file vec.h
/// Small fixed-size vectors shared by host and device code, and the SLUICE_HD macro.
///
/// Axes: in 3D (x, y, z); in 2D the x–z plane (component 0 = x, component 1 = z), as
/// DualSPHysics. The vertical axis is always component D−1.

#include <cmath>

#if defined(__CUDACC__)
#define SLUICE_HD __host__ __device__
#define SLUICE_INLINE __forceinline__
#define SLUICE_UNROLL _Pragma("unroll")
#else
#define SLUICE_HD
#define SLUICE_INLINE inline
#define SLUICE_UNROLL
#endif

namespace sluice {

/// A D-component float vector (D = 2 or 3). 3D vectors are padded to 16 bytes and 2D ones are
/// 8-byte aligned so that a device load is one 128- or 64-bit transaction; the padding
/// component is kept at zero. Value-initialisation (`Vec<D>{}`) gives the zero vector.
template <int D>
struct alignas(D == 3 ? 16 : 8) Vec {
    static_assert(D == 2 || D == 3, "sluice supports 2D and 3D only");
    static constexpr int dimension = D;
    static constexpr int stored = D == 3 ? 4 : 2;
    float c[stored];

    SLUICE_HD SLUICE_INLINE float& operator[](int axis) { return c[axis]; }
    SLUICE_HD SLUICE_INLINE const float& operator[](int axis) const { return c[axis]; }
};

template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> operator+(const Vec<D>& a, const Vec<D>& b) {
    Vec<D> r{};
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        r[k] = a[k] + b[k];
    return r;
}

template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> operator-(const Vec<D>& a, const Vec<D>& b) {
    Vec<D> r{};
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        r[k] = a[k] - b[k];
    return r;
}

template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> operator*(float s, const Vec<D>& a) {
    Vec<D> r{};
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        r[k] = s * a[k];
    return r;
}

template <int D>
SLUICE_HD SLUICE_INLINE Vec<D>& operator+=(Vec<D>& a, const Vec<D>& b) {
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        a[k] += b[k];
    return a;
}

template <int D>
SLUICE_HD SLUICE_INLINE Vec<D>& operator-=(Vec<D>& a, const Vec<D>& b) {
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        a[k] -= b[k];
    return a;
}

template <int D>
SLUICE_HD SLUICE_INLINE float dot(const Vec<D>& a, const Vec<D>& b) {
    float s = 0.0f;
    SLUICE_UNROLL
    for (int k = 0; k < D; ++k)
        s += a[k] * b[k];
    return s;
}

template <int D>
SLUICE_HD SLUICE_INLINE float norm2(const Vec<D>& a) {
    return dot(a, a);
}

} // namespace sluice
