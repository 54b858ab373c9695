// Floating bodies against experiments (physics/rigid_body.h, the BodyLoads pass), at two
// resolutions each:
// - Heave decay: the NTNU 2D section (Sundsdal, Greco, Hanssen & Lugni 2025; data CC0 at
//   github.com/KRSundsdal1/2D-ship-cross-section-in-regular-waves, docs/experimental_setup.md:
//   beam 0.40 m, depth 0.256 m, draft 0.20 m, bilges of radius 0.0512 m, 46.8 kg over 0.586 m of
//   span, centre of mass 0.106 m above the keel, water 1.0 m deep), its shape an OBJ surface the
//   test writes, released 0.04 m above its floating position: its heave period against the
//   period the experimenters measured in their decay tests, 1.17 s, within the issue's 3 %.
//   The decay's amplitudes have no published record (the experimenters give only the periods),
//   so the first three peaks are checked for convergence between the resolutions (10 %), not
//   against nature. (A sharp-cornered box of the same beam and draft heaved with a period 3.3 %
//   longer, 1.209 and 1.208 s at dp = 0.02 and 0.01 m: its added mass is larger.)
// - In waves: the box of Ren, He, Dong & Wen (2015) (cases/floating_box_waves2d.xml: 0.3 × 0.2 m,
//   500 kg/m³, waves H = 0.04 m, T = 1.2 s, water 0.4 m deep) against the experiment as
//   digitised by FloatStepper (tests/validation_data/ren2015_box_waves_h004.csv): the
//   first-harmonic amplitude of heave over four periods of steady waves within the experiment's
//   own period-to-period spread (half the range of the per-period amplitudes over its periods:
//   heave 4.3 %, pitch 9.1 %, surge 3.1 %) plus the 5 % the flume's waves are held to against
//   theory (test_wave_flume.cpp); pitch and surge do not reach theirs (below) and are checked
//   for convergence. Phases are not compared: the digitised record's time origin and its
//   gauge's place are not given.
// Both need a GPU (the CPU skips them): the waves need H/dp >= 4 over 11 s (40,000 particles
// for 100,000 steps at the coarser spacing), the decay 44,000 steps of 17,000 particles.

#include "backends/backend_tags.h"
#include "backends/simulation.h"
#include "case/case_override.h"
#include "case/case_reader.h"
#include "case/gauge_plan.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using namespace sluice;

