#pragma once
/// \file wave_maker.h
/// Wave-maker theory (host code): the paddle motion that generates a given sea state, as a sum
/// of sinusoids the motion table (case/motion_table.h) evaluates on the device.
///
/// - Dispersion (linear theory): ω² = g k tanh(k d) (Dean & Dalrymple 1991, eq. 4.19).
/// - First-order transfer functions, wave height H over paddle stroke S (Biésel & Suquet 1951;
///   Dean & Dalrymple 1991 §6.2): piston H/S = 2(cosh 2kd − 1)/(sinh 2kd + 2kd); flap hinged on
///   the floor (stroke at the still-water level) H/S = 4 (sinh kd / kd)(kd sinh kd − cosh kd + 1)
///   /(sinh 2kd + 2kd).
/// - Irregular waves: the JONSWAP spectrum (Hasselmann et al. 1973) in Goda's (1988) form, with
///   σ = 0.07 below the peak and 0.09 above, discretised into N components of equal frequency
///   width between f_min and f_max, amplitudes a_i = sqrt(2 S(f_i) Δf) scaled so that
///   4 sqrt(Σ a_i²/2) = Hs exactly, random phases from the seed (std::mt19937, whose output the
///   standard fixes, so a seed gives the same sea on every platform).
/// - Second order (regular waves, piston only): Madsen (1971)'s correction of the paddle motion,
///   which cancels the spurious free second harmonic that a sinusoidal piston generates.
/// - A ramp r(t) = (1 − cos(π t / t_ramp))/2 over the first t_ramp seconds multiplies the motion,
///   so that the paddle starts at rest.

#include <cstdint>
#include <vector>

namespace sluice {

enum class WaveMakerKind { piston, flap };
enum class WaveSpectrum { regular, jonswap };

/// What a <wavemaker> asks for (cases/README.md). SI units; angles in radians.
struct WaveMakerSpec {
    WaveMakerKind kind = WaveMakerKind::piston;
    WaveSpectrum waves = WaveSpectrum::regular;
    double depth = 0.0;    ///< m, still-water depth at the paddle (flap: from the hinge up)
    double gravity = 9.81; ///< m/s²
    // regular waves
    double height = 0.0;       ///< m, H (crest to trough)
    double period = 0.0;       ///< s, T
    double phase = 0.0;        ///< rad, φ of the paddle's sin(ωt + φ)
    bool second_order = false; ///< Madsen (1971): piston, regular waves only
    // irregular waves (JONSWAP)
    double significant_height = 0.0;  ///< m, Hs = 4 sqrt(m0)
    double peak_period = 0.0;         ///< s, Tp
    double gamma = 3.3;               ///< peak enhancement factor γ (≥ 1)
    std::uint32_t seed = 1;           ///< random phases
    int components = 64;              ///< N
    double min_frequency_ratio = 0.5; ///< f_min / f_p
    double max_frequency_ratio = 3.0; ///< f_max / f_p
    double ramp = 0.0;                ///< s, t_ramp; 0: none
};

/// One sinusoid of the paddle's motion: amplitude · sin(ω t + φ), with t the time since the
/// wave maker started. Piston: the paddle's displacement (m) along its direction; flap: its
/// angle (rad) about the hinge, positive towards the waves.
struct PaddleComponent {
    double amplitude = 0.0; ///< m (piston) or rad (flap)
    double omega = 0.0;     ///< rad/s
    double phase = 0.0;     ///< rad
};

/// The wave number k (rad/m) of angular frequency ω (rad/s) in depth d (m): the root of
/// ω² = g k tanh(k d) (Newton's method to within 1e-12 relative).
/// \throws std::invalid_argument unless ω, d and g are positive and finite.
double wave_number(double omega, double depth, double gravity);

/// H/S of a piston and of a bottom-hinged flap for k d = kd (> 0): the transfer functions above.
double piston_height_over_stroke(double kd);
double flap_height_over_stroke(double kd);

/// The JONSWAP spectral density S(f) (m²·s) at frequency f (Hz), Goda's (1988) form before the
/// discrete scaling (its m0 is about Hs²/16).
double jonswap_density(double f, double significant_height, double peak_period, double gamma);

/// The components of the paddle motion that generates `spec` (file comment), the ramp not
/// included (the motion table applies it). Regular: one component of amplitude S/2 (piston: m;
/// flap: rad, the stroke at the still-water level over the depth, S/(2d), linear in the angle as
/// the theory), and with second_order a second one at 2ω; JONSWAP: N components.
/// \throws std::invalid_argument for a spec the reader would have refused (non-positive depth,
///         height, period, Hs, Tp, N; γ < 1; second order other than a regular piston).
std::vector<PaddleComponent> paddle_motion(const WaveMakerSpec& spec);

/// The wave height H (m) that a paddle component of amplitude `amplitude` (m or rad) at ω
/// generates in first-order theory: the inverse of paddle_motion's regular first component
/// (for tests and for sluice check's summary).
double generated_wave_height(WaveMakerKind kind, double amplitude, double omega, double depth,
                             double gravity);

} // namespace sluice
