/// Output: .vtp snapshots read back with VTK, the .pvd series parsed with tinyxml2 (summary.json:
/// test_summary.cpp), moving objects in every snapshot, temporary files, stale files and write
/// errors.

#include "io/output.h"
#include "io/summary.h"

#include "support/temp_folder.h"

#include <gtest/gtest.h>
#include <tinyxml2.h>
#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkObject.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLPolyDataReader.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace sluice;
using test::files_in;
using test::read_file;

namespace {

// ---------------------------------------------------------------------------------------------

/// n particles with distinct values in every array; every third one is a boundary particle.
Snapshot make_snapshot(int dimension, std::size_t n, double time) {
    Snapshot s;
    s.dimension = dimension;
    s.time = time;
    s.step = 42;
    for (std::size_t i = 0; i < n; ++i) {
        const float f = static_cast<float>(i);
        s.id.push_back(static_cast<std::uint32_t>(10 * i + 3));
        s.type.push_back(i % 3 == 2 ? ParticleType::boundary : ParticleType::fluid);
        const float y = dimension == 3 ? 0.25f * f - 1.0f : 0.0f;
        s.position.push_back({0.1f * f + 1e-7f, y, -0.3f * f});
        s.velocity.push_back({1.5f - f, dimension == 3 ? 2.0f * f : 0.0f, -0.125f * f});
        s.density.push_back(1000.0f + 0.5f * f);
        s.pressure.push_back(-20.0f + 123.456f * f);
    }
    return s;
}

vtkSmartPointer<vtkPolyData> read_vtp(const fs::path& path) {
    vtkNew<vtkXMLPolyDataReader> reader;
    reader->SetFileName(path.c_str());
    reader->Update();
    EXPECT_EQ(reader->GetErrorCode(), 0u) << path;
    vtkSmartPointer<vtkPolyData> poly = reader->GetOutput();
    return poly;
}

/// Checks the array's name, VTK type, component count and values against `expected`.
template <typename T, std::size_t C>
void expect_array(vtkPolyData* poly, const char* name, int vtk_type,
                  const std::vector<std::array<T, C>>& expected) {
    SCOPED_TRACE(name);
    vtkDataArray* a = poly->GetPointData()->GetArray(name);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->GetDataType(), vtk_type);
    ASSERT_EQ(a->GetNumberOfComponents(), static_cast<int>(C));
    ASSERT_EQ(a->GetNumberOfTuples(), static_cast<vtkIdType>(expected.size()));
    for (std::size_t i = 0; i < expected.size(); ++i)
        for (std::size_t c = 0; c < C; ++c)
            EXPECT_EQ(a->GetComponent(static_cast<vtkIdType>(i), static_cast<int>(c)),
                      static_cast<double>(expected[i][c]))
                << "tuple " << i << " component " << c;
}

template <typename T>
std::vector<std::array<T, 1>> scalar(const std::vector<T>& v) {
    std::vector<std::array<T, 1>> out;
    for (const T& x : v)
        out.push_back({x});
    return out;
}

const char* vtk_compressor_name(Compressor c) {
    switch (c) {
    case Compressor::lz4:
        return "vtkLZ4DataCompressor";
    case Compressor::zlib:
        return "vtkZLibDataCompressor";
    case Compressor::none:
        return "";
    }
    return "?";
}