namespace {

constexpr double pi = 3.14159265358979323846;

struct Series {
    std::vector<double> t, value;
};

FloatingSample body_now(Simulation& sim) {
    GaugeRequest r;
    r.floating = true;
    return sim.sample_gauges(r).floating.at(0);
}

/// The pitch (rad, about y) of a 2D body's orientation quaternion (w, x, y, z).
double pitch(const FloatingSample& b) {
    return 2.0 * std::atan2(b.orientation[2], b.orientation[0]);
}

/// The first-harmonic amplitude at period T (s) of y(t) by least squares on
/// y ≈ c0 + c1 t + a cos ωt + b sin ωt (the linear term takes a drift out).
double harmonic_amplitude(const std::vector<double>& t, const std::vector<double>& y, double T) {
    const double omega = 2.0 * pi / T;
    Eigen::MatrixXd a(static_cast<Eigen::Index>(t.size()), 4);
    Eigen::VectorXd b(static_cast<Eigen::Index>(t.size()));
    for (std::size_t k = 0; k < t.size(); ++k) {
        const auto r = static_cast<Eigen::Index>(k);
        a.row(r) << 1.0, t[k], std::cos(omega * t[k]), std::sin(omega * t[k]);
        b(r) = y[k];
    }
    const Eigen::Vector4d c = a.colPivHouseholderQr().solve(b);
    return std::hypot(c(2), c(3));
}

/// Amplitudes of y over each whole period [t0 + k T, t0 + (k + 1) T] of the record.
std::vector<double> per_period_amplitudes(const Series& s, double T) {
    std::vector<double> out;
    for (double t0 = s.t.front(); t0 + T <= s.t.back() + 1e-9; t0 += T) {
        std::vector<double> t, y;
        for (std::size_t k = 0; k < s.t.size(); ++k)
            if (s.t[k] >= t0 && s.t[k] < t0 + T) {
                t.push_back(s.t[k]);
                y.push_back(s.value[k]);
            }
        if (t.size() >= 8)
            out.push_back(harmonic_amplitude(t, y, T));
    }
    return out;
}

// ---------------------------------------------------------------------------- heave decay

constexpr double ntnu_period = 1.17;       // s, measured heave natural period
constexpr double ntnu_mass = 46.8 / 0.586; // kg/m
constexpr double ntnu_beam = 0.40, ntnu_depth = 0.256, ntnu_draft = 0.20, ntnu_bilge = 0.0512;
constexpr double ntnu_keel_to_centre = 0.106;             // m
constexpr double decay_water = 1.0, decay_release = 0.04; // m

/// The section's surface, extruded 1 m along y, as an OBJ file (a 2D case fills its cut by
/// y = 0): beam 0.40 m, depth 0.256 m, bilges of radius 0.0512 m (16 facets each), its keel
/// at z = `keel`, its middle at x = 3 m.
void write_section(const fs::path& file, double keel) {
    std::vector<std::pair<double, double>> profile; // (x, z), counter-clockwise
    const double x0 = 3.0 - ntnu_beam / 2.0, x1 = 3.0 + ntnu_beam / 2.0, r = ntnu_bilge;
    const auto arc = [&](double cx, double cz, double from) {
        for (int k = 0; k <= 16; ++k) {
            const double a = from + 0.5 * pi * k / 16.0;
            profile.emplace_back(cx + r * std::cos(a), cz + r * std::sin(a));
        }
    };
    arc(x1 - r, keel + r, -0.5 * pi); // the right bilge, from the keel up
    profile.emplace_back(x1, keel + ntnu_depth);
    profile.emplace_back(x0, keel + ntnu_depth);
    arc(x0 + r, keel + r, pi); // the left bilge, down to the keel
    std::ofstream out(file);
    const std::size_t n = profile.size();
    for (const double y : {-0.5, 0.5}) {
        for (const auto& [x, z] : profile)
            out << "v " << x << ' ' << y << ' ' << z << '\n';
        out << "v 3 " << y << ' ' << keel + ntnu_depth / 2.0 << '\n'; // the cap's centre
    }
    // OBJ indices from 1: the front ring 1..n and its centre n + 1, the back ring from n + 2.
    const auto front = [&](std::size_t k) { return k % n + 1; };
    const auto back = [&](std::size_t k) { return k % n + n + 2; };
    for (std::size_t k = 0; k < n; ++k) {
        out << "f " << front(k) << ' ' << front(k + 1) << ' ' << back(k + 1) << '\n';
        out << "f " << front(k) << ' ' << back(k + 1) << ' ' << back(k) << '\n';
        out << "f " << n + 1 << ' ' << front(k + 1) << ' ' << front(k) << '\n';
        out << "f " << 2 * n + 2 << ' ' << back(k) << ' ' << back(k + 1) << '\n';
    }
}

/// Water 1 m deep in a tank 6 m wide, the section at its middle released `decay_release`
/// above its floating position, heave only; damping zones over the outer 1.8 m on either side
/// take the radiated waves (L = 2.1 m at 1.17 s), starting 1 m from its sides. Written into
/// `folder` and read as a user's case is.
Case heave_decay_case(double dp, const fs::path& folder) {
    const double keel = decay_water - ntnu_draft + decay_release;
    write_section(folder / "section.obj", keel);
    std::ostringstream xml;
    xml << R"(<sluice name="ntnu_decay" dimension="2">
  <constants gravity="9.81" rho0="1000" coefSound="20" coefh="1.5" cfl="0.2"/>
  <geometry dp=")"
        << dp << R"(">
    <domain min="-0.3 -0.3" max="6.3 1.9"/>
    <fluid min="0 0" max="6 1"/>
    <tank min="0 0" max="6 1.6" faces="bottom left right" layers="4"/>
    <obstacle name="section" stl="section.obj">
      <floating mass=")"
        << ntnu_mass << R"(" center="3 )" << keel + ntnu_keel_to_centre << R"(" fixed="x ry"/>
    </obstacle>
    <damping start="1.8 0" end="0 0" reduction="10"/>
    <damping start="4.2 0" end="6 0" reduction="10"/>
  </geometry>
  <physics kernel="wendland" viscosity="laminar" viscosityValue="1e-6" diffusion="fourtakas"
           boundary="mdbc"/>
  <run endTime="6" outputInterval="6"/>
</sluice>
)";
    const fs::path file = folder / "ntnu_decay.xml";
    std::ofstream(file) << xml.str();
    return read_case(file.string());
}

