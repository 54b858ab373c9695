// The free surface of a snapshot (app/free_surface.h) against closed forms: still water's surface
// at its level, a ball's (disc's) enclosed volume (area), each at two resolutions; the GPU and
// the CPU agree; and reading a snapshot back (io/series_reader.h), bad files included.

#include "app/free_surface.h"
#include "case/constants.h"
#include "case/particles.h"
#include "io/series_reader.h"
#include "io/vtp_file.h"
#include "support/cases.h"
#include "support/temp_folder.h"

#include <gtest/gtest.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace sluice {
namespace {

constexpr double pi = 3.14159265358979323846;

/// The generated particles of `c` as the snapshot a run writes at t = 0.
Snapshot initial_snapshot(const Case& c, const ParticleSet& p) {
    Snapshot s;
    s.dimension = c.dimension;
    for (std::size_t i = 0; i < p.size(); ++i) {
        s.id.push_back(static_cast<std::uint32_t>(i));
        s.type.push_back(p.type[i]);
        s.position.push_back({static_cast<float>(p.position[i].x()),
                              static_cast<float>(p.position[i].y()),
                              static_cast<float>(p.position[i].z())});
        s.velocity.push_back({0.0f, 0.0f, 0.0f});
        s.density.push_back(p.density[i]);
        s.pressure.push_back(0.0f);
    }
    return s;
}

/// The surface of case c's particles at t = 0 on `backend`, grid spacing dp/2.
vtkSmartPointer<vtkPolyData> surface_of(const Case& c, Backend backend) {
    const ParticleSet p = generate_particles(c);
    RunFolder run;
    run.run_case = c;
    run.speed_of_sound = p.constants.speed_of_sound;
    run.smoothing_length = p.constants.h;
    SnapshotSampler sampler(run, backend);
    sampler.load(initial_snapshot(c, p), "generated");
    SurfaceSettings settings;
    settings.spacing = 0.5 * c.dp;
    return free_surface(sampler, c.dimension, 0.0, settings, 100000000);
}

std::vector<Backend> backends() {
    std::vector<Backend> out{Backend::cpu};
    if (cuda_device_available())
        out.push_back(Backend::cuda);
    return out;
}

/// Still water: every surface point farther than 2h from the walls (the tank's faces, the floor)
/// lies within dp/4 of the still-water level (issue 41's limit: the lattice's surface is half a
/// spacing above its top particles, which the fraction's ½ finds to within the grid's linear
/// interpolation).
TEST(FreeSurface, StillWaterLiesAtItsLevelIn2D) {
    for (const double dp : {0.02, 0.01}) {
        const Case c = test::tank_case_2d(dp, 1.0, 0.7, test::box(0.0, 0.0, 1.0, 0.5));
        const double h = smoothing_length(c);
        for (const Backend b : backends()) {
            const vtkSmartPointer<vtkPolyData> s = surface_of(c, b);
            int away = 0;
            double worst = 0.0;
            for (vtkIdType k = 0; k < s->GetNumberOfPoints(); ++k) {
                double x[3];
                s->GetPoint(k, x);
                if (x[0] < 2.0 * h || x[0] > 1.0 - 2.0 * h || x[2] < 2.0 * h)
                    continue;
                ++away;
                worst = std::max(worst, std::abs(x[2] - 0.5));
            }
            EXPECT_GT(away, static_cast<int>(0.9 / dp)) << "dp " << dp;
            EXPECT_LE(worst, 0.25 * dp) << "dp " << dp << (b == Backend::cuda ? " GPU" : " CPU");
            RecordProperty("worst_" + std::to_string(dp), std::to_string(worst));
        }
    }
}

TEST(FreeSurface, StillWaterLiesAtItsLevelIn3D) {
    for (const double dp : {0.04, 0.02}) {
        // 0.32 m: a whole number of layers at both spacings (the lattice fills below the top).
        const Case c = test::tank_case_3d(dp, {0.6, 0.4, 0.5}, {0.6, 0.4, 0.32}, {-0.3, -0.3, -0.3},
                                          {0.9, 0.7, 0.8});
        const double h = smoothing_length(c);
        for (const Backend b : backends()) {
            const vtkSmartPointer<vtkPolyData> s = surface_of(c, b);
            int away = 0;
            double worst = 0.0;
            for (vtkIdType k = 0; k < s->GetNumberOfPoints(); ++k) {
                double x[3];
                s->GetPoint(k, x);
                if (x[0] < 2.0 * h || x[0] > 0.6 - 2.0 * h || x[1] < 2.0 * h ||
                    x[1] > 0.4 - 2.0 * h || x[2] < 2.0 * h)
                    continue;
                ++away;
                worst = std::max(worst, std::abs(x[2] - 0.32));
            }
            EXPECT_GT(away, 10) << "dp " << dp;
            EXPECT_LE(worst, 0.25 * dp) << "dp " << dp << (b == Backend::cuda ? " GPU" : " CPU");
            RecordProperty("worst_" + std::to_string(dp), std::to_string(worst));
        }
    }
}

/// A ball of fluid alone (no walls, as at rest in zero gravity): the surface is closed and
/// encloses the ball's volume within 2 % at R/dp = 10 and 20, the error no larger at the finer.
/// (The lattice's own volume, N·dp³, is the reference the kernel sees; the ½ level of a convex
/// body sits slightly inside it, by O(h²/R).)
TEST(FreeSurface, BallEnclosesItsVolume) {
    const double radius = 0.1;
    double previous = 1.0;
    for (const double dp : {0.01, 0.005}) {
        Case c;
        c.name = "ball";
        c.dimension = 3;
        c.dp = dp;
        c.constants.gravity = 0.0;
        c.constants.speed_of_sound = 10.0;
        FluidRegion ball;
        ball.box.min = Eigen::Vector3d::Constant(-radius);
        ball.box.max = Eigen::Vector3d::Constant(radius);
        ball.shape = Sphere{Eigen::Vector3d::Zero(), radius};
        c.fluids = {ball};
        c.domain.min = Eigen::Vector3d::Constant(-0.3);
        c.domain.max = Eigen::Vector3d::Constant(0.3);
        const double exact = 4.0 / 3.0 * pi * radius * radius * radius;
        for (const Backend b : backends()) {
            const vtkSmartPointer<vtkPolyData> s = surface_of(c, b);
            const double error = enclosed_volume(s, 3) / exact - 1.0;
            EXPECT_LT(std::abs(error), 0.02) << "dp " << dp << ": " << error;
            if (b == Backend::cpu) {
                EXPECT_LE(std::abs(error), std::abs(previous) + 1e-3) << "dp " << dp;
                previous = error;
            }
            RecordProperty("ball_error_" + std::to_string(dp), std::to_string(error));
        }
    }
}

TEST(FreeSurface, DiscEnclosesItsArea) {
    const double radius = 0.1;
    for (const double dp : {0.01, 0.005}) {
        Case c;
        c.name = "disc";
        c.dimension = 2;
        c.dp = dp;
        c.constants.gravity = 0.0;
        c.constants.speed_of_sound = 10.0;
        FluidRegion disc;
        disc.box = test::box(-radius, -radius, radius, radius);
        disc.shape = Sphere{Eigen::Vector3d::Zero(), radius};
        c.fluids = {disc};
        c.domain = test::box(-0.3, -0.3, 0.3, 0.3);
        const vtkSmartPointer<vtkPolyData> s = surface_of(c, Backend::cpu);
        EXPECT_EQ(s->GetNumberOfLines(), 1) << "one closed loop";
        const double error = enclosed_volume(s, 2) / (pi * radius * radius) - 1.0;
        EXPECT_LT(std::abs(error), 0.02) << "dp " << dp << ": " << error;
        RecordProperty("disc_error_" + std::to_string(dp), std::to_string(error));
    }
}

/// The GPU and the CPU interpolate the same fraction (summation order aside): the surfaces of a
/// dam-break column agree point for point to float rounding of the positions.
TEST(FreeSurface, GpuAndCpuAgree) {
    if (!cuda_device_available())
        GTEST_SKIP() << "no CUDA device";
    const Case c = test::tank_case_2d(0.01, 1.0, 0.7, test::box(0.0, 0.0, 0.4, 0.5));
    const vtkSmartPointer<vtkPolyData> cpu = surface_of(c, Backend::cpu);
    const vtkSmartPointer<vtkPolyData> gpu = surface_of(c, Backend::cuda);
    ASSERT_EQ(cpu->GetNumberOfPoints(), gpu->GetNumberOfPoints());
    double worst = 0.0;
    for (vtkIdType k = 0; k < cpu->GetNumberOfPoints(); ++k) {
        double a[3], b[3];
        cpu->GetPoint(k, a);
        gpu->GetPoint(k, b);
        for (int i = 0; i < 3; ++i)
            worst = std::max(worst, std::abs(a[i] - b[i]));
    }
    EXPECT_LT(worst, 1e-5 * c.dp * 100);
}

class SeriesReader : public test::TempFolderTest {
protected:
    SeriesReader() : TempFolderTest("sluice_series_reader_") {}
};

TEST_F(SeriesReader, ReadsASnapshotBackAndNamesBadFiles) {
    const Case c = test::tank_case_2d(0.05, 1.0, 0.7, test::box(0.0, 0.0, 0.5, 0.5));
    const Snapshot written = initial_snapshot(c, generate_particles(c));
    write_vtp(root_ / "s_0000.vtp", written);
    const Snapshot read = read_snapshot(root_ / "s_0000.vtp");
    ASSERT_EQ(read.size(), written.size());
    EXPECT_EQ(read.id, written.id);
    EXPECT_EQ(read.type, written.type);
    EXPECT_EQ(read.position, written.position);
    EXPECT_EQ(read.density, written.density);
    // Truncated: VTK's error becomes a SeriesError naming the file.
    const std::string bytes = test::read_file(root_ / "s_0000.vtp");
    std::ofstream(root_ / "cut.vtp", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    try {
        read_snapshot(root_ / "cut.vtp");
        ADD_FAILURE() << "a truncated snapshot was read";
    } catch (const SeriesError& e) {
        EXPECT_NE(std::string(e.what()).find("cut.vtp"), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_snapshot(root_ / "missing.vtp"), SeriesError);
    std::ofstream(root_ / "empty.pvd") << "<VTKFile type=\"Collection\"><Collection/></VTKFile>";
    EXPECT_THROW(read_series(root_ / "empty.pvd"), SeriesError);
    EXPECT_FALSE(read_run_record(root_).has_value());
    std::ofstream(root_ / "summary.json") << "{\"case\": \"x\"}";
    EXPECT_THROW(read_run_record(root_), SeriesError);
}

} // namespace
} // namespace sluice