/// Checks that the file holds `s` as written with `format` (the default format when not given).
void expect_vtp_holds(const fs::path& path, const Snapshot& all, const VtpFormat& format = {},
                      bool boundary = true) {
    SCOPED_TRACE(path.string());
    ASSERT_TRUE(fs::is_regular_file(path));
    const std::string header = read_file(path);
    if (format.compressor == Compressor::none)
        EXPECT_EQ(header.find("compressor="), std::string::npos);
    else
        EXPECT_NE(header.find(std::string("compressor=\"") +
                              vtk_compressor_name(format.compressor) + "\""),
                  std::string::npos);
    Snapshot s = all;
    if (!boundary) {
        s = Snapshot{};
        s.dimension = all.dimension;
        s.time = all.time;
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all.type[i] == ParticleType::fluid) {
                s.id.push_back(all.id[i]);
                s.type.push_back(all.type[i]);
                s.position.push_back(all.position[i]);
                s.velocity.push_back(all.velocity[i]);
                s.density.push_back(all.density[i]);
                s.pressure.push_back(all.pressure[i]);
            }
    }
    EXPECT_NE(header.find("<AppendedData encoding=\"raw\">"), std::string::npos);

    vtkSmartPointer<vtkPolyData> poly = read_vtp(path);
    ASSERT_NE(poly, nullptr);
    const vtkIdType n = static_cast<vtkIdType>(s.size());
    ASSERT_EQ(poly->GetNumberOfPoints(), n);
    if (n > 0) {
        EXPECT_EQ(poly->GetPoints()->GetDataType(), VTK_FLOAT);
        for (vtkIdType i = 0; i < n; ++i) {
            double x[3];
            poly->GetPoint(i, x);
            for (int c = 0; c < 3; ++c)
                EXPECT_EQ(x[c], static_cast<double>(s.position[i][c])) << "point " << i;
            if (s.dimension == 2) {
                EXPECT_EQ(x[1], 0.0);
            }
        }
    }
    // One vertex cell per point, in point order.
    ASSERT_EQ(poly->GetNumberOfVerts(), n);
    ASSERT_EQ(poly->GetNumberOfCells(), n);
    for (vtkIdType i = 0; i < n; ++i) {
        EXPECT_EQ(poly->GetCellType(i), VTK_VERTEX);
        vtkIdType count = 0;
        const vtkIdType* ids = nullptr;
        poly->GetCellPoints(i, count, ids);
        ASSERT_EQ(count, 1);
        EXPECT_EQ(ids[0], i);
    }

    EXPECT_EQ(poly->GetPointData()->GetNumberOfArrays(),
              2 + int(format.velocity) + int(format.density) + int(format.pressure));
    std::vector<std::uint8_t> types;
    for (ParticleType t : s.type)
        types.push_back(static_cast<std::uint8_t>(t));
    expect_array(poly, "id", VTK_TYPE_UINT32, scalar(s.id));
    expect_array(poly, "type", VTK_TYPE_UINT8, scalar(types));
    if (format.velocity)
        expect_array(poly, "velocity", VTK_FLOAT, s.velocity);
    else
        EXPECT_EQ(poly->GetPointData()->GetArray("velocity"), nullptr);
    if (format.density)
        expect_array(poly, "density", VTK_FLOAT, scalar(s.density));
    else
        EXPECT_EQ(poly->GetPointData()->GetArray("density"), nullptr);
    if (format.pressure)
        expect_array(poly, "pressure", VTK_FLOAT, scalar(s.pressure));
    else
        EXPECT_EQ(poly->GetPointData()->GetArray("pressure"), nullptr);

    vtkDataArray* time = poly->GetFieldData()->GetArray("TimeValue");
    ASSERT_NE(time, nullptr);
    ASSERT_EQ(time->GetNumberOfTuples(), 1);
    EXPECT_EQ(time->GetTuple1(0), s.time);
}

struct PvdEntry {
    double time;
    std::string file;
};

/// Parses a .pvd (must be well-formed XML of the VTK Collection form) into its entries.
std::vector<PvdEntry> read_pvd(const fs::path& path) {
    tinyxml2::XMLDocument doc;
    EXPECT_EQ(doc.LoadFile(path.c_str()), tinyxml2::XML_SUCCESS) << path;
    const tinyxml2::XMLElement* root = doc.FirstChildElement("VTKFile");
    if (root == nullptr) {
        ADD_FAILURE() << "no VTKFile element in " << path;
        return {};
    }
    EXPECT_STREQ(root->Attribute("type"), "Collection");
    const tinyxml2::XMLElement* collection = root->FirstChildElement("Collection");
    if (collection == nullptr) {
        ADD_FAILURE() << "no Collection element in " << path;
        return {};
    }
    std::vector<PvdEntry> out;
    for (auto* e = collection->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
        EXPECT_STREQ(e->Name(), "DataSet");
        const char* t = e->Attribute("timestep");
        const char* f = e->Attribute("file");
        EXPECT_NE(t, nullptr);
        EXPECT_NE(f, nullptr);
        out.push_back({t ? std::strtod(t, nullptr) : NAN, f ? f : ""});
    }
    return out;
}

/// A fresh directory per test under the system temp dir, removed afterwards.
class OutputTest : public test::TempFolderTest {
protected:
    OutputTest() : TempFolderTest("sluice_test_output_") {}
};

// ---------------------------------------------------------------------------------------------

TEST_F(OutputTest, Writes2DSnapshotThatReadsBack) {
    SnapshotSeriesWriter writer(root_ / "out", "dam");
    const Snapshot s = make_snapshot(2, 5, 0.0);
    const fs::path written = writer.write(s);
    EXPECT_EQ(written, root_ / "out" / "dam_0000.vtp");
    expect_vtp_holds(written, s);
}