struct Decay {
    double period = 0.0;       ///< s: twice the mean of the first six half-periods
    std::vector<double> peaks; ///< m: the first three extremes after the release
};

Decay heave_decay(double dp, Backend backend) {
    const fs::path folder =
        fs::temp_directory_path() / ("sluice_ntnu_decay_" + std::to_string(::getpid()));
    fs::create_directories(folder);
    const Case c = heave_decay_case(dp, folder);
    auto sim = make_simulation(c, backend);
    Series z;
    while (sim->time() < c.run.end_time) {
        sim->step();
        z.t.push_back(sim->time());
        z.value.push_back(body_now(*sim).center[2]);
    }
    // The level it settles at: the mean over the last 1.5 s (five periods on, the heave has
    // decayed to under 1 % of the release).
    double rest = 0.0;
    int n = 0;
    for (std::size_t k = 0; k < z.t.size(); ++k)
        if (z.t[k] > c.run.end_time - 1.5) {
            rest += z.value[k];
            ++n;
        }
    rest /= n;
    std::vector<double> crossings;
    Decay d;
    double extreme = 0.0;
    for (std::size_t k = 1; k < z.t.size() && crossings.size() < 7; ++k) {
        const double a = z.value[k - 1] - rest, b = z.value[k] - rest;
        if (std::abs(b) > std::abs(extreme))
            extreme = b;
        if ((a > 0.0) != (b > 0.0)) {
            crossings.push_back(z.t[k - 1] + (z.t[k] - z.t[k - 1]) * a / (a - b));
            if (crossings.size() > 1 && d.peaks.size() < 3)
                d.peaks.push_back(extreme);
            extreme = 0.0;
        }
    }
    EXPECT_EQ(crossings.size(), 7u) << "the heave did not cross its rest level seven times";
    if (crossings.size() == 7)
        d.period = (crossings[6] - crossings[0]) / 3.0;
    std::printf("heave decay, dp = %.3f m (%s): rest %.4f m, period %.4f s (%+.2f %% against "
                "1.17 s), peaks",
                dp, sim->backend_name().c_str(), rest, d.period,
                100.0 * (d.period / ntnu_period - 1.0));
    for (double p : d.peaks)
        std::printf(" %+.4f", p);
    std::printf(" m (release %+.4f m)\n", decay_release);
    fs::remove_all(folder);
    return d;
}

template <class TagT>
class FloatingValidation : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(FloatingValidation, test::AllBackends, test::BackendName);

