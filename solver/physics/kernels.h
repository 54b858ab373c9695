#pragma once
/// \file kernels.h
/// SPH smoothing kernels as value structs with precomputed constants, shared by the CPU backend
/// and CUDA kernels (no static state, no function pointers).
///
/// Every kernel gives W(r) (1/m^D) and the gradient factor F(r) (1/m^(D+2)) with
/// ∇_i W_ij = r_ij · F(r), r_ij = x_i − x_j, r = |r_ij|. The support is r < 2h (q = r/h < 2);
/// both functions return 0 outside it.

#include "neighbours/vec.h"

namespace sluice {

namespace detail {
constexpr double pi = 3.14159265358979323846;
}

/// Wendland C2 kernel (Wendland 1995; as in DualSPHysics, Crespo et al. 2015 CPC eq. 5):
/// \f$W = \alpha_D (1 - q/2)^4 (2q + 1)\f$, \f$\alpha_D = 7/(4\pi h^2)\f$ (2D),
/// \f$21/(16\pi h^3)\f$ (3D). Its derivative gives \f$F = -5\alpha_D (1 - q/2)^3 / h^2\f$.
template <int D>
struct WendlandC2 {
    static constexpr const char* name = "wendland";
    float h = 0.0f;         ///< smoothing length (m)
    float inv_h = 0.0f;     ///< 1/h
    float alpha = 0.0f;     ///< α_D (1/m^D)
    float grad_coef = 0.0f; ///< −5·α_D/h²

    explicit WendlandC2(double smoothing_length)
        : h(static_cast<float>(smoothing_length)),
          inv_h(static_cast<float>(1.0 / smoothing_length)),
          alpha(static_cast<float>(
              D == 2 ? 7.0 / (4.0 * detail::pi * smoothing_length * smoothing_length)
                     : 21.0 / (16.0 * detail::pi * smoothing_length * smoothing_length *
                               smoothing_length))),
          grad_coef(static_cast<float>(-5.0 * alpha / (smoothing_length * smoothing_length))) {}

    SLUICE_HD SLUICE_INLINE float value(float r) const {
        const float q = r * inv_h;
        if (!(q < 2.0f))
            return 0.0f;
        const float t = 1.0f - 0.5f * q;
        const float t2 = t * t;
        return alpha * t2 * t2 * (2.0f * q + 1.0f);
    }

    SLUICE_HD SLUICE_INLINE float grad_factor(float r) const {
        const float q = r * inv_h;
        if (!(q < 2.0f))
            return 0.0f;
        const float t = 1.0f - 0.5f * q;
        return grad_coef * t * t * t;
    }
};

/// Cubic spline kernel (Monaghan & Lattanzio 1985; Crespo et al. 2015 CPC eq. 4):
/// \f$W = \alpha_D (1 - \tfrac32 q^2 + \tfrac34 q^3)\f$ for q < 1,
/// \f$\alpha_D \tfrac14 (2 - q)^3\f$ for 1 ≤ q < 2; \f$\alpha_D = 10/(7\pi h^2)\f$ (2D),
/// \f$1/(\pi h^3)\f$ (3D). F = (dW/dq)/(h² q): \f$\alpha_D(-3 + \tfrac94 q)/h^2\f$ for q < 1,
/// \f$-\tfrac34\alpha_D (2-q)^2/(h^2 q)\f$ for 1 ≤ q < 2.
/// (DualSPHysics's tensile correction for this kernel, Monaghan 2000, is not implemented.)
template <int D>
struct CubicSpline {
    static constexpr const char* name = "cubic-spline";
    float h = 0.0f;
    float inv_h = 0.0f;
    float alpha = 0.0f;     ///< α_D (1/m^D)
    float grad_coef = 0.0f; ///< α_D/h²

    explicit CubicSpline(double smoothing_length)
        : h(static_cast<float>(smoothing_length)),
          inv_h(static_cast<float>(1.0 / smoothing_length)),
          alpha(static_cast<float>(
              D == 2
                  ? 10.0 / (7.0 * detail::pi * smoothing_length * smoothing_length)
                  : 1.0 / (detail::pi * smoothing_length * smoothing_length * smoothing_length))),
          grad_coef(static_cast<float>(alpha / (smoothing_length * smoothing_length))) {}

    SLUICE_HD SLUICE_INLINE float value(float r) const {
        const float q = r * inv_h;
        if (q < 1.0f)
            return alpha * (1.0f - 1.5f * q * q + 0.75f * q * q * q);
        if (q < 2.0f) {
            const float t = 2.0f - q;
            return alpha * 0.25f * t * t * t;
        }
        return 0.0f;
    }

    SLUICE_HD SLUICE_INLINE float grad_factor(float r) const {
        const float q = r * inv_h;
        if (q < 1.0f)
            return grad_coef * (-3.0f + 2.25f * q);
        if (q < 2.0f) {
            const float t = 2.0f - q;
            return grad_coef * (-0.75f * t * t / q);
        }
        return 0.0f;
    }
};

} // namespace sluice