TEST_F(OutputTest, Writes3DSnapshotThatReadsBack) {
    SnapshotSeriesWriter writer(root_, "cube");
    const Snapshot s = make_snapshot(3, 7, 1.25);
    expect_vtp_holds(writer.write(s), s);
}

TEST_F(OutputTest, EmptyAndSingleParticleSnapshotsReadBack) {
    SnapshotSeriesWriter writer(root_, "tiny");
    const Snapshot empty = make_snapshot(3, 0, 0.5);
    const Snapshot one = make_snapshot(2, 1, 0.75);
    expect_vtp_holds(writer.write(empty), empty);
    expect_vtp_holds(writer.write(one), one);
}

TEST_F(OutputTest, EveryCompressorAndLevelReadsBack) {
    const Snapshot s = make_snapshot(3, 2000, 0.5);
    std::uintmax_t none_bytes = 0, zlib_bytes = 0;
    for (Compressor c : {Compressor::none, Compressor::lz4, Compressor::zlib})
        for (int level : {0, 1, 9}) {
            if (c == Compressor::none && level != 0)
                continue;
            VtpFormat f;
            f.compressor = c;
            f.level = level;
            const fs::path path =
                root_ / (std::string(to_string(c)) + std::to_string(level) + ".vtp");
            const std::uintmax_t bytes = write_vtp(path, s, f);
            EXPECT_EQ(bytes, fs::file_size(path));
            expect_vtp_holds(path, s, f);
            if (c == Compressor::none)
                none_bytes = bytes;
            if (c == Compressor::zlib && level == 9)
                zlib_bytes = bytes;
        }
    EXPECT_LT(zlib_bytes, none_bytes); // it does compress
}

TEST_F(OutputTest, FieldChoiceWritesOnlyTheChosenArrays) {
    const Snapshot s = make_snapshot(2, 30, 0.25);
    for (const char* fields : {"velocity,pressure", "density", "", "pressure velocity density"}) {
        VtpFormat f;
        parse_fields(fields, f);
        const fs::path path = root_ / "fields.vtp";
        write_vtp(path, s, f);
        expect_vtp_holds(path, s, f);
    }
    VtpFormat f;
    parse_fields("velocity, pressure", f);
    EXPECT_EQ(fields_to_string(f), "velocity pressure");
    EXPECT_THROW(parse_fields("velocity,speed", f), std::invalid_argument);
    EXPECT_THROW(parse_fields("pressure pressure", f), std::invalid_argument);
    EXPECT_EQ(fields_to_string(f), "velocity pressure"); // unchanged by a failed parse
    try {
        parse_fields("id", f);
        ADD_FAILURE() << "id is always written, not a choice";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("valid: velocity, density, pressure"),
                  std::string::npos);
    }
    EXPECT_EQ(parse_compressor("zlib"), Compressor::zlib);
    EXPECT_THROW(parse_compressor("gzip"), std::invalid_argument);
}

TEST_F(OutputTest, BoundaryOnlyInTheFirstSnapshotWhenAsked) {
    SnapshotSeriesWriter writer(root_, "walls");
    VtpFormat format;
    format.compressor = Compressor::zlib;
    format.level = 1;
    writer.set_format(format, true);
    const Snapshot s0 = make_snapshot(3, 12, 0.0), s1 = make_snapshot(3, 12, 0.1);
    expect_vtp_holds(writer.write(s0), s0, format);
    expect_vtp_holds(writer.write(s1), s1, format, /*boundary=*/false);
    EXPECT_EQ(read_vtp(root_ / "walls_0001.vtp")->GetNumberOfPoints(), 8); // 12 less 4 walls
    // A failure snapshot shows everything.
    expect_vtp_holds(writer.write_failure(s1), s1, format);
}

/// Moving objects' boundary particles (VtpFormat::moving_boundary) are written in every
/// snapshot also when the others are left out after the first: here the walls with ids 23 and
/// 53 (particles 2 and 5 of make_snapshot's), of the range [20, 60), and none of the others.
TEST_F(OutputTest, MovingBoundaryParticlesInEverySnapshot) {
    SnapshotSeriesWriter writer(root_, "moving");
    VtpFormat format;
    format.moving_boundary = {{20u, 40u}};
    writer.set_format(format, true);
    const Snapshot s0 = make_snapshot(2, 12, 0.0), s1 = make_snapshot(2, 12, 0.1);
    writer.write(s0);
    writer.write(s1);
    const vtkSmartPointer<vtkPolyData> later = read_vtp(root_ / "moving_0001.vtp");
    EXPECT_EQ(later->GetNumberOfPoints(), 10); // 8 fluid + the 2 moving walls of 4
    vtkDataArray* ids = later->GetPointData()->GetArray("id");
    vtkDataArray* types = later->GetPointData()->GetArray("type");
    ASSERT_NE(ids, nullptr);
    std::vector<double> walls;
    for (vtkIdType k = 0; k < later->GetNumberOfPoints(); ++k)
        if (types->GetTuple1(k) != 0.0)
            walls.push_back(ids->GetTuple1(k));
    EXPECT_EQ(walls, (std::vector<double>{23.0, 53.0}));
    EXPECT_EQ(read_vtp(root_ / "moving_0000.vtp")->GetNumberOfPoints(), 12);
}

