#include "case/sines_bound.h"

#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace sluice {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double two_pi = 2.0 * pi;
constexpr double unit_roundoff = 0.5 * DBL_EPSILON; ///< u = 2⁻⁵³

/// The table's grid: ω_max h ≤ 1/4, so that the A4 h²/8 term of max|f''| (at most A2/128)
/// stays below the motion's own curvature.
constexpr double table_omega_h = 0.25;
constexpr std::int64_t max_fft_length = std::int64_t{1} << 20;
constexpr std::int64_t max_table_samples = std::int64_t{4} << 20;
/// Components × samples a listed (not FFT) table may cost.
constexpr double max_listed_work = 2e7;
/// Up to this many components the exact per-component sum is cheap enough for every interval.
constexpr std::uint32_t few_components = 8;

Range intersect(Range a, const Range& b) {
    a.lo = std::max(a.lo, b.lo);
    a.hi = std::min(a.hi, b.hi);
    return a;
}

Range hull(Range a, const Range& b) {
    a.lo = std::min(a.lo, b.lo);
    a.hi = std::max(a.hi, b.hi);
    return a;
}

/// The range of sin over [u0, u1] (u0 ≤ u1): its ends, or ±1 where it passes π/2 + 2πk
/// (maximum) or −π/2 + 2πk (minimum).
Range sin_range(double u0, double u1) {
    if (u1 - u0 >= two_pi)
        return {-1.0, 1.0};
    const double s0 = std::sin(u0), s1 = std::sin(u1);
    Range r{std::min(s0, s1), std::max(s0, s1)};
    if (0.5 * pi + two_pi * std::ceil((u0 - 0.5 * pi) / two_pi) <= u1)
        r.hi = 1.0;
    if (-0.5 * pi + two_pi * std::ceil((u0 + 0.5 * pi) / two_pi) <= u1)
        r.lo = -1.0;
    return r;
}

/// In place, the inverse DFT without normalisation, x_j ← Σ_k x_k e^{+2πi jk/L} (L = x.size(), a
/// power of two), by Eigen's FFT (kissfft: radix 2 and 4, twiddles computed directly), so that
/// each output is within about u log₂L · Σ|x_k| of the exact sum.
void inverse_fft(std::vector<std::complex<double>>& x) {
    Eigen::FFT<double> fft;
    fft.SetFlag(Eigen::FFT<double>::Unscaled);
    std::vector<std::complex<double>> out;
    fft.inv(out, x);
    x.swap(out);
}

} // namespace

SinesRange::SinesRange(const SineComponent* components, std::uint32_t count, double span)
    : c_(components), n_(count), span_(std::max(span, 0.0)) {
    double phase_max = 0.0;
    for (std::uint32_t i = 0; i < n_; ++i) {
        const double a = std::fabs(c_[i].amplitude), w = std::fabs(c_[i].omega);
        a0_ += a;
        a2_ += a * w * w;
        a4_ += a * w * w * w * w;
        omega_max_ = std::max(omega_max_, w);
        phase_max = std::max(phase_max, std::fabs(c_[i].phase));
    }
    // One evaluation of Σ a_i sin(ω_i τ + φ_i), here or on the device (sines_profile): the
    // argument ω τ + φ is within 2u(|ω τ| + |φ|) of the exact one, sin within 2 ulp (CUDA's
    // bound; glibc's is 1), a product within u, and a sum of N terms within N u Σ|terms|;
    // doubled for the margin of these estimates. f'' has one more product.
    const double arguments = 2.0 * (omega_max_ * span_ + phase_max);
    rounding_f_ = 2.0 * unit_roundoff * a0_ * (arguments + 5.0 + n_);
    rounding_f2_ = 2.0 * unit_roundoff * a2_ * (arguments + 8.0 + n_);
}

