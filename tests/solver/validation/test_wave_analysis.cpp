// support/wave_analysis.h on synthetic level-gauge records with known answers, the cases of
// tests/postprocess/test_wave_analysis.py (the Python tool's twin):
// - a regular wave of H = 0.1 m, T = 1.5 s with a second harmonic of 10 % in phase (crest
//   a + a2, trough −a + a2: H = 2a exactly) and noise of 0.2 % of H, over a window of no whole
//   number of periods: H within 1 % (the noise adds to the sampled crest and trough, ~0.3 %),
//   T within 0.5 %, the first harmonic's amplitude within 1 %;
// - incident (a_I = 4 cm) and reflected (K_r = 0.2) waves of T = 1.2 s in d = 0.6 m (k d = 1.8,
//   intermediate depth) at two gauges 0.35 m apart (Δ/L = 0.16): K_r within 0.01 (Goda &
//   Suzuki 1976; the second harmonic and the noise are not at the fitted frequency);
// - the spacing of half a wavelength refused; the dispersion relation's root.

#include "support/wave_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using sluice::test::goda_suzuki;
using sluice::test::harmonic;
using sluice::test::wave_number;
using sluice::test::zero_crossing;

constexpr double pi = 3.141592653589793;
constexpr double gravity = 9.81;
constexpr double still = 0.5; // m, the still-water level's z: gauges read absolute elevations

/// Samples every `dt` from t0 to t1 (inclusive within rounding).
std::vector<double> times(double t0, double t1, double dt) {
    std::vector<double> t;
    for (int i = 0; t0 + i * dt <= t1 + 1e-9; ++i)
        t.push_back(t0 + i * dt);
    return t;
}

struct RegularWave {
    double height = 0.1, period = 1.5, second = 0.1, noise = 0.0002;

    std::vector<double> operator()(const std::vector<double>& t, std::mt19937& random) const {
        std::normal_distribution<double> noise_of(0.0, noise);
        const double omega = 2 * pi / period, a = height / 2;
        std::vector<double> eta;
        for (double tk : t) {
            const double phase = omega * tk + 0.7;
            eta.push_back(still + a * std::cos(phase) + second * a * std::cos(2 * phase) +
                          noise_of(random));
        }
        return eta;
    }
};

TEST(WaveAnalysis, RegularWaveHeightPeriodAndHarmonic) {
    const RegularWave wave;
    std::mt19937 random(7);
    const std::vector<double> t = times(2.3, 29.1, 0.01); // 17.9 periods
    const std::vector<double> eta = wave(t, random);
    const auto stats = zero_crossing(t, eta);
    EXPECT_NEAR(stats.mean_height, wave.height, 0.01 * wave.height);
    EXPECT_NEAR(stats.mean_period, wave.period, 0.005 * wave.period);
    EXPECT_TRUE(stats.waves == 16 || stats.waves == 17) << stats.waves;
    const std::complex<double> a = harmonic(t, eta, 2 * pi / wave.period);
    EXPECT_NEAR(std::abs(a), wave.height / 2, 0.01 * wave.height / 2);
    EXPECT_NEAR(std::arg(a), -0.7, 0.01); // η ≈ c + Re(A e^{−iωt}) = c + |A| cos(ωt − arg A)
}

TEST(WaveAnalysis, NanSamplesAreSkipped) {
    const RegularWave wave;
    std::mt19937 random(11);
    const std::vector<double> t = times(0.0, 30.0, 0.01);
    std::vector<double> eta = wave(t, random);
    for (std::size_t i = 0; i < 400; ++i) // a gauge without readings for its first 4 s
        eta[i] = std::numeric_limits<double>::quiet_NaN();
    const auto stats = zero_crossing(t, eta);
    EXPECT_NEAR(stats.mean_height, wave.height, 0.01 * wave.height);
    EXPECT_NEAR(stats.mean_period, wave.period, 0.005 * wave.period);
    EXPECT_NEAR(std::abs(harmonic(t, eta, 2 * pi / wave.period)), wave.height / 2,
                0.01 * wave.height / 2);
}