TEST_F(OutputTest, ConcurrentWritesFinishInAnyOrderAndThePvdListsOnlyCompleteOnes) {
    SnapshotSeriesWriter writer(root_, "pool");
    std::vector<std::size_t> index;
    for (int k = 0; k < 6; ++k)
        index.push_back(writer.reserve());
    EXPECT_EQ(index, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
    // Snapshots 3 and 1 finish first: the .pvd lists them, in time order, and nothing else.
    writer.write(index[3], make_snapshot(2, 5, 0.1 * 3));
    writer.write(index[1], make_snapshot(2, 5, 0.1 * 1));
    std::vector<PvdEntry> entries = read_pvd(writer.pvd_path());
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[0].file, "pool_0001.vtp");
    EXPECT_EQ(entries[1].file, "pool_0003.vtp");
    EXPECT_EQ(writer.count(), 2u);
    EXPECT_THROW(writer.write(index[1], make_snapshot(2, 5, 0.1)), std::logic_error);
    EXPECT_THROW(writer.write(17, make_snapshot(2, 5, 0.1)), std::logic_error);
    // The rest at once, from four threads.
    std::vector<std::thread> threads;
    for (std::size_t k : {0, 2, 4, 5})
        threads.emplace_back([&writer, k] { writer.write(k, make_snapshot(2, 5, 0.1 * k)); });
    for (std::thread& t : threads)
        t.join();
    entries = read_pvd(writer.pvd_path());
    ASSERT_EQ(entries.size(), 6u);
    for (std::size_t k = 0; k < 6; ++k) {
        EXPECT_EQ(entries[k].time, 0.1 * k);
        expect_vtp_holds(root_ / entries[k].file, make_snapshot(2, 5, 0.1 * k));
    }
    EXPECT_EQ(writer.files().size(), 6u);
    EXPECT_TRUE(files_in(root_).count(".pool.pvd.tmp") == 0);
}

TEST_F(OutputTest, RejectsSnapshotWithArraysOfDifferentLengths) {
    Snapshot s = make_snapshot(2, 4, 0.0);
    s.pressure.pop_back();
    EXPECT_THROW(write_vtp(root_ / "bad.vtp", s), std::invalid_argument);
    EXPECT_FALSE(fs::exists(root_ / "bad.vtp"));
}

TEST_F(OutputTest, PvdListsEverySnapshotWithItsTime) {
    SnapshotSeriesWriter writer(root_, "series");
    const std::vector<double> times = {0.0, 0.1, 0.2, 1.0 / 3.0};
    for (std::size_t k = 0; k < times.size(); ++k) {
        writer.write(make_snapshot(2, 3 + k, times[k]));
        // After every write the .pvd is complete: it lists exactly the snapshots so far.
        const std::vector<PvdEntry> entries = read_pvd(writer.pvd_path());
        ASSERT_EQ(entries.size(), k + 1);
        EXPECT_EQ(entries.back().time, times[k]); // exact: shortest round-trip form
    }
    EXPECT_EQ(writer.count(), times.size());
    ASSERT_EQ(writer.files().size(), times.size());

    const std::vector<PvdEntry> entries = read_pvd(root_ / "series.pvd");
    ASSERT_EQ(entries.size(), times.size());
    for (std::size_t k = 0; k < times.size(); ++k) {
        char expected[32];
        std::snprintf(expected, sizeof expected, "series_%04zu.vtp", k);
        EXPECT_EQ(entries[k].file, expected);
        EXPECT_EQ(entries[k].time, times[k]);
        EXPECT_TRUE(fs::is_regular_file(root_ / entries[k].file)) << entries[k].file;
        EXPECT_EQ(writer.files()[k], root_ / expected);
        expect_vtp_holds(root_ / entries[k].file, make_snapshot(2, 3 + k, times[k]));
    }
}