Range SinesRange::component_sum(double tau0, double tau1) {
    Range r;
    for (std::uint32_t i = 0; i < n_; ++i) {
        const SineComponent& k = c_[i];
        double u0 = k.omega * tau0 + k.phase, u1 = k.omega * tau1 + k.phase;
        if (u1 < u0)
            std::swap(u0, u1);
        const Range s = sin_range(u0, u1);
        r.lo += k.amplitude >= 0.0 ? k.amplitude * s.lo : k.amplitude * s.hi;
        r.hi += k.amplitude >= 0.0 ? k.amplitude * s.hi : k.amplitude * s.lo;
    }
    work_ += n_;
    // Ours and the device's evaluation each within rounding_f_ of the exact value.
    r.lo -= 2.0 * rounding_f_;
    r.hi += 2.0 * rounding_f_;
    return r;
}

void SinesRange::evaluate(double tau, double& f, double& f2) {
    f = f2 = 0.0;
    for (std::uint32_t i = 0; i < n_; ++i) {
        const SineComponent& k = c_[i];
        const double s = std::sin(k.omega * tau + k.phase);
        f += k.amplitude * s;
        f2 -= k.amplitude * k.omega * k.omega * s;
    }
    work_ += n_;
}

void SinesRange::build_table() {
    table_built_ = true;
    if (n_ < 2 || !(omega_max_ > 0.0) || !(span_ > 0.0))
        return; // one sinusoid: component_sum is exact
    const double h_target = table_omega_h / omega_max_;
    // Equally spaced frequencies: ω_i = ω_0 + i Δω within `mismatch`.
    omega0_ = c_[0].omega;
    const double d_omega = (c_[n_ - 1].omega - omega0_) / (n_ - 1);
    double mismatch = 0.0, mismatch_f = 0.0, mismatch_f2 = 0.0;
    for (std::uint32_t i = 0; i < n_; ++i) {
        const double d = std::fabs(c_[i].omega - (omega0_ + i * d_omega));
        mismatch = std::max(mismatch, d);
        // |sin(x + ε) − sin x| ≤ |ε|: the phase error over the span, per component.
        mismatch_f += std::fabs(c_[i].amplitude) * d * span_;
        mismatch_f2 += std::fabs(c_[i].amplitude) * c_[i].omega * c_[i].omega * d * span_;
    }
    if (d_omega > 0.0 && mismatch <= 1e-9 * omega_max_) {
        const double repeat = two_pi / d_omega; // F_j's period: L samples
        std::int64_t length = 1;
        while (length < static_cast<std::int64_t>(n_) ||
               (length < max_fft_length && repeat / static_cast<double>(length) > h_target))
            length <<= 1;
        const double h = repeat / static_cast<double>(length);
        const double samples = std::ceil(span_ / h);
        if (samples <= static_cast<double>(max_table_samples)) {
            f_fft_.assign(static_cast<std::size_t>(length), {0.0, 0.0});
            f2_fft_.assign(static_cast<std::size_t>(length), {0.0, 0.0});
            for (std::uint32_t i = 0; i < n_; ++i) {
                const std::complex<double> e = std::polar(1.0, c_[i].phase);
                f_fft_[i] = c_[i].amplitude * e;
                f2_fft_[i] = -c_[i].amplitude * c_[i].omega * c_[i].omega * e;
            }
            inverse_fft(f_fft_);
            inverse_fft(f2_fft_);
            h_ = h;
            samples_ = static_cast<std::int64_t>(samples);
            evaluate(span_, end_f_, end_f2_);
            // The FFT (about u log₂L Σ|c| per output, taken 16-fold), the factor e^{iω_0 τ}
            // (argument within 2u ω_0 τ) and the frequencies' mismatch.
            const double fft =
                16.0 * unit_roundoff * (std::log2(static_cast<double>(length)) + 4.0);
            const double factor = 4.0 * unit_roundoff * omega0_ * span_;
            table_rounding_f_ = (fft + factor) * a0_ + mismatch_f;
            table_rounding_f2_ = (fft + factor) * a2_ + mismatch_f2;
            work_ += static_cast<double>(length) * std::log2(static_cast<double>(length));
            return;
        }
    }
    // Listed: each sample summed directly, within the work allowed.
    const double wanted = std::ceil(span_ / h_target);
    const double affordable = std::floor(max_listed_work / n_);
    const auto samples = static_cast<std::int64_t>(std::max(1.0, std::min(wanted, affordable)));
    h_ = span_ / static_cast<double>(samples);
    samples_ = samples;
    f_.resize(static_cast<std::size_t>(samples));
    f2_.resize(static_cast<std::size_t>(samples));
    for (std::int64_t j = 0; j < samples; ++j)
        evaluate(static_cast<double>(j) * h_, f_[j], f2_[j]);
    evaluate(span_, end_f_, end_f2_);
    table_rounding_f_ = rounding_f_;
    table_rounding_f2_ = rounding_f2_;
}