TEST(WaveAnalysis, NoiseOnACrossingDoesNotSplitAWave) {
    std::mt19937 random(3);
    std::normal_distribution<double> noise(0.0, 2e-4);
    const std::vector<double> t = times(0.0, 9.999, 0.001);
    std::vector<double> eta;
    for (double tk : t)
        eta.push_back(-0.05 * std::cos(2 * pi * tk) + noise(random));
    const auto stats = zero_crossing(t, eta); // up-crossings at 0.25, 1.25, … 9.25 s
    EXPECT_EQ(stats.waves, 9);
    EXPECT_NEAR(stats.mean_period, 1.0, 0.005);
}

// A gauge's one outlying sample in a trough (a drop above the surface) adds an up-crossing: one
// wave splits into two short ones, the means move, the medians keep the waves' height and period.
TEST(WaveAnalysis, OneOutlyingSampleMovesTheMeansNotTheMedians) {
    const std::vector<double> t = times(0.0, 9.999, 0.01);
    std::vector<double> eta;
    for (double tk : t)
        eta.push_back(-0.05 * std::cos(2 * pi * tk));
    eta[500] = 0.2; // t = 5 s, the bottom of a trough
    const auto stats = zero_crossing(t, eta);
    EXPECT_EQ(stats.waves, 10);
    EXPECT_GT(stats.mean_height, 0.11);
    EXPECT_LT(stats.mean_period, 0.95);
    EXPECT_NEAR(stats.median_height, 0.1, 1e-3);
    EXPECT_NEAR(stats.median_period, 1.0, 1e-3);
}

TEST(WaveAnalysis, NoCompleteWave) {
    EXPECT_EQ(zero_crossing({}, {}).waves, 0);
    EXPECT_EQ(zero_crossing({0.0}, {1.0}).waves, 0);
    const std::vector<double> t = times(0.0, 10.0, 0.01);
    EXPECT_EQ(zero_crossing(t, std::vector<double>(t.size(), still)).waves, 0); // flat
    std::vector<double> one; // one up-crossing only
    for (double tk : t)
        one.push_back(std::sin(0.1 * pi * tk - 0.5 * pi));
    const auto stats = zero_crossing(t, one);
    EXPECT_EQ(stats.waves, 0);
    EXPECT_TRUE(std::isnan(stats.mean_height));
    EXPECT_THROW(zero_crossing({0.0, 1.0}, {0.0}), std::invalid_argument);
}

TEST(WaveAnalysis, HarmonicOfAPartialWindow) {
    const double omega = 2 * pi / 1.5;
    std::vector<double> t, eta;
    for (int i = 0; i < 500; ++i) { // 0.3 … 2.9 s: 1.73 periods
        t.push_back(0.3 + 2.6 * i / 499.0);
        eta.push_back(1.0 + 0.2 * std::cos(omega * t.back()) - 0.1 * std::sin(omega * t.back()));
    }
    const std::complex<double> a = harmonic(t, eta, omega);
    EXPECT_NEAR(a.real(), 0.2, 1e-10);
    EXPECT_NEAR(a.imag(), -0.1, 1e-10);
    t.resize(100); // a third of a period
    eta.resize(100);
    EXPECT_THROW(harmonic(t, eta, omega), std::invalid_argument);
    EXPECT_THROW(harmonic({}, {}, omega), std::invalid_argument);
}

