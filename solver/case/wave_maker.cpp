#include "case/wave_maker.h"

#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

namespace sluice {

namespace {

constexpr double pi = 3.14159265358979323846;

[[noreturn]] void refuse(const std::string& what, double value, const char* unit,
                         const char* requirement) {
    std::ostringstream msg;
    msg.precision(17);
    msg << "wave maker: " << what << " = " << value << (*unit ? " " : "") << unit << " "
        << requirement;
    throw std::invalid_argument(msg.str());
}

void require_positive(const char* what, double value, const char* unit) {
    if (!(value > 0.0) || !std::isfinite(value))
        refuse(what, value, unit, "must be positive and finite");
}

/// H/S for kd > 0 (unchecked). With E = e^{-2kd}, 2(cosh 2kd − 1)/(sinh 2kd + 2kd) =
/// 2(1 − E)²/(1 − E² + 4kd E): no overflow for large kd, and no cancellation for small kd
/// (1 − E and 1 − E² through expm1).
double piston_ratio(double kd) {
    const double one_minus_e = -std::expm1(-2.0 * kd);
    const double one_minus_e2 = -std::expm1(-4.0 * kd);
    return 2.0 * one_minus_e * one_minus_e / (one_minus_e2 + 4.0 * kd * std::exp(-2.0 * kd));
}

/// H/S of the bottom-hinged flap for kd > 0 (unchecked). With E = e^{-kd}, the header's form
/// is 2(1 − E²)(kd(1 − E²) − (1 − E)²) / (kd (1 − E⁴ + 4kd E²)); the bracket's two terms
/// are 2kd² and kd² for small kd, so it loses at most one bit.
double flap_ratio(double kd) {
    const double one_minus_e = -std::expm1(-kd);
    const double one_minus_e2 = -std::expm1(-2.0 * kd);
    const double one_minus_e4 = -std::expm1(-4.0 * kd);
    const double bracket = kd * one_minus_e2 - one_minus_e * one_minus_e;
    return 2.0 * one_minus_e2 * bracket / (kd * (one_minus_e4 + 4.0 * kd * std::exp(-2.0 * kd)));
}

/// H/S of the spec's paddle kind at kd.
double height_over_stroke(WaveMakerKind kind, double kd) {
    return kind == WaveMakerKind::piston ? piston_ratio(kd) : flap_ratio(kd);
}

/// Paddle amplitude (m or rad) that makes waves of amplitude a (m) at kd: the stroke's
/// half S/2 = a/(H/S), since a/(S/2) = H/S; a flap's angle is that stroke over the depth.
double paddle_amplitude(WaveMakerKind kind, double wave_amplitude, double kd, double depth) {
    const double half_stroke = wave_amplitude / height_over_stroke(kind, kd);
    return kind == WaveMakerKind::piston ? half_stroke : half_stroke / depth;
}

/// Madsen (1971)'s second-order piston correction, the amplitude A₂ (m, signed) of the term
/// A₂ sin(2ωt + 2φ) added to the first-order motion X₁ = (S/2) sin(ωt + φ) that generates
/// regular waves of height H at kd in depth d:
///   \f$A_2 = \frac{H^2}{32 d}\left(\frac{3\cosh kd}{\sinh^3 kd} - \frac{2}{m_1}\right)\f$,
/// m₁ = H/S of the piston (the first-order transfer function, not the group-velocity ratio
/// n = (1 + 2kd/sinh 2kd)/2). Madsen, O.S. (1971), On the generation of long waves, J.
/// Geophys. Res. 76(36), 8672–8683; the derivation below reproduces it.
///
/// Derivation (which also fixes the sign and phase; φ = 0 below, a = H/2, h = d):
/// at x = X(t) the piston moves the fluid, ∂Φ/∂x = Ẋ; expanded about x = 0 to second
/// order, Φ₂ₓ(0, z, t) = Ẋ₂ − X₁ Φ₁ₓₓ(0, z, t). The first-order field is the progressive wave
/// η₁ = a cos(kx − ωt), Φ₁ = (a g/ω) cosh k(z+h)/cosh kh · sin(kx − ωt) (evanescent modes
/// neglected), and Φ₂ = the Stokes bound wave (3/8) a² ω cosh 2k(z+h)/sinh⁴ kh · sin 2(kx − ωt)
/// plus a free wave at 2ω. Taking the free wave long (depth-uniform velocity: Madsen's
/// long-wave assumption), it vanishes when its depth-integrated flux at the paddle does:
///   h Ẋ₂ = ∫ X₁ Φ₁ₓₓ dz + ∫ Φ₂ₓ,bound dz (over −h < z < 0, the 2ω part)
///        = −(S a ω/4) cos 2ωt + (3/4) a² ω cosh kh/sinh³ kh · cos 2ωt,
/// with S = 2a/m₁: X₂ = (a²/(8h)) (3 cosh kh/sinh³ kh − 2/m₁) sin 2ωt = A₂ sin 2ωt. The
/// first term is the volume the bound wave's crest carries (at the paddle when ωt = 0, as the
/// paddle's velocity peaks), the second what X₁ ∂u₁/∂x already supplies; shifting t by φ/ω
/// gives sin(2ωt + 2φ). Valid for long waves (small kd): at kd ≈ 1 the full second-order
/// theory (Schäffer 1996, with the free wave's own profile) differs appreciably.
double madsen1971_second_order_amplitude(double height, double kd, double depth) {
    const double sinh_kd = std::sinh(kd);
    return height * height / (32.0 * depth) *
           (3.0 * std::cosh(kd) / (sinh_kd * sinh_kd * sinh_kd) - 2.0 / piston_ratio(kd));
}

/// Refuses a wave higher than the breaking limit of Miche (1944), H ≤ 0.142·L·tanh(kd) (Miche,
/// "Mouvements ondulatoires de la mer en profondeur constante ou décroissante", Annales des
/// Ponts et Chaussées 114; 0.142 ≈ 1/7 in deep water, 0.88·d in shallow): no paddle makes such a
/// wave, and the linear theory's stroke for it is meaningless (a height of 10⁶ m on 0.3 m of
/// water asked for a stroke of 10⁶ m).
void require_below_breaking(const char* what, double height, double omega, double depth,
                            double gravity) {
    const double k = wave_number(omega, depth, gravity);
    const double limit = 0.142 * (2.0 * pi / k) * std::tanh(k * depth);
    if (height <= limit)
        return;
    std::ostringstream msg;
    msg.precision(6);
    msg << "wave maker: " << what << " = " << height << " m is above the breaking limit " << limit
        << " m of waves of period " << 2.0 * pi / omega << " s in " << depth
        << " m of water (Miche 1944: H <= 0.142 L tanh(kd))";
    throw std::invalid_argument(msg.str());
}

void validate_common(const WaveMakerSpec& spec) {
    require_positive("depth", spec.depth, "m");
    require_positive("gravity", spec.gravity, "m/s^2");
}

std::vector<PaddleComponent> regular_motion(const WaveMakerSpec& spec) {
    require_positive("height", spec.height, "m");
    require_positive("period", spec.period, "s");
    if (!std::isfinite(spec.phase))
        refuse("phase", spec.phase, "rad", "must be finite");
    if (spec.second_order && spec.kind != WaveMakerKind::piston)
        throw std::invalid_argument(
            "wave maker: second order (Madsen 1971) is for a piston; this one is a flap");

    const double omega = 2.0 * pi / spec.period;
    require_below_breaking("height", spec.height, omega, spec.depth, spec.gravity);
    const double kd = wave_number(omega, spec.depth, spec.gravity) * spec.depth;
    std::vector<PaddleComponent> motion;
    motion.push_back(
        {paddle_amplitude(spec.kind, 0.5 * spec.height, kd, spec.depth), omega, spec.phase});
    if (spec.second_order) {
        const double a2 = madsen1971_second_order_amplitude(spec.height, kd, spec.depth);
        // A negative A₂ is the same term with the opposite phase: keep amplitudes ≥ 0.
        motion.push_back({std::abs(a2), 2.0 * omega, 2.0 * spec.phase + (a2 < 0.0 ? pi : 0.0)});
    }
    return motion;
}

std::vector<PaddleComponent> jonswap_motion(const WaveMakerSpec& spec) {
    require_positive("significant height", spec.significant_height, "m");
    require_positive("peak period", spec.peak_period, "s");
    if (!(spec.gamma >= 1.0) || !std::isfinite(spec.gamma))
        refuse("gamma", spec.gamma, "", "must be finite and at least 1");
    if (spec.components <= 0)
        refuse("components", spec.components, "", "must be positive");
    if (!(spec.min_frequency_ratio >= 0.0) || !std::isfinite(spec.min_frequency_ratio))
        refuse("min frequency ratio", spec.min_frequency_ratio, "",
               "must be non-negative and finite");
    if (!(spec.max_frequency_ratio > spec.min_frequency_ratio) ||
        !std::isfinite(spec.max_frequency_ratio))
        refuse("max frequency ratio", spec.max_frequency_ratio, "",
               "must be finite and above the min frequency ratio");
    if (spec.second_order)
        throw std::invalid_argument(
            "wave maker: second order (Madsen 1971) is for regular waves, not JONSWAP");

    require_below_breaking("significant height", spec.significant_height,
                           2.0 * pi / spec.peak_period, spec.depth, spec.gravity);
    const double fp = 1.0 / spec.peak_period;
    const double f_min = spec.min_frequency_ratio * fp;
    const double df = (spec.max_frequency_ratio * fp - f_min) / spec.components;
    const auto n = static_cast<std::size_t>(spec.components);

    std::vector<double> amplitude(n);
    double sum_a2 = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double f = f_min + (static_cast<double>(i) + 0.5) * df;
        amplitude[i] = std::sqrt(
            2.0 * jonswap_density(f, spec.significant_height, spec.peak_period, spec.gamma) * df);
        sum_a2 += amplitude[i] * amplitude[i];
    }
    if (!(sum_a2 > 0.0))
        throw std::invalid_argument("wave maker: the JONSWAP spectrum is zero on every one of "
                                    "the components (frequency range too far from the peak)");
    // 4 sqrt(Σ a_i²/2) = Hs after scaling: the discrete sea has exactly the asked Hs.
    const double scale = spec.significant_height / (4.0 * std::sqrt(0.5 * sum_a2));

