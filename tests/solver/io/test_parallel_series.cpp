// The series of a run over several processes (output.h, pieces mode): one .vtp piece per process
// per time, a .pvtp naming them, the .pvd listing only times whose pieces are all complete; read
// back with VTK's parallel reader, as ParaView opens them.

#include "io/output.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tinyxml2.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkXMLPPolyDataReader.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace sluice;

namespace {

Snapshot make_piece(std::uint32_t first_id, std::size_t n, double time) {
    Snapshot s;
    s.dimension = 2;
    s.time = time;
    for (std::size_t i = 0; i < n; ++i) {
        const float f = static_cast<float>(first_id + i);
        s.id.push_back(first_id + static_cast<std::uint32_t>(i));
        s.type.push_back(i % 4 == 0 ? ParticleType::boundary : ParticleType::fluid);
        s.position.push_back({0.01f * f, 0.0f, 0.5f});
        s.velocity.push_back({f, 0.0f, -f});
        s.density.push_back(1000.0f + f);
        s.pressure.push_back(2.0f * f);
    }
    return s;
}

/// The .pvd's DataSet files, in order (none before the .pvd is first written).
std::vector<std::string> pvd_files(const fs::path& pvd) {
    if (!fs::exists(pvd))
        return {};
    tinyxml2::XMLDocument doc;
    EXPECT_EQ(doc.LoadFile(pvd.c_str()), tinyxml2::XML_SUCCESS) << pvd;
    std::vector<std::string> out;
    const tinyxml2::XMLElement* collection =
        doc.FirstChildElement("VTKFile")
            ? doc.FirstChildElement("VTKFile")->FirstChildElement("Collection")
            : nullptr;
    if (collection == nullptr)
        return out;
    for (const tinyxml2::XMLElement* e = collection->FirstChildElement("DataSet"); e;
         e = e->NextSiblingElement("DataSet"))
        out.emplace_back(e->Attribute("file"));
    return out;
}

vtkSmartPointer<vtkPolyData> read_pvtp(const fs::path& path) {
    vtkNew<vtkXMLPPolyDataReader> reader;
    reader->SetFileName(path.c_str());
    reader->Update();
    EXPECT_EQ(reader->GetErrorCode(), 0u) << path;
    return reader->GetOutput();
}

TEST(SnapshotSeriesPieces, PiecesOfEveryProcessOpenAsOneDataSet) {
    const fs::path dir = fs::path(testing::TempDir()) / "sluice_pieces";
    fs::remove_all(dir);
    SnapshotSeriesWriter first(dir, "run"), second(dir, "run");
    first.set_pieces(0, 2);
    second.set_pieces(1, 2);
    for (int k = 0; k < 3; ++k) {
        const double t = 0.1 * k;
        first.write(first.reserve(), make_piece(0, 7, t));
        EXPECT_EQ(first.complete_prefix(), static_cast<std::size_t>(k + 1));
        // Only the first piece of time k exists: nothing new is listed.
        first.publish(std::min(first.complete_prefix(), second.complete_prefix()));
        EXPECT_EQ(pvd_files(dir / "run.pvd").size(), static_cast<std::size_t>(k));
        second.write(second.reserve(), make_piece(7, 5, t));
        first.publish(std::min(first.complete_prefix(), second.complete_prefix()));
        ASSERT_EQ(pvd_files(dir / "run.pvd").size(), static_cast<std::size_t>(k + 1));
    }
    const std::vector<std::string> files = pvd_files(dir / "run.pvd");
    EXPECT_EQ(files, (std::vector<std::string>{"run_0000.pvtp", "run_0001.pvtp", "run_0002.pvtp"}));
    const vtkSmartPointer<vtkPolyData> poly = read_pvtp(dir / files[2]);
    ASSERT_EQ(poly->GetNumberOfPoints(), 12);
    vtkDataArray* id = poly->GetPointData()->GetArray("id");
    vtkDataArray* density = poly->GetPointData()->GetArray("density");
    ASSERT_NE(id, nullptr);
    ASSERT_NE(density, nullptr);
    ASSERT_NE(poly->GetPointData()->GetArray("velocity"), nullptr);
    ASSERT_NE(poly->GetPointData()->GetArray("pressure"), nullptr);
    for (vtkIdType i = 0; i < 12; ++i) { // the pieces in process order
        EXPECT_EQ(id->GetComponent(i, 0), static_cast<double>(i));
        EXPECT_EQ(density->GetComponent(i, 0), 1000.0 + static_cast<double>(i));
    }
    // A re-run in the same directory starts clean: pieces and .pvtp files of the last one go.
    SnapshotSeriesWriter again(dir, "run");
    EXPECT_FALSE(fs::exists(dir / "run_0000.pvtp"));
    EXPECT_FALSE(fs::exists(dir / "run_0000_1.vtp"));
    fs::remove_all(dir);
}

TEST(SnapshotSeriesPieces, FailureStateOfEveryProcessInOneFile) {
    const fs::path dir = fs::path(testing::TempDir()) / "sluice_pieces_failed";
    fs::remove_all(dir);
    SnapshotSeriesWriter first(dir, "run"), second(dir, "run");
    first.set_pieces(0, 2);
    second.set_pieces(1, 2);
    EXPECT_EQ(first.write_failure(make_piece(0, 3, 1.0)).filename(), "run_failed_0.vtp");
    EXPECT_EQ(second.write_failure(make_piece(3, 4, 1.0)).filename(), "run_failed_1.vtp");
    const fs::path failed = first.publish_failure();
    EXPECT_EQ(failed.filename(), "run_failed.pvtp");
    EXPECT_EQ(read_pvtp(failed)->GetNumberOfPoints(), 7);
    EXPECT_TRUE(pvd_files(dir / "run.pvd").empty()); // the failure is not in the series
    fs::remove_all(dir);
}

/// A restart under another number of processes continues the series in its own form, and the
/// .pvd lists the kept snapshots as they were written: two processes' .pvtp, then one process's
/// .vtp, then three processes' pieces again. What the interrupted run wrote after its checkpoint
/// goes, whichever process wrote it.
TEST(SnapshotSeriesPieces, RegroupedRestartKeepsEachSnapshotsForm) {
    const fs::path dir = fs::path(testing::TempDir()) / "sluice_pieces_regrouped";
    fs::remove_all(dir);
    using Regrouped = SnapshotSeriesWriter::RegroupedSeries;
    {
        SnapshotSeriesWriter first(dir, "run"), second(dir, "run");
        first.set_pieces(0, 2);
        second.set_pieces(1, 2);
        for (int k = 0; k < 3; ++k) { // the third one after the checkpoint
            first.write(first.reserve(), make_piece(0, 7, 0.1 * k));
            second.write(second.reserve(), make_piece(7, 5, 0.1 * k));
            first.publish(k + 1);
        }
        first.write_failure(make_piece(0, 7, 0.25));
    }
    {
        SnapshotSeriesWriter one(dir, "run", {0.0, 0.1}, 0, 0, Regrouped{});
        EXPECT_FALSE(fs::exists(dir / "run_0002.pvtp"));
        EXPECT_FALSE(fs::exists(dir / "run_0002_0.vtp"));
        EXPECT_FALSE(fs::exists(dir / "run_0002_1.vtp"));
        EXPECT_FALSE(fs::exists(dir / "run_failed_0.vtp"));
        EXPECT_TRUE(fs::exists(dir / "run_0001_1.vtp"));
        EXPECT_EQ(pvd_files(dir / "run.pvd"),
                  (std::vector<std::string>{"run_0000.pvtp", "run_0001.pvtp"}));
        one.write(make_piece(0, 12, 0.2));
        one.write(make_piece(0, 12, 0.3)); // after the next checkpoint
        EXPECT_EQ(pvd_files(dir / "run.pvd"),
                  (std::vector<std::string>{"run_0000.pvtp", "run_0001.pvtp", "run_0002.vtp",
                                            "run_0003.vtp"}));
    }
    {
        // Piece 0 first (it clears what came after the checkpoint), then the others.
        SnapshotSeriesWriter first(dir, "run", {0.0, 0.1, 0.2}, 0, 3, Regrouped{});
        EXPECT_FALSE(fs::exists(dir / "run_0003.vtp"));
        SnapshotSeriesWriter second(dir, "run", {0.0, 0.1, 0.2}, 1, 3, Regrouped{});
        SnapshotSeriesWriter third(dir, "run", {0.0, 0.1, 0.2}, 2, 3, Regrouped{});
        first.write(first.reserve(), make_piece(0, 4, 0.3));
        second.write(second.reserve(), make_piece(4, 4, 0.3));
        third.write(third.reserve(), make_piece(8, 4, 0.3));
        first.publish(
            std::min({first.complete_prefix(), second.complete_prefix(), third.complete_prefix()}));
    }
    const std::vector<std::string> files = pvd_files(dir / "run.pvd");
    EXPECT_EQ(files, (std::vector<std::string>{"run_0000.pvtp", "run_0001.pvtp", "run_0002.vtp",
                                               "run_0003.pvtp"}));
    EXPECT_EQ(read_pvtp(dir / "run_0001.pvtp")->GetNumberOfPoints(), 12);
    EXPECT_EQ(read_pvtp(dir / "run_0003.pvtp")->GetNumberOfPoints(), 12);
    // A kept snapshot that is gone cannot be continued.
    fs::remove(dir / "run_0002.vtp");
    EXPECT_THROW(SnapshotSeriesWriter(dir, "run", {0.0, 0.1, 0.2}, 0, 2, Regrouped{}),
                 std::runtime_error);
    fs::remove_all(dir);
}

/// What `mpirun -np 2 sluice run cases/dambreak2d.xml` wrote (ctest Mpi.RunWritesOneSeries runs
/// it first and sets SLUICE_MPI_RUN_DIR).
TEST(ParallelSeries, MpirunOutputOpensAsOneDataSet) {
    const char* dir_env = std::getenv("SLUICE_MPI_RUN_DIR");
    if (dir_env == nullptr)
        GTEST_SKIP() << "run by ctest's Mpi.ParallelSeriesOpens after an mpirun run";
    const fs::path dir = dir_env;
    std::ifstream in(dir / "summary.json");
    ASSERT_TRUE(in) << dir / "summary.json";
    const nlohmann::json summary = nlohmann::json::parse(in);
    EXPECT_EQ(summary["status"], "completed");
    const nlohmann::json& d = summary["decomposition"];
    ASSERT_TRUE(d.is_object());
    EXPECT_EQ(d["processes"], 2);
    ASSERT_EQ(d["per_process"].size(), 2u);
    ASSERT_EQ(d["faces_m"].size(), 3u);
    for (const char* stage : {"halo", "migration", "waiting"})
        EXPECT_GT(summary["stages_s"][stage].get<double>(), 0.0) << stage;
    const std::uint64_t particles =
        summary["particles"]["initial"]["fluid"].get<std::uint64_t>() +
        summary["particles"]["initial"]["boundary"].get<std::uint64_t>();
    std::uint64_t owned = 0;
    for (const auto& p : d["per_process"]) {
        owned += p["particles"]["fluid"].get<std::uint64_t>() +
                 p["particles"]["boundary"].get<std::uint64_t>() +
                 p["particles"]["excluded"].get<std::uint64_t>();
        EXPECT_GT(p["particles"]["fluid"].get<std::uint64_t>(), 0u);
    }
    EXPECT_EQ(owned, particles);

    const std::vector<std::string> files = pvd_files(dir / "dambreak2d.pvd");
    EXPECT_EQ(files.size(), summary["snapshots"].get<std::size_t>());
    ASSERT_GE(files.size(), 2u);
    for (const std::string& file : files) {
        SCOPED_TRACE(file);
        EXPECT_EQ(fs::path(file).extension(), ".pvtp");
        const vtkSmartPointer<vtkPolyData> poly = read_pvtp(dir / file);
        ASSERT_EQ(static_cast<std::uint64_t>(poly->GetNumberOfPoints()), particles);
        vtkDataArray* id = poly->GetPointData()->GetArray("id");
        ASSERT_NE(id, nullptr);
        std::set<double> ids;
        for (vtkIdType i = 0; i < id->GetNumberOfTuples(); ++i)
            ids.insert(id->GetComponent(i, 0));
        EXPECT_EQ(ids.size(), particles); // each particle in exactly one piece
    }
    // diagnostics.csv and gauges.csv are written once, by the first process.
    EXPECT_TRUE(fs::exists(dir / "diagnostics.csv"));
    EXPECT_TRUE(fs::exists(dir / "gauges.csv"));
}

} // namespace
