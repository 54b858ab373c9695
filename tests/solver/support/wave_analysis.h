#pragma once
/// \file wave_analysis.h
/// Wave heights, periods and reflection from level-gauge records, for the wave-flume validation
/// tests: the two analyses of postprocess/wave_analysis.py (same definitions, same constants),
/// header-only C++17 without the solver.
///
/// - Zero-up-crossing: a wave runs from one up-crossing of η = 0 (η about its mean, the time
///   interpolated linearly between samples) to the next; its height is the largest sample minus
///   the smallest between them, its period the time between them; only complete waves count.
///   An up-crossing opens a new wave only once η has fallen below −zero_crossing_dead_band times
///   the record's range since the last one, so noise riding on a crossing does not split a wave.
///   Reported: the count, the mean and the median of the heights and of the periods.
/// - First harmonic: the least-squares fit η ≈ c + a cos ωt + b sin ωt over the record (any
///   length of at least one period), returned as A = a + i b, so that
///   \f$\eta \approx c + \mathrm{Re}(A e^{-i\omega t})\f$.
/// - Reflection, Goda & Suzuki (1976, "Estimation of incident and reflected waves in random wave
///   experiments", Proc. 15th Coastal Eng. Conf., 828–845): the incident wave
///   \f$\mathrm{Re}(A_I e^{i(kx-\omega t)})\f$ and the reflected one
///   \f$\mathrm{Re}(A_R e^{i(-kx-\omega t)})\f$ give at gauges x = 0 and x = Δ (along the
///   incident waves' direction) \f$A_1 = A_I + A_R\f$, \f$A_2 = A_I e^{ik\Delta} + A_R
///   e^{-ik\Delta}\f$, so
///   \f$A_I = (A_2 - A_1 e^{-ik\Delta}) / (2i \sin k\Delta)\f$,
///   \f$A_R = (A_1 e^{ik\Delta} - A_2) / (2i \sin k\Delta)\f$ (their two-gauge expressions in
///   complex form), and \f$K_r = |A_R| / |A_I|\f$. Singular where sin kΔ = 0 (Δ a whole number
///   of half wavelengths); Goda & Suzuki recommend 0.05 < Δ/L < 0.45.
/// - Dispersion (linear theory): ω² = g k tanh(k d).

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sluice::test {

/// Fraction of the record's range (max − min of η) that η must fall below zero by between two
/// counted up-crossings.
inline constexpr double zero_crossing_dead_band = 0.01;
/// |sin kΔ| below this: goda_suzuki refuses the spacing (nearly singular).
inline constexpr double goda_suzuki_min_sin = 0.1;

struct WaveStatistics {
    double mean_height; ///< m, crest to trough; NaN without a complete wave
    double mean_period; ///< s, between successive up-crossings; NaN without a complete wave
    int waves;          ///< complete waves counted (0: none)
    /// The medians of the waves' heights (m) and periods (s): a gauge's one outlying sample
    /// (a drop above the surface) can add an up-crossing, which splits one wave into two short
    /// ones and moves the means; the medians of a regular record keep the waves' value.
    double median_height;
    double median_period;
};

namespace detail {

/// The median of v (the mean of the two middle values for an even count); v is not empty.
inline double median(std::vector<double> v) {
    const std::size_t n = v.size();
    std::sort(v.begin(), v.end());
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The samples where both t and η are finite.
inline std::pair<std::vector<double>, std::vector<double>>
finite_samples(const std::vector<double>& t, const std::vector<double>& eta) {
    if (t.size() != eta.size())
        throw std::invalid_argument("wave analysis: t and eta differ in length");
    std::pair<std::vector<double>, std::vector<double>> out;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (std::isfinite(t[i]) && std::isfinite(eta[i])) {
            out.first.push_back(t[i]);
            out.second.push_back(eta[i]);
        }
    return out;
}

} // namespace detail

/// Zero-up-crossing statistics (file comment) of η(t) about its mean; NaN samples are skipped.
/// t increasing (s), η in m. Without a complete wave: waves = 0 and NaN mean height and period.
/// \throws std::invalid_argument when t and eta differ in length.
inline WaveStatistics zero_crossing(const std::vector<double>& t, const std::vector<double>& eta) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto [ts, e] = detail::finite_samples(t, eta);
    if (e.size() < 3)
        return {nan, nan, 0, nan, nan};
    double mean = 0.0;
    for (double v : e)
        mean += v;
    mean /= static_cast<double>(e.size());
    for (double& v : e)
        v -= mean;
    const auto [lo, hi] = std::minmax_element(e.begin(), e.end());
    const double band = zero_crossing_dead_band * (*hi - *lo);
    std::vector<double> times;       // of the counted up-crossings
    std::vector<std::size_t> starts; // the first sample at or above zero after each
    bool armed = true;               // η went below −band since the last counted up-crossing
    for (std::size_t i = 0; i + 1 < e.size(); ++i) {
        if (e[i] < -band)
            armed = true;
        if (armed && e[i] < 0.0 && e[i + 1] >= 0.0) {
            times.push_back(ts[i] - e[i] * (ts[i + 1] - ts[i]) / (e[i + 1] - e[i]));
            starts.push_back(i + 1);
            armed = false;
        }
    }
    if (times.size() < 2)
        return {nan, nan, 0, nan, nan};
    std::vector<double> heights, periods;
    for (std::size_t w = 0; w + 1 < starts.size(); ++w) {
        const auto [trough, crest] =
            std::minmax_element(e.begin() + starts[w], e.begin() + starts[w + 1]);
        heights.push_back(*crest - *trough);
        periods.push_back(times[w + 1] - times[w]);
    }
    const int waves = static_cast<int>(heights.size());
    double height = 0.0;
    for (double h : heights)
        height += h;
    return {height / waves, (times.back() - times.front()) / waves, waves, detail::median(heights),
            detail::median(periods)};
}

/// The least-squares first harmonic at ω (rad/s): A with η ≈ c + Re(A e^{−iωt}), that is
/// η ≈ c + Re(A) cos ωt + Im(A) sin ωt (file comment); NaN samples are skipped.
/// \throws std::invalid_argument when the finite samples span less than one period 2π/ω (or are
///         fewer than 3), or t and eta differ in length.
inline std::complex<double> harmonic(const std::vector<double>& t, const std::vector<double>& eta,
                                     double omega) {
    const auto [ts, e] = detail::finite_samples(t, eta);
    constexpr double two_pi = 6.283185307179586;
    if (!(omega > 0.0) || e.size() < 3 || (ts.back() - ts.front()) * omega < two_pi * (1 - 1e-9))
        throw std::invalid_argument("harmonic: the samples span less than one period");
    // Normal equations of the basis (1, cos ωt, sin ωt); η's mean taken out first for their
    // conditioning (it changes only c).
    double mean = 0.0;
    for (double v : e)
        mean += v;
    mean /= static_cast<double>(e.size());
    std::array<std::array<double, 4>, 3> m{}; // [M | rhs]
    for (std::size_t i = 0; i < e.size(); ++i) {
        const std::array<double, 3> f{1.0, std::cos(omega * ts[i]), std::sin(omega * ts[i])};
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c)
                m[r][c] += f[r] * f[c];
            m[r][3] += f[r] * (e[i] - mean);
        }
    }
    for (int col = 0; col < 3; ++col) { // Gaussian elimination, partial pivoting
        int pivot = col;
        for (int r = col + 1; r < 3; ++r)
            if (std::fabs(m[r][col]) > std::fabs(m[pivot][col]))
                pivot = r;
        std::swap(m[col], m[pivot]);
        if (m[col][col] == 0.0)
            throw std::invalid_argument("harmonic: singular fit");
        for (int r = col + 1; r < 3; ++r) {
            const double f = m[r][col] / m[col][col];
            for (int c = col; c < 4; ++c)
                m[r][c] -= f * m[col][c];
        }
    }
    std::array<double, 3> x{};
    for (int r = 2; r >= 0; --r) {
        double s = m[r][3];
        for (int c = r + 1; c < 3; ++c)
            s -= m[r][c] * x[c];
        x[r] = s / m[r][r];
    }
    return {x[1], x[2]};
}

