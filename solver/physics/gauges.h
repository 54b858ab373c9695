#pragma once
/// \file gauges.h
/// What a gauge measures at a point, as neighbour-query visitors (DESIGN.md: a gauge point is
/// just another query point). One source for both backends, like the interaction terms.
///
/// Fluid fraction and Shepard interpolation over the fluid neighbours j of a point x (boundary
/// particles are not fluid and are left out):
///   φ(x) = Σ_j V_j W(|x − x_j|, h),  V_j = m / ρ_j                      (fluid fraction)
///   f(x) = Σ_j f_j V_j W / Σ_j V_j W                          (Shepard 1968 normalisation)
/// φ is ≈ 1 inside the fluid and falls through ½ at a free surface (the kernel's half-space
/// integral), so the ½-level of φ on a vertical line is the water height (Monaghan 2005, §5.3
/// uses the same fraction for surfaces; DualSPHysics's MeasureTool takes a mass threshold).

#include "io/gauge_samples.h"
#include "neighbours/vec.h"
#include "physics/corrected_interpolation.h"
#include "physics/physics.h"

#include <cstdint>

namespace sluice {

/// Kernel sums at one query point; Shepard values are the numerators over `w`.
template <int D>
struct GaugeSums {
    float w = 0.0f;          ///< φ = Σ V_j W (dimensionless)
    float w_density = 0.0f;  ///< Σ V_j W ρ_j (kg/m³)
    float w_pressure = 0.0f; ///< Σ V_j W p_j (Pa)
    Vec<D> w_velocity{};     ///< Σ V_j W v_j (m/s)
};

/// Accumulates GaugeSums over the fluid neighbours of a query point. ParticlesT is a particle
/// layout offering motion(j) (ParticlesView, PackedParticlesView); the query calls it only for
/// r < R (neighbours/query.h).
template <int D, class KernelT, class ParticlesT>
struct GaugeVisitor {
    ParticlesT particles;
    KernelT kernel;
    FluidConstants c;
    GaugeSums<D> sums{};

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>&, float r2) {
        const NeighbourMotion<D> m = particles.motion(j);
        if (!m.fluid)
            return;
        const float vw = kernel.value(sqrtf(r2)) * c.mass / m.density;
        sums.w += vw;
        sums.w_density += vw * m.density;
        sums.w_pressure += vw * tait_pressure(c, m.density);
        sums.w_velocity = sums.w_velocity + vw * m.velocity;
    }
};

/// Point k (x-fastest order) of a grid (io/gauge_samples.h, FractionGrid): origin + (i, j, l)·
/// spacing; in 2D (x, z) = origin + (i, j)·spacing. One source for both backends, so they sample
/// the same points.
template <int D>
SLUICE_HD SLUICE_INLINE Vec<D> grid_point(const FractionGrid& g, std::uint64_t k) {
    const auto i = static_cast<std::uint32_t>(k % g.counts[0]);
    const std::uint64_t row = k / g.counts[0];
    Vec<D> p;
    p[0] = g.origin[0] + static_cast<float>(i) * g.spacing;
    p[1] =
        g.origin[1] + static_cast<float>(static_cast<std::uint32_t>(row % g.counts[1])) * g.spacing;
    if constexpr (D == 3)
        p[2] = g.origin[2] +
               static_cast<float>(static_cast<std::uint32_t>(row / g.counts[1])) * g.spacing;
    return p;
}

/// A pressure sensor's sums: the corrected interpolation (corrected_interpolation.h) of the
/// boundary particles' pressure f_j = p_j at a point x_s on a wall surface, solved on the host
/// (case/gauge_plan.cpp); the sums of the processes that see parts of the neighbourhood add up.
template <int D>
using WallSensorSums = CorrectedSums<D>;

/// Accumulates WallSensorSums over the boundary neighbours of a wall point (fluid particles are
/// left out: the sensor reads the wall's own pressure). rij = x_s − x_j, r < R (neighbours/
/// query.h). p_j = tait_pressure(ρ_j), as the interaction pass takes it.
template <int D, class KernelT, class ParticlesT>
struct WallSensorVisitor {
    ParticlesT particles;
    KernelT kernel;
    FluidConstants c;
    WallSensorSums<D> sums{};

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>& rij, float r2) {
        const NeighbourMotion<D> m = particles.motion(j);
        if (m.fluid)
            return;
        const float r = sqrtf(r2);
        const float volume = c.mass / m.density;
        sums.add(rij, volume * kernel.value(r), volume * kernel.grad_factor(r),
                 tait_pressure(c, m.density));
    }
};

/// WallSensorSums as the response's flat WallSums (io/gauge_samples.h): A row by row, then b.
/// Host only (the backends copy the sums to the host first).
template <int D, class ArrayT>
inline void flatten(const WallSensorSums<D>& s, ArrayT& out) {
    int k = 0;
    for (int r = 0; r <= D; ++r)
        for (int q = 0; q <= D; ++q)
            out[k++] = s.a[r][q];
    for (int r = 0; r <= D; ++r)
        out[k++] = s.b[r];
}

/// Whether fluid particle `self` has another fluid particle within sqrt(limit2) (the front
/// gauge's test that a particle is part of the body of water, not a droplet ahead of it).
template <int D, class ParticlesT>
struct FluidNeighbourVisitor {
    ParticlesT particles;
    std::uint32_t self;
    float limit2; ///< m²
    bool found = false;

    SLUICE_HD SLUICE_INLINE void operator()(std::uint32_t j, const Vec<D>&, float r2) {
        if (j != self && r2 < limit2 && particles.motion(j).fluid)
            found = true;
    }
};

/// A float's order as an unsigned integer (so a maximum can be taken with atomicMax on bits):
/// larger floats map to larger keys, negatives included.
SLUICE_HD SLUICE_INLINE std::uint32_t ordered_key(float x) {
    std::uint32_t bits;
    static_assert(sizeof bits == sizeof x, "float is 32-bit");
#if defined(__CUDA_ARCH__)
    bits = __float_as_uint(x);
#else
    __builtin_memcpy(&bits, &x, sizeof bits);
#endif
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

SLUICE_HD SLUICE_INLINE float from_ordered_key(std::uint32_t key) {
    const std::uint32_t bits = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
    float x;
#if defined(__CUDA_ARCH__)
    x = __uint_as_float(bits);
#else
    __builtin_memcpy(&x, &bits, sizeof x);
#endif
    return x;
}

} // namespace sluice