TEST_F(OutputTest, NoTemporaryFilesRemainAfterWrites) {
    SnapshotSeriesWriter writer(root_, "clean");
    for (int k = 0; k < 5; ++k)
        writer.write(make_snapshot(3, 10, 0.01 * k));
    writer.write_failure(make_snapshot(3, 10, 0.06));
    write_summary_json(root_ / "summary.json", RunSummary{});
    const std::set<std::string> expected = {"clean_0000.vtp", "clean_0001.vtp", "clean_0002.vtp",
                                            "clean_0003.vtp", "clean_0004.vtp", "clean_failed.vtp",
                                            "clean.pvd",      "summary.json"};
    EXPECT_EQ(files_in(root_), expected);
}

TEST_F(OutputTest, FailureSnapshotIsWrittenButNotListed) {
    SnapshotSeriesWriter writer(root_, "run");
    writer.write(make_snapshot(2, 4, 0.0));
    writer.write(make_snapshot(2, 4, 0.5));
    const std::string pvd_before = read_file(writer.pvd_path());

    const Snapshot bad = make_snapshot(2, 6, 0.625);
    const fs::path failed = writer.write_failure(bad);
    EXPECT_EQ(failed, root_ / "run_failed.vtp");
    expect_vtp_holds(failed, bad);
    EXPECT_EQ(read_file(writer.pvd_path()), pvd_before);
    EXPECT_EQ(writer.count(), 2u);
    EXPECT_EQ(writer.files().size(), 2u);
    for (const PvdEntry& e : read_pvd(writer.pvd_path()))
        EXPECT_NE(e.file, "run_failed.vtp");
}

TEST_F(OutputTest, ConstructionRemovesStaleFilesOfTheSameCaseOnly) {
    const std::vector<std::string> stale = {
        "dam_0000.vtp", "dam_0001.vtp",      "dam_12345.vtp", "dam_failed.vtp",   "dam.pvd",
        "summary.json", ".dam_0002.vtp.tmp", ".dam.pvd.tmp",  ".summary.json.tmp"};
    const std::vector<std::string> kept = {"dam_break_0000.vtp", "other_0000.vtp",
                                           "other.pvd",          "dam.xml",
                                           "dam_0000.vtu",       "notes.json"};
    for (const auto& name : stale)
        std::ofstream(root_ / name) << "old";
    for (const auto& name : kept)
        std::ofstream(root_ / name) << "keep";

    SnapshotSeriesWriter writer(root_, "dam");
    EXPECT_EQ(writer.count(), 0u);
    EXPECT_EQ(files_in(root_), std::set<std::string>(kept.begin(), kept.end()));
}

TEST_F(OutputTest, RerunReplacesThePreviousSeries) {
    {
        SnapshotSeriesWriter first(root_, "case");
        for (int k = 0; k < 3; ++k)
            first.write(make_snapshot(2, 2, k));
        first.write_failure(make_snapshot(2, 2, 3.0));
    }
    SnapshotSeriesWriter second(root_, "case");
    second.write(make_snapshot(2, 2, 0.0));
    EXPECT_EQ(files_in(root_), (std::set<std::string>{"case_0000.vtp", "case.pvd"}));
    ASSERT_EQ(read_pvd(root_ / "case.pvd").size(), 1u);
}

TEST_F(OutputTest, InvalidCaseNameIsRejected) {
    EXPECT_THROW(SnapshotSeriesWriter(root_, ""), std::invalid_argument);
    EXPECT_THROW(SnapshotSeriesWriter(root_, "a/b"), std::invalid_argument);
}

TEST_F(OutputTest, UnwritablePathsThrowNamingThePath) {
    const fs::path blocker = root_ / "regular_file";
    std::ofstream(blocker) << "not a directory";

    const fs::path dir = blocker / "out";
    try {
        SnapshotSeriesWriter writer(dir, "case");
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
    }

    const fs::path json = blocker / "summary.json";
    try {
        write_summary_json(json, RunSummary{});
        FAIL() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(json.string()), std::string::npos) << e.what();
    }

    const fs::path vtp = blocker / "case_0000.vtp";
    const int display = vtkObject::GetGlobalWarningDisplay();
    vtkObject::GlobalWarningDisplayOff(); // the VTK writer reports the failure on stderr too
    try {
        write_vtp(vtp, make_snapshot(2, 3, 0.0));
        ADD_FAILURE() << "expected std::runtime_error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(vtp.string()), std::string::npos) << e.what();
    }
    vtkObject::SetGlobalWarningDisplay(display);
}

} // namespace