void SinesRange::sample(std::int64_t j, double& f, double& f2) const {
    if (j == samples_) { // the span's end, which the last interval ends at
        f = end_f_;
        f2 = end_f2_;
        return;
    }
    if (f_fft_.empty()) {
        f = f_[static_cast<std::size_t>(j)];
        f2 = f2_[static_cast<std::size_t>(j)];
        return;
    }
    const std::complex<double> e = std::polar(1.0, omega0_ * (static_cast<double>(j) * h_));
    const auto index = static_cast<std::size_t>(j % static_cast<std::int64_t>(f_fft_.size()));
    f = (e * f_fft_[index]).imag();
    f2 = (e * f2_fft_[index]).imag();
}

Range SinesRange::chord_range(double f_a, double f2_a, double f_b, double f2_b,
                              double width) const {
    // f within E of its chord, |f''| within the chord of |f''| plus width² A4/8 (file comment).
    const double curvature = std::max(std::fabs(f2_a), std::fabs(f2_b)) + width * width * a4_ / 8.0;
    const double e = width * width / 8.0 * curvature;
    return {std::min(f_a, f_b) - e, std::max(f_a, f_b) + e};
}

Range SinesRange::over(double tau0, double tau1) {
    tau0 = std::clamp(tau0, 0.0, span_);
    tau1 = std::clamp(tau1, tau0, span_);
    const Range widest{-a0_ - 2.0 * rounding_f_, a0_ + 2.0 * rounding_f_};
    Range r = widest;
    if (n_ <= few_components)
        r = intersect(r, component_sum(tau0, tau1));
    if (!table_built_)
        build_table();
    if (samples_ > 0) {
        // The table's intervals that cover [τ0, τ1]: its values (within table_rounding_f_ of
        // the exact ones, which are within rounding_f_ of the device's).
        const double values = table_rounding_f_ + rounding_f_;
        auto j0 = static_cast<std::int64_t>(std::floor(tau0 / h_));
        auto j1 = static_cast<std::int64_t>(std::ceil(tau1 / h_));
        j0 = std::clamp<std::int64_t>(j0, 0, samples_ - 1);
        j1 = std::clamp<std::int64_t>(j1, j0 + 1, samples_);
        Range table{HUGE_VAL, -HUGE_VAL};
        double f_a, f2_a, f_b, f2_b;
        sample(j0, f_a, f2_a);
        for (std::int64_t j = j0; j < j1; ++j) {
            sample(j + 1, f_b, f2_b);
            table =
                hull(table, chord_range(f_a, f2_a + std::copysign(table_rounding_f2_, f2_a), f_b,
                                        f2_b + std::copysign(table_rounding_f2_, f2_b), h_));
            f_a = f_b, f2_a = f2_b;
        }
        work_ += static_cast<double>(j1 - j0 + 1);
        r = intersect(r, {table.lo - values, table.hi + values});
        if (j1 - j0 <= 2) { // within about one interval: its own ends
            evaluate(tau0, f_a, f2_a);
            evaluate(tau1, f_b, f2_b);
            const Range ends =
                chord_range(f_a, f2_a + std::copysign(2.0 * rounding_f2_, f2_a), f_b,
                            f2_b + std::copysign(2.0 * rounding_f2_, f2_b), tau1 - tau0);
            r = intersect(r, {ends.lo - 2.0 * rounding_f_, ends.hi + 2.0 * rounding_f_});
        }
    } else if (n_ > few_components) {
        r = intersect(r, component_sum(tau0, tau1));
    }
    // Each bound holds the values: an empty intersection would be rounding beyond the
    // allowances, never a proof; keep the widest then.
    return r.lo <= r.hi ? r : widest;
}

} // namespace sluice