TYPED_TEST(FloatingValidation, HeaveDecayPeriodOfTheNtnuSection) {
    if (TypeParam::backend == Backend::cpu)
        GTEST_SKIP() << "the decay runs on the GPU: 6 s of a tank 6 m wide at dp = 0.02 m is "
                        "44,000 steps, a quarter of an hour on CI's two cores";
    std::vector<Decay> runs;
    for (double dp : {0.02, 0.01}) {
        runs.push_back(heave_decay(dp, TypeParam::backend));
        EXPECT_NEAR(runs.back().period, ntnu_period, 0.03 * ntnu_period) << "dp = " << dp;
        ASSERT_EQ(runs.back().peaks.size(), 3u);
        // A decay: each extreme smaller than the one before, opposite in sign.
        for (std::size_t k = 1; k < 3; ++k) {
            EXPECT_LT(std::abs(runs.back().peaks[k]), std::abs(runs.back().peaks[k - 1]));
            EXPECT_LT(runs.back().peaks[k] * runs.back().peaks[k - 1], 0.0);
        }
    }
    for (std::size_t k = 0; k < 3; ++k)
        EXPECT_NEAR(runs[1].peaks[k], runs[0].peaks[k], 0.10 * std::abs(runs[1].peaks[k]))
            << "peak " << k << ": the resolutions disagree";
}

// ---------------------------------------------------------------------------- Ren et al. 2015

constexpr double ren_period = 1.2; // s

const fs::path ren_file =
    fs::path(SLUICE_SOURCE_DIR) / "tests" / "validation_data" / "ren2015_box_waves_h004.csv";

/// The series of tests/validation_data/ren2015_box_waves_h004.csv (rows series,t,value).
std::map<std::string, Series> read_ren2015() {
    std::ifstream in(ren_file);
    std::map<std::string, Series> out;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        if (header) {
            header = false;
            continue;
        }
        std::stringstream row(line);
        std::string name, t, v;
        std::getline(row, name, ',');
        std::getline(row, t, ',');
        std::getline(row, v, ',');
        out[name].t.push_back(std::stod(t));
        out[name].value.push_back(std::stod(v));
    }
    return out;
}

struct Motion3 {
    double heave = 0.0, pitch = 0.0, surge = 0.0; ///< amplitudes: m, degrees, m
};

/// The experiment's amplitudes over its whole record and their half-spread (relative) over its
/// periods.
struct Measured {
    Motion3 amplitude, spread;
};

Measured ren2015_measured() {
    const std::map<std::string, Series> data = read_ren2015();
    Measured m;
    const auto one = [&](const char* name, double& amplitude, double& spread) {
        const Series& s = data.at(name);
        amplitude = harmonic_amplitude(s.t, s.value, ren_period);
        const std::vector<double> a = per_period_amplitudes(s, ren_period);
        const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
        spread = 0.5 * (*hi - *lo) / amplitude;
        std::printf("Ren et al. 2015 (H = 0.04 m): %s amplitude %.4f over %zu periods "
                    "(%.4f-%.4f: spread +-%.1f %%)\n",
                    name, amplitude, a.size(), *lo, *hi, 100.0 * spread);
    };
    one("heave", m.amplitude.heave, m.spread.heave);
    one("pitch", m.amplitude.pitch, m.spread.pitch);
    one("surge", m.amplitude.surge, m.spread.surge);
    return m;
}