    // mt19937's raw output is fixed by the standard (unlike uniform_real_distribution's), so
    // a seed gives the same phases everywhere: u = output / 2³² ∈ [0, 1).
    std::mt19937 generator(spec.seed);
    const double two_to_32 = 4294967296.0;
    std::vector<PaddleComponent> motion(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double omega = 2.0 * pi * (f_min + (static_cast<double>(i) + 0.5) * df);
        const double kd = wave_number(omega, spec.depth, spec.gravity) * spec.depth;
        const double u = static_cast<double>(generator()) / two_to_32;
        motion[i] = {paddle_amplitude(spec.kind, scale * amplitude[i], kd, spec.depth), omega,
                     2.0 * pi * u};
    }
    return motion;
}

} // namespace

double wave_number(double omega, double depth, double gravity) {
    require_positive("omega", omega, "rad/s");
    require_positive("depth", depth, "m");
    require_positive("gravity", gravity, "m/s^2");
    // Dimensionless: kd is the root of x tanh x = y, y = ω² d/g.
    const double y = omega * omega * depth / gravity;
    if (!(y > 0.0) || !std::isfinite(y)) {
        std::ostringstream msg;
        msg << "wave maker: omega^2 depth/gravity = " << y << " (omega = " << omega
            << " rad/s, depth = " << depth << " m, gravity = " << gravity
            << " m/s^2) is out of the range of double";
        throw std::invalid_argument(msg.str());
    }
    // Initial guess: Fenton & McKee (1990), x = y coth(y^{3/4})^{2/3}, within 1.7 % of the
    // root for every y; Newton then converges quadratically (a handful of steps).
    double x = y * std::pow(1.0 / std::tanh(std::pow(y, 0.75)), 2.0 / 3.0);
    for (int iteration = 0; iteration < 100; ++iteration) {
        const double t = std::tanh(x);
        const double c = std::cosh(x); // overflows to inf for x > 710: sech² = 0, fine
        const double step = (x * t - y) / (t + x / (c * c));
        x -= step;
        if (std::abs(step) <= 1e-12 * x)
            return x / depth;
    }
    std::ostringstream msg;
    msg << "wave maker: Newton's method did not converge for omega = " << omega
        << " rad/s, depth = " << depth << " m";
    throw std::runtime_error(msg.str());
}

