// mDBC's wall normals in the output (io/snapshot.h, Snapshot::normal): a snapshot that has them
// writes a `normal` point array (float32 ×3) that reads back as written, also when only its
// fluid particles are written; one without them writes none; in a series over several processes
// the .pvtp of a time lists the array exactly when its pieces have it.

#include "io/output.h"

#include <gtest/gtest.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkXMLPPolyDataReader.h>
#include <vtkXMLPolyDataReader.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace sluice;

namespace {

/// n particles, every other one a wall particle; the walls' normals (walls without a ghost
/// node among them) when `normals`.
Snapshot make_snapshot(std::uint32_t first_id, std::size_t n, bool normals) {
    Snapshot s;
    s.dimension = 3;
    for (std::size_t i = 0; i < n; ++i) {
        const float f = static_cast<float>(first_id + i);
        const bool wall = i % 2 == 0;
        s.id.push_back(first_id + static_cast<std::uint32_t>(i));
        s.type.push_back(wall ? ParticleType::boundary : ParticleType::fluid);
        s.position.push_back({0.01f * f, 0.02f * f, 0.5f});
        s.velocity.push_back({f, 0.0f, -f});
        s.density.push_back(1000.0f + f);
        s.pressure.push_back(2.0f * f);
        if (!normals)
            continue;
        if (!wall || i % 6 == 4) // fluid, or a wall particle without a ghost node
            s.normal.push_back({0.0f, 0.0f, 0.0f});
        else
            s.normal.push_back({0.6f, i % 4 == 0 ? 0.0f : 0.8f, i % 4 == 0 ? 0.8f : 0.0f});
    }
    return s;
}

template <class ReaderT>
vtkSmartPointer<vtkPolyData> read(const fs::path& path) {
    vtkNew<ReaderT> reader;
    reader->SetFileName(path.c_str());
    reader->Update();
    EXPECT_EQ(reader->GetErrorCode(), 0u) << path;
    return reader->GetOutput();
}

/// Checks that `poly` has the `normal` array of `expected` (in its order), float32 ×3.
void expect_normals(vtkPolyData* poly, const std::vector<std::array<float, 3>>& expected) {
    vtkDataArray* a = poly->GetPointData()->GetArray("normal");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->GetDataType(), VTK_FLOAT);
    ASSERT_EQ(a->GetNumberOfComponents(), 3);
    ASSERT_EQ(a->GetNumberOfTuples(), static_cast<vtkIdType>(expected.size()));
    for (std::size_t i = 0; i < expected.size(); ++i)
        for (int c = 0; c < 3; ++c)
            EXPECT_EQ(a->GetComponent(static_cast<vtkIdType>(i), c),
                      static_cast<double>(expected[i][c]))
                << "tuple " << i << " component " << c;
}

class VtpNormals : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::path(testing::TempDir()) / ("sluice_normals_" + std::string(info->name()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(VtpNormals, WrittenAndReadBackWhenTheSnapshotHasThem) {
    const Snapshot s = make_snapshot(0, 9, true);
    write_vtp(dir_ / "with.vtp", s);
    const vtkSmartPointer<vtkPolyData> poly = read<vtkXMLPolyDataReader>(dir_ / "with.vtp");
    ASSERT_EQ(poly->GetNumberOfPoints(), 9);
    expect_normals(poly, s.normal);
    // Beside the other arrays, not instead of them, and not ParaView's active normals (the
    // fluid's zero normals would darken the particles' shading).
    EXPECT_EQ(poly->GetPointData()->GetNumberOfArrays(), 6);
    EXPECT_EQ(poly->GetPointData()->GetNormals(), nullptr);

    write_vtp(dir_ / "without.vtp", make_snapshot(0, 9, false));
    EXPECT_EQ(read<vtkXMLPolyDataReader>(dir_ / "without.vtp")->GetPointData()->GetArray("normal"),
              nullptr);
}

TEST_F(VtpNormals, FluidOnlySnapshotKeepsTheArraysConsistent) {
    const Snapshot s = make_snapshot(0, 9, true);
    write_vtp(dir_ / "fluid.vtp", s, VtpFormat{}, false);
    const vtkSmartPointer<vtkPolyData> poly = read<vtkXMLPolyDataReader>(dir_ / "fluid.vtp");
    ASSERT_EQ(poly->GetNumberOfPoints(), 4); // the odd ones
    expect_normals(poly, std::vector<std::array<float, 3>>(4, {0.0f, 0.0f, 0.0f}));
}

TEST_F(VtpNormals, NormalsOfTheWrongLengthAreRefused) {
    Snapshot s = make_snapshot(0, 5, true);
    s.normal.pop_back();
    EXPECT_THROW(write_vtp(dir_ / "bad.vtp", s), std::invalid_argument);
    EXPECT_FALSE(fs::exists(dir_ / "bad.vtp"));
}

TEST_F(VtpNormals, PvtpListsTheArrayWhenItsPiecesHaveIt) {
    SnapshotSeriesWriter first(dir_, "run"), second(dir_, "run");
    first.set_pieces(0, 2);
    second.set_pieces(1, 2);
    for (int k = 0; k < 2; ++k) { // the first time with normals, the second without
        first.write(first.reserve(), make_snapshot(0, 6, k == 0));
        second.write(second.reserve(), make_snapshot(6, 5, k == 0));
    }
    first.publish(2);
    const vtkSmartPointer<vtkPolyData> with = read<vtkXMLPPolyDataReader>(dir_ / "run_0000.pvtp");
    ASSERT_EQ(with->GetNumberOfPoints(), 11);
    std::vector<std::array<float, 3>> expected = make_snapshot(0, 6, true).normal;
    for (const auto& n : make_snapshot(6, 5, true).normal) // the pieces in process order
        expected.push_back(n);
    expect_normals(with, expected);

    const vtkSmartPointer<vtkPolyData> without =
        read<vtkXMLPPolyDataReader>(dir_ / "run_0001.pvtp");
    EXPECT_EQ(without->GetNumberOfPoints(), 11);
    EXPECT_EQ(without->GetPointData()->GetArray("normal"), nullptr);
    EXPECT_NE(without->GetPointData()->GetArray("pressure"), nullptr);
}

TEST_F(VtpNormals, FailurePvtpListsTheArrayWhenItsPiecesHaveIt) {
    SnapshotSeriesWriter first(dir_, "run"), second(dir_, "run");
    first.set_pieces(0, 2);
    second.set_pieces(1, 2);
    const Snapshot a = make_snapshot(0, 4, true), b = make_snapshot(4, 3, true);
    first.write_failure(a);
    second.write_failure(b);
    const vtkSmartPointer<vtkPolyData> poly = read<vtkXMLPPolyDataReader>(first.publish_failure());
    std::vector<std::array<float, 3>> expected = a.normal;
    expected.insert(expected.end(), b.normal.begin(), b.normal.end());
    expect_normals(poly, expected);
}

} // namespace