TEST(WaveAnalysis, Dispersion) {
    for (auto [omega, depth] : {std::pair{2 * pi / 1.2, 0.6}, std::pair{0.3, 2.0},
                                std::pair{20.0, 5.0}, std::pair{1.0, 0.01}}) {
        const double k = wave_number(omega, depth);
        EXPECT_NEAR(gravity * k * std::tanh(k * depth) / (omega * omega), 1.0, 1e-12);
    }
    EXPECT_NEAR(wave_number(20.0, 5.0), 400.0 / gravity, 1e-9);          // deep water
    EXPECT_NEAR(wave_number(0.01, 0.1), 0.01 / std::sqrt(gravity * 0.1), // shallow water
                1e-4 * 0.01 / std::sqrt(gravity * 0.1));
    EXPECT_THROW(wave_number(1.0, 0.0), std::invalid_argument);
    EXPECT_THROW(wave_number(0.0, 1.0), std::invalid_argument);
}

/// Incident (towards +x) plus reflected (towards −x) waves at x, a small second harmonic of the
/// incident wave and noise.
struct TwoWaves {
    double depth = 0.6, period = 1.2, incident = 0.04, reflection = 0.2, x1 = 3.0;

    double k() const { return wave_number(2 * pi / period, depth); }

    std::vector<double> operator()(double x, const std::vector<double>& t,
                                   std::mt19937& random) const {
        std::normal_distribution<double> noise(0.0, 0.0001);
        const double omega = 2 * pi / period, kk = k();
        std::vector<double> eta;
        for (double tk : t)
            eta.push_back(
                still + incident * std::cos(kk * x - omega * tk + 0.3) +
                reflection * incident * std::cos(kk * x + omega * tk + 1.1 - 2 * kk * x1) +
                0.05 * incident * std::cos(2 * (kk * x - omega * tk + 0.3)) + noise(random));
        return eta;
    }
};

TEST(WaveAnalysis, ReflectionGodaSuzuki) {
    const TwoWaves waves;
    const double spacing = 0.35;
    std::mt19937 random(5);
    const std::vector<double> t = times(1.0, 28.7, 0.01);
    const double omega = 2 * pi / waves.period, k = waves.k();
    EXPECT_GT(k * waves.depth, 0.3); // intermediate depth: neither shallow nor deep
    EXPECT_LT(k * waves.depth, pi);
    const auto a1 = harmonic(t, waves(waves.x1, t, random), omega);
    const auto a2 = harmonic(t, waves(waves.x1 + spacing, t, random), omega);
    const auto r = goda_suzuki(a1, a2, k, spacing);
    EXPECT_NEAR(r.coefficient, waves.reflection, 0.01);
    EXPECT_NEAR(r.incident, waves.incident, 0.01 * waves.incident);
    EXPECT_NEAR(r.reflected, waves.reflection * waves.incident, 0.01 * waves.incident);
    // Measured from the second gauge (the first upstream of it): the same waves; the flume the
    // other way round: the roles swap.
    EXPECT_NEAR(goda_suzuki(a2, a1, k, -spacing).coefficient, waves.reflection, 0.01);
    EXPECT_NEAR(goda_suzuki(a2, a1, k, spacing).coefficient, 1 / waves.reflection, 0.25);
}

TEST(WaveAnalysis, HalfAWavelengthApartIsRefused) {
    const TwoWaves waves;
    std::mt19937 random(9);
    const std::vector<double> t = times(1.0, 28.7, 0.01);
    const double omega = 2 * pi / waves.period, k = waves.k(), spacing = pi / k;
    const auto a1 = harmonic(t, waves(waves.x1, t, random), omega);
    const auto a2 = harmonic(t, waves(waves.x1 + spacing, t, random), omega);
    EXPECT_THROW(goda_suzuki(a1, a2, k, spacing), std::invalid_argument);
    EXPECT_THROW(goda_suzuki(a1, a2, k, 1.02 * spacing), std::invalid_argument);
    EXPECT_THROW(goda_suzuki(a1, a2, k, 0.0), std::invalid_argument);
    try {
        goda_suzuki(a1, a2, k, spacing);
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("choose another spacing"), std::string::npos);
    }
}

} // namespace