double piston_height_over_stroke(double kd) {
    require_positive("kd", kd, "");
    return piston_ratio(kd);
}

double flap_height_over_stroke(double kd) {
    require_positive("kd", kd, "");
    return flap_ratio(kd);
}

double jonswap_density(double f, double significant_height, double peak_period, double gamma) {
    require_positive("significant height", significant_height, "m");
    require_positive("peak period", peak_period, "s");
    if (!(gamma >= 1.0) || !std::isfinite(gamma))
        refuse("gamma", gamma, "", "must be finite and at least 1");
    if (!(f > 0.0))
        return 0.0;
    // Goda (1988): S(f) = β Hs² Tp⁻⁴ f⁻⁵ exp(−1.25 (Tp f)⁻⁴) γ^exp(−(Tp f − 1)²/(2σ²)),
    // written with x = Tp f as β Hs² Tp x⁻⁵ exp(−1.25 x⁻⁴) γ^… so that tiny f underflows
    // to 0 instead of giving ∞ · 0.
    const double x = peak_period * f;
    const double x4 = 1.0 / (x * x * x * x);
    if (1.25 * x4 > 745.0) // exp(−1.25 x⁻⁴) is below the smallest double
        return 0.0;
    const double beta = 0.0624 / (0.230 + 0.0336 * gamma - 0.185 / (1.9 + gamma)) *
                        (1.094 - 0.01915 * std::log(gamma));
    const double sigma = x <= 1.0 ? 0.07 : 0.09;
    const double peak = std::exp(-(x - 1.0) * (x - 1.0) / (2.0 * sigma * sigma));
    return beta * significant_height * significant_height * peak_period * x4 / x *
           std::exp(-1.25 * x4) * std::pow(gamma, peak);
}