struct Reflection {
    double incident;    ///< |A_I|, m
    double reflected;   ///< |A_R|, m
    double coefficient; ///< K_r = |A_R| / |A_I|
};

/// Incident and reflected amplitudes at one frequency from the complex first-harmonic amplitudes
/// a1, a2 (harmonic()'s convention) of two gauges `spacing` (m) apart, the second downstream of
/// the first along the incident waves' direction, k the waves' wave number (rad/m): Goda &
/// Suzuki (1976), file comment.
/// \throws std::invalid_argument when |sin(k·spacing)| < goda_suzuki_min_sin (the spacing is
///         near a whole number of half wavelengths: choose another).
inline Reflection goda_suzuki(std::complex<double> a1, std::complex<double> a2, double k,
                              double spacing) {
    const double s = std::sin(k * spacing);
    if (!(std::fabs(s) >= goda_suzuki_min_sin))
        throw std::invalid_argument(
            "goda_suzuki: gauge spacing " + std::to_string(spacing) + " m is " +
            std::to_string(k * spacing / 3.141592653589793) +
            " half wavelengths, |sin(k dx)| < 0.1: the two-gauge system is singular; choose "
            "another spacing (0.05 < dx/L < 0.45)");
    const std::complex<double> shift = std::polar(1.0, k * spacing); // e^{ikΔ}
    const std::complex<double> two_i_sin(0.0, 2.0 * s);
    const double incident = std::abs((a2 - a1 / shift) / two_i_sin);
    const double reflected = std::abs((a1 * shift - a2) / two_i_sin);
    return {incident, reflected,
            incident > 0.0 ? reflected / incident : std::numeric_limits<double>::quiet_NaN()};
}

/// k (rad/m), the root of ω² = g k tanh(k d) for ω (rad/s), depth d (m) and g (m/s²): Newton's
/// method from Eckart's (1952) approximation, to within 1e-12 relative.
/// \throws std::invalid_argument unless ω, d and g are positive and finite.
inline double wave_number(double omega, double depth, double gravity = 9.81) {
    if (!(omega > 0.0 && depth > 0.0 && gravity > 0.0 && std::isfinite(omega) &&
          std::isfinite(depth) && std::isfinite(gravity)))
        throw std::invalid_argument("wave_number: omega, depth and gravity must be positive");
    const double deep = omega * omega / gravity;
    double k = deep / std::sqrt(std::tanh(deep * depth));
    for (int iteration = 0; iteration < 100; ++iteration) {
        const double th = std::tanh(k * depth);
        const double step = (gravity * k * th - omega * omega) /
                            (gravity * th + gravity * k * depth * (1.0 - th * th));
        k -= step;
        if (std::fabs(step) <= 1e-12 * k)
            return k;
    }
    throw std::invalid_argument("wave_number: Newton's method did not converge");
}

} // namespace sluice::test
