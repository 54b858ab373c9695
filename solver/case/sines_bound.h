#pragma once
/// \file sines_bound.h
/// Where a sum of sinusoids f(τ) = Σ_i a_i sin(ω_i τ + φ_i) goes over a time interval, without
/// sampling it at the resolution of its fastest component (host code): the bound that the swept
/// box and the domain-exit search (case/motion_table.h) take for a sines segment
/// (physics/motion.h: sinusoidal motions and wave makers).
///
/// Three bounds, intersected:
/// - per component, exactly: a sin(u) over the argument interval [ω τ0 + φ, ω τ1 + φ] is a at
///   its ends or ±|a| where it passes π/2 + kπ; their sum holds f (exact for one component);
/// - a table of f and f'' at τ_j = j h (ω_max h ≤ 1/4) and at the span's end: on each interval
///   [τ_j, τ_j+1] f lies within
///   E = h²/8 · max|f''| of its chord (the interpolation error of a linear function, Süli &
///   Mayers 2003, Theorem 6.2), and max|f''| ≤ max(|f''_j|, |f''_j+1|) + h²/8 · A4 by the same
///   theorem applied to f'' (A4 = Σ|a_i| ω_i⁴ ≥ |f''''|). Unlike A2 h²/8 (A2 = Σ|a_i| ω_i²), which
///   grows as √N for N random-phase components, the local |f''| is of the order of the motion's
///   own curvature, so the table is tight for a JONSWAP sea of 10,000 components;
/// - over an interval that meets at most two of the table's, f and f'' evaluated at its ends,
///   with the same E.
///
/// The table: when the frequencies are equally spaced (ω_i = ω_0 + i Δω, as every wave maker's
/// and sinusoidal motion's are), f(τ_j) = Im(e^{iω_0 τ_j} F_j) with F the inverse discrete
/// Fourier transform of c_i = a_i e^{iφ_i} on a grid h = 2π/(Δω L) (L a power of two ≥ N): one
/// FFT of length L, whatever N and the span (F_j repeats with period L). Otherwise each sample
/// sums the components directly, and the table is coarser when N × samples would exceed 2·10⁷.
///
/// Every range is widened by the rounding of these evaluations and of the device's own
/// (sines_profile: double arguments ω τ + φ), so that it holds the values a run computes.

#include "physics/motion.h"

#include <complex>
#include <cstdint>
#include <vector>

namespace sluice {

/// A closed interval [lo, hi].
struct Range {
    double lo = 0.0, hi = 0.0;
};

/// The ranges of f over subintervals of [0, span] (s, finite).
class SinesRange {
public:
    /// components[0 … count): the sinusoids (not copied: they must outlive this object).
    SinesRange(const SineComponent* components, std::uint32_t count, double span);

    /// A range that holds f(τ) and its double evaluation for every τ ∈ [tau0, tau1] ⊆ [0, span].
    Range over(double tau0, double tau1);

    /// The work done so far, in component evaluations (one sin and cos each).
    double work() const { return work_; }

private:
    Range component_sum(double tau0, double tau1);
    /// f and f'' at τ, summed directly.
    void evaluate(double tau, double& f, double& f2);
    void build_table();
    /// f and f'' at τ_j = j h, and at the span's end for j = samples_ (the last interval ends
    /// there).
    void sample(std::int64_t j, double& f, double& f2) const;
    Range chord_range(double f_a, double f2_a, double f_b, double f2_b, double width) const;

    const SineComponent* c_;
    std::uint32_t n_;
    double span_;
    double a0_ = 0.0, a2_ = 0.0, a4_ = 0.0; ///< Σ|a| ω^k
    double omega_max_ = 0.0;
    double rounding_f_ = 0.0, rounding_f2_ = 0.0; ///< allowances of f and f'' (m or rad)
    double work_ = 0.0;
    // The table (built on first need): h, samples 0 … samples_, either by FFT (f_fft_,
    // f2_fft_: L values, ω_0) or listed (f_, f2_).
    bool table_built_ = false;
    double h_ = 0.0;
    std::int64_t samples_ = 0;
    double omega0_ = 0.0;
    std::vector<std::complex<double>> f_fft_, f2_fft_;
    std::vector<double> f_, f2_;
    double end_f_ = 0.0, end_f2_ = 0.0;
    double table_rounding_f_ = 0.0, table_rounding_f2_ = 0.0;
};

} // namespace sluice