/// The shipped case at spacing dp: its box's amplitudes over four periods of steady waves,
/// t = 6.6-11.4 s (the waves ramped up at the box from about 6 s; what the box reflects
/// returns from the paddle after about 11 s).
Motion3 ren2015_run(double dp, Backend backend) {
    Case c = read_case(SLUICE_CASES_DIR "/floating_box_waves2d.xml");
    apply_dp_override(c, dp);
    auto sim = make_simulation(c, backend);
    const GaugePlan plan(c, sim->constants().support); // upstream, lee
    const double t0 = 6.6, t1 = t0 + 4.0 * ren_period;
    Series x, z, theta, upstream, lee;
    for (double next = t0; next <= t1 + 1e-9; next += 0.01) {
        while (sim->time() < next)
            sim->step();
        const FloatingSample b = body_now(*sim);
        const std::vector<double> eta = plan.evaluate(sim->sample_gauges(plan.request()));
        for (Series* s : {&x, &z, &theta, &upstream, &lee})
            s->t.push_back(sim->time());
        x.value.push_back(b.center[0]);
        z.value.push_back(b.center[2]);
        theta.value.push_back(pitch(b) * 180.0 / pi);
        upstream.value.push_back(eta.at(0));
        lee.value.push_back(eta.at(1));
    }
    // The waves before the box (incident and reflected) and behind it, for the record.
    std::printf("floating_box_waves2d, dp = %.4f m: first-harmonic wave amplitude %.4f m 0.95 m "
                "before the box's face, %.4f m 0.95 m behind it (target 0.02 m)\n",
                dp, harmonic_amplitude(upstream.t, upstream.value, ren_period),
                harmonic_amplitude(lee.t, lee.value, ren_period));
    Motion3 m;
    m.heave = harmonic_amplitude(z.t, z.value, ren_period);
    m.pitch = harmonic_amplitude(theta.t, theta.value, ren_period);
    m.surge = harmonic_amplitude(x.t, x.value, ren_period);
    std::printf("floating_box_waves2d, dp = %.4f m (%s): heave %.4f m, pitch %.3f deg, surge "
                "%.4f m; drift %.3f m over 6.6-11.4 s\n",
                dp, sim->backend_name().c_str(), m.heave, m.pitch, m.surge,
                x.value.back() - x.value.front());
    return m;
}

TYPED_TEST(FloatingValidation, BoxInRegularWavesAgainstRen2015) {
    if (TypeParam::backend == Backend::cpu)
        GTEST_SKIP() << "the waves need H/dp >= 4 over 11 s: 4e9 particle-steps at the coarser "
                        "spacing, hours on CI's two cores";
    ASSERT_TRUE(fs::exists(ren_file)) << ren_file;
    const Measured e = ren2015_measured();
    constexpr double waves = 0.05; // the flume's heights against theory (test_wave_flume.cpp)
    std::vector<Motion3> runs;
    for (double dp : {0.01, 0.005}) {
        runs.push_back(ren2015_run(dp, TypeParam::backend));
        EXPECT_NEAR(runs.back().heave, e.amplitude.heave,
                    (e.spread.heave + waves) * e.amplitude.heave)
            << "dp = " << dp;
    }
    // Pitch and surge: NOT REACHED. The box pitches by about half the experiment's amplitude
    // (1.48 and 1.33 degrees against 2.79 on an H200, Nov 2026) and surges 13-15 % short of it
    // (0.0186 and 0.0190 m against 0.0219), with waves of the target height (0.0185 m
    // behind the box); in still water the same box, turning about its centre, rolls with a
    // period of 1.64 s, which the hydrostatic stiffness (GM = 0.025 m) and an added inertia of
    // 0.12 kg m explain. What stands between the two is not found (the experiment's inertia and
    // centre of mass are second-hand: FloatStepper's and DualSPHysics's cases disagree). What is
    // asserted of them is that they have converged: the two resolutions agree within the
    // tolerance the heave is held to.
    for (const auto& [name, coarse, fine, measured, spread] :
         {std::make_tuple("heave", runs[0].heave, runs[1].heave, e.amplitude.heave, e.spread.heave),
          std::make_tuple("pitch", runs[0].pitch, runs[1].pitch, e.amplitude.pitch, e.spread.pitch),
          std::make_tuple("surge", runs[0].surge, runs[1].surge, e.amplitude.surge,
                          e.spread.surge)}) {
        std::printf("%s: %+.1f %% and %+.1f %% of the experiment's amplitude\n", name,
                    100.0 * (coarse / measured - 1.0), 100.0 * (fine / measured - 1.0));
        EXPECT_NEAR(fine, coarse, (spread + waves) * measured) << name << ": not converged";
    }
}

} // namespace
