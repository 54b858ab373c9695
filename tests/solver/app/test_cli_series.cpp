// `sluice surface` and `sluice measure` on a finished run (app/run_folder.h): the measurement at a
// gauge's point equals the run's gauge, a vertical line in still water reads hydrostatic
// pressure, the surface series opens as a series, and bad input exits 2 leaving nothing
// half-written.

#include "backends/backend_options.h"
#include "cli.h"

#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataReader.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace cli_test {
namespace {

/// A CSV series (gauges.csv, measure.csv): column name → values by row ("" → NaN).
std::map<std::string, std::vector<double>> read_csv(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> names;
    std::map<std::string, std::vector<double>> columns;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
            cells.push_back(cell);
        if (names.empty()) {
            names = cells;
            continue;
        }
        for (std::size_t k = 0; k < names.size(); ++k)
            columns[names[k]].push_back(k < cells.size() && !cells[k].empty() ? std::stod(cells[k])
                                                                              : std::nan(""));
    }
    return columns;
}

class CliSeries : public Cli {
protected:
    /// cases/still_water2d.xml for 0.3 s on the CPU into `still` (its gauges every 0.05 s, as
    /// its snapshots).
    void run_still_water() {
        const Result r = sluice("run " SLUICE_CASES_DIR "/still_water2d.xml --backend cpu "
                                "--end-time 0.3 --out still",
                                dir_);
        ASSERT_EQ(r.exit_code, 0) << r.output;
    }
};