std::vector<PaddleComponent> paddle_motion(const WaveMakerSpec& spec) {
    validate_common(spec);
    std::vector<PaddleComponent> motion =
        spec.waves == WaveSpectrum::regular ? regular_motion(spec) : jonswap_motion(spec);
    // Finite inputs within range can still overflow on the way (a stroke, a frequency).
    for (const PaddleComponent& m : motion)
        if (!std::isfinite(m.amplitude) || !std::isfinite(m.omega) || !std::isfinite(m.phase))
            throw std::invalid_argument("wave maker: the theory gives a paddle motion that is not "
                                        "a finite number for these values");
    return motion;
}

double generated_wave_height(WaveMakerKind kind, double amplitude, double omega, double depth,
                             double gravity) {
    if (!std::isfinite(amplitude))
        refuse("amplitude", amplitude, kind == WaveMakerKind::piston ? "m" : "rad",
               "must be finite");
    const double kd = wave_number(omega, depth, gravity) * depth;
    // The inverse of paddle_amplitude: H = 2 a, a = (S/2)(H/S); a flap's S/2 is d·angle.
    // A negative amplitude is the same motion shifted by half a period: same height.
    const double half_stroke =
        kind == WaveMakerKind::piston ? std::abs(amplitude) : std::abs(amplitude) * depth;
    return 2.0 * half_stroke * height_over_stroke(kind, kd);
}

} // namespace sluice