/// The measurement at each gauge's point equals the run's gauge on the same snapshot: the same
/// plan evaluates the same sums of the same particles (the run's positions are its last
/// neighbour build's, up to one step older than the snapshot's: |v|·dt ≈ 10⁻³ dp in still
/// water), so to float rounding of the sums: 10⁻⁵ relative.
TEST_F(CliSeries, MeasureAtAGaugeEqualsTheGauge) {
    run_still_water();
    const Result r = sluice("measure still --backend cpu --point d010=0.5,0.4 --point "
                            "d025=0.5,0.25 --height level=0.5 --fields pressure,velocity",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto gauges = read_csv(dir_ / "still" / "gauges.csv");
    const auto measured = read_csv(dir_ / "still" / "measure.csv");
    ASSERT_EQ(measured.at("t").size(), 7u) << "t = 0, 0.05, …, 0.3";
    for (const char* column : {"level", "d010.pressure", "d025.pressure"}) {
        const std::vector<double>& g = gauges.at(column);
        const std::vector<double>& m = measured.at(column);
        ASSERT_EQ(g.size(), m.size()) << column;
        for (std::size_t k = 0; k < g.size(); ++k)
            EXPECT_NEAR(m[k], g[k], 1e-5 * std::abs(g[k]) + 1e-9) << column << " row " << k;
    }
}

/// The same on the GPU: the run's gauges and the measurement both on the CUDA backend. The run's
/// gauge reads its neighbour structure's positions, up to one step older than the snapshot's
/// (in still water |v|·dt ≈ 10⁻⁷ m), and the warps sum in another order: 10⁻⁴ relative.
TEST_F(CliSeries, MeasureOnTheGpuEqualsTheGpuRunsGauge) {
    if (!sluice::cuda_device_available())
        GTEST_SKIP() << "no CUDA device";
    const Result run = sluice("run " SLUICE_CASES_DIR "/still_water2d.xml --backend cuda "
                              "--end-time 0.3 --out gpu",
                              dir_);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const Result r = sluice("measure gpu --backend cuda --point d010=0.5,0.4 --point "
                            "d025=0.5,0.25 --height level=0.5 --fields pressure",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto gauges = read_csv(dir_ / "gpu" / "gauges.csv");
    const auto measured = read_csv(dir_ / "gpu" / "measure.csv");
    for (const char* column : {"level", "d010.pressure", "d025.pressure"}) {
        const std::vector<double>& g = gauges.at(column);
        const std::vector<double>& m = measured.at(column);
        ASSERT_EQ(g.size(), m.size()) << column;
        for (std::size_t k = 0; k < g.size(); ++k)
            EXPECT_NEAR(m[k], g[k], 1e-4 * std::abs(g[k]) + 1e-9) << column << " row " << k;
    }
}

/// A vertical line of nine points in still water reads ρ0·g·d within the run's own gauges'
/// hydrostatic tolerance (2 %, tests/solver/validation/README.md) at depths 0.1 … 0.4 m.
TEST_F(CliSeries, VerticalLineInStillWaterReadsHydrostaticPressure) {
    run_still_water();
    const Result r = sluice("measure still --backend cpu --time 0.3 --name profile "
                            "--line v=0.5,0.1:0.5,0.4:7 --fields pressure",
                            dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto measured = read_csv(dir_ / "still" / "profile.csv");
    ASSERT_EQ(measured.at("t").size(), 1u);
    for (int k = 0; k < 7; ++k) {
        const double z = 0.1 + 0.05 * k;
        const double expected = 1000.0 * 9.81 * (0.5 - z);
        const double p = measured.at("v_" + std::to_string(k) + ".pressure")[0];
        EXPECT_NEAR(p, expected, 0.02 * expected) << "z = " << z;
    }
}

TEST_F(CliSeries, SurfaceWritesASeriesAndPlanesOpenAsSeries) {
    run_still_water();
    const Result r = sluice("surface still --backend cpu --every 2", dir_);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_complete_series(dir_ / "still", "still_water2d_surface");
    EXPECT_TRUE(contains(r.output, "4 surface(s)")) << r.output; // 0, 0.1, 0.2, 0.3 s
    // After 0.3 s of the run (not a lattice any more): the surface lies at the still-water level
    // 0.5 m within dp/4 = 5 mm everywhere farther than 2h = 0.057 m from the walls.
    vtkNew<vtkXMLPolyDataReader> reader;
    reader->SetFileName((dir_ / "still" / "still_water2d_surface_0006.vtp").c_str());
    reader->Update();
    vtkPolyData* surface = reader->GetOutput();
    ASSERT_GT(surface->GetNumberOfPoints(), 0);
    ASSERT_NE(surface->GetPointData()->GetArray("pressure"), nullptr);
    int away = 0;
    double worst = 0.0;
    for (vtkIdType k = 0; k < surface->GetNumberOfPoints(); ++k) {
        double x[3];
        surface->GetPoint(k, x);
        if (x[0] < 0.057 || x[0] > 1.0 - 0.057 || x[2] < 0.057)
            continue;
        ++away;
        worst = std::max(worst, std::abs(x[2] - 0.5));
    }
    EXPECT_GT(away, 40);
    EXPECT_LE(worst, 0.005);
    RecordProperty("settled_worst_m", std::to_string(worst));
    const Result planes = sluice(
        "measure still --backend cpu --out m --plane s=0.1,0.05:0.9,0.05:0.1,0.6:9,12", dir_);
    ASSERT_EQ(planes.exit_code, 0) << planes.output;
    expect_complete_series(dir_ / "m", "measure_s");
    EXPECT_FALSE(fs::exists(dir_ / "m" / "measure.csv")) << "a plane alone writes no CSV";
}

TEST_F(CliSeries, BadInputExits2AndLeavesNothingHalfWritten) {
    // A folder that holds no run.
    fs::create_directories(dir_ / "empty");
    Result r = sluice("surface empty --backend cpu", dir_);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "summary.json")) << r.output;
    EXPECT_EQ(sluice("measure nowhere --point p=0.5,0.2", dir_).exit_code, 2);
    run_still_water();
    // Outside the domain, a malformed spec, an unknown kind in a file: nothing written.
    for (const char* args :
         {"--line v=0.5,0.1:5,0.4:7", "--point p=0.5", "--point p=0.5,0.2,0.1",
          "--line v=0.5,0.1:0.5,0.4:1", "--plane s=0,0:1,0:0,1:2", "--point p=0.5,nan",
          "--point a,b=0.5,0.2", "--fields speed", "--point a.b=0.5,0.2", "--height t=0.5",
          "--plane s=0.1,0.1:0.5,0.1:0.9,0.1:3,3", "--name gauges", "--name still_water2d_x",
          "--time nan", "--line v=0.5,0.1:0.5,0.4:20000"}) {
        r = sluice(std::string("measure still --backend cpu --point q=0.5,0.2 ") + args, dir_);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_FALSE(fs::exists(dir_ / "still" / "measure.csv")) << args;
    }
    EXPECT_TRUE(contains(sluice("measure still --line v=0.5,0.1:5,0.4:7", dir_).output,
                         "outside the run's domain"));
    // The surface's grid: a NaN or a spacing that would make it too large.
    for (const char* args : {"--spacing nan", "--spacing 1e-7", "--spacing -1"}) {
        r = sluice(std::string("surface still --backend cpu ") + args, dir_);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    }
    EXPECT_FALSE(fs::exists(dir_ / "still" / "still_water2d_surface.pvd"));
    write("m.txt", "point a=0.5,0.2\n# a comment\nprobe b=0.5,0.3\n");
    r = sluice("measure still --backend cpu --file m.txt", dir_);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "m.txt:3")) << r.output;
    // A truncated snapshot: exit 2 naming it; what was measured before it is whole.
    const fs::path cut = dir_ / "still" / "still_water2d_0003.vtp";
    const std::string bytes = read_file(cut);
    std::ofstream(cut, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 3);
    r = sluice("surface still --backend cpu", dir_);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "still_water2d_0003.vtp")) << r.output;
    expect_complete_series(dir_ / "still", "still_water2d_surface");
    r = sluice("measure still --backend cpu --point a=0.5,0.2", dir_);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(read_csv(dir_ / "still" / "measure.csv").at("t").size(), 3u) << "rows before it";
    for (const auto& e : fs::directory_iterator(dir_ / "still"))
        EXPECT_NE(e.path().filename().string()[0], '.') << "a temporary left: " << e.path();
}

} // namespace
} // namespace cli_test
