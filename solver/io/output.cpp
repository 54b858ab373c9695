#include "io/output.h"

#include "io/atomic_file.h"
#include "io/file_names.h"

#include <tinyxml2.h>
#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkErrorCode.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkTypeUInt32Array.h>
#include <vtkTypeUInt8Array.h>
#include <vtkXMLPolyDataWriter.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace sluice {
namespace fs = std::filesystem;

namespace {

/// vtkErrorCode::GetStringFromErrorCode lives in VTK::CommonMisc, which we do not link; the
/// codes a writer sets are few.
std::string vtk_error_text(unsigned long code) {
    switch (code) {
    case vtkErrorCode::NoError:
        return "VTK writer failed";
    case vtkErrorCode::CannotOpenFileError:
        return "cannot open file";
    case vtkErrorCode::OutOfDiskSpaceError:
        return "out of disk space";
    default:
        // Below vtkErrorCode's own range VTK passes the system's errno on (e.g. 28, ENOSPC).
        if (code > 0 && code < vtkErrorCode::FirstVTKErrorCode)
            return std::strerror(static_cast<int>(code));
        return "VTK writer error code " + std::to_string(code);
    }
}

/// Shortest decimal form that reads back as the same double; non-finite values give "null".
std::string number_or_null(double x) {
    if (!std::isfinite(x))
        return "null";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

/// A named VTK array of `tuples` × `components` values copied from contiguous `data`.
template <typename ArrayT, typename T>
vtkSmartPointer<ArrayT> make_array(const char* name, int components, const T* data,
                                   std::size_t tuples) {
    auto a = vtkSmartPointer<ArrayT>::New();
    a->SetName(name);
    a->SetNumberOfComponents(components);
    a->SetNumberOfTuples(static_cast<vtkIdType>(tuples));
    const std::size_t bytes =
        tuples * static_cast<std::size_t>(components) * sizeof(*a->GetPointer(0));
    if (bytes > 0)
        std::memcpy(a->GetPointer(0), data, bytes);
    return a;
}

static_assert(sizeof(std::array<float, 3>) == 3 * sizeof(float), "positions must be packed");
static_assert(sizeof(ParticleType) == 1, "type is written as uint8");

vtkSmartPointer<vtkPolyData> to_polydata(const Snapshot& s) {
    const std::size_t n = s.size();
    auto poly = vtkSmartPointer<vtkPolyData>::New();

    vtkNew<vtkPoints> points;
    points->SetData(make_array<vtkFloatArray>(
        "Points", 3, reinterpret_cast<const float*>(s.position.data()), n));
    poly->SetPoints(points);

    // One VTK_VERTEX per particle: offsets 0..n, connectivity 0..n-1.
    vtkNew<vtkIdTypeArray> offsets;
    offsets->SetNumberOfValues(static_cast<vtkIdType>(n + 1));
    std::iota(offsets->GetPointer(0), offsets->GetPointer(0) + n + 1, vtkIdType{0});
    vtkNew<vtkIdTypeArray> connectivity;
    connectivity->SetNumberOfValues(static_cast<vtkIdType>(n));
    std::iota(connectivity->GetPointer(0), connectivity->GetPointer(0) + n, vtkIdType{0});
    vtkNew<vtkCellArray> verts;
    verts->SetData(offsets, connectivity);
    poly->SetVerts(verts);

    vtkPointData* pd = poly->GetPointData();
    pd->AddArray(make_array<vtkTypeUInt32Array>("id", 1, s.id.data(), n));
    pd->AddArray(make_array<vtkTypeUInt8Array>(
        "type", 1, reinterpret_cast<const std::uint8_t*>(s.type.data()), n));
    pd->AddArray(make_array<vtkFloatArray>("velocity", 3,
                                           reinterpret_cast<const float*>(s.velocity.data()), n));
    pd->AddArray(make_array<vtkFloatArray>("density", 1, s.density.data(), n));
    pd->AddArray(make_array<vtkFloatArray>("pressure", 1, s.pressure.data(), n));
    pd->SetActiveVectors("velocity");

    vtkNew<vtkDoubleArray> time;
    time->SetName("TimeValue");
    time->InsertNextValue(s.time);
    poly->GetFieldData()->AddArray(time);
    return poly;
}

/// Names a previous run of case `name` leaves in its directory (see the constructor's
/// contract): `<name>.pvd`, `<name>_<digits>.vtp`, `<name>_failed.vtp`, summary.json,
/// gauges.csv, diagnostics.csv and checkpoints.
bool is_run_file(const std::string& file, const std::string& name) {
    return file == name + ".pvd" || file == name + "_failed.vtp" || file == "summary.json" ||
           file == "gauges.csv" || file == "diagnostics.csv" || series_index(file, name) ||
           checkpoint_step(file, name);
}

bool is_stale(const std::string& file, const std::string& name) {
    const std::string tmp_suffix = ".tmp";
    if (file.size() > 1 + tmp_suffix.size() && file[0] == '.' &&
        file.compare(file.size() - tmp_suffix.size(), tmp_suffix.size(), tmp_suffix) == 0)
        return is_run_file(file.substr(1, file.size() - 1 - tmp_suffix.size()), name);
    return is_run_file(file, name);
}

} // namespace

void write_vtp(const fs::path& path, const Snapshot& s) {
    const std::size_t n = s.size();
    if (s.type.size() != n || s.position.size() != n || s.velocity.size() != n ||
        s.density.size() != n || s.pressure.size() != n)
        throw std::invalid_argument("output: snapshot arrays differ in length (writing " +
                                    quoted(path) + ")");

    const fs::path tmp = temp_path_for(path);
    vtkNew<vtkXMLPolyDataWriter> writer;
    writer->SetFileName(tmp.c_str());
    writer->SetInputData(to_polydata(s));
    writer->SetDataModeToAppended(); // raw appended blocks: no base64, fastest to read
    writer->EncodeAppendedDataOff();
    writer->SetCompressorTypeToZLib();
    writer->SetHeaderTypeToUInt64();
    if (writer->Write() == 0 || writer->GetErrorCode() != vtkErrorCode::NoError) {
        const unsigned long code = writer->GetErrorCode();
        std::error_code ec;
        fs::remove(tmp, ec);
        fail_output("write", path, vtk_error_text(code));
    }
    move_into_place(tmp, path);
}

SnapshotSeriesWriter::SnapshotSeriesWriter(fs::path directory, std::string case_name)
    : directory_(std::move(directory)), name_(std::move(case_name)) {
    if (name_.empty() || name_.find('/') != std::string::npos || name_ == "." || name_ == "..")
        throw std::invalid_argument("output: invalid case name '" + name_ +
                                    "' (must be a plain file name)");
    std::error_code ec;
    fs::create_directories(directory_, ec);
    if (ec || !fs::is_directory(directory_))
        fail_output("create output directory", directory_,
                    ec ? ec.message() : "exists and is not a directory");

    std::vector<fs::path> stale;
    for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec))
        if (is_stale(it->path().filename().string(), name_))
            stale.push_back(it->path());
    if (ec)
        fail_output("list output directory", directory_, ec.message());
    for (const fs::path& p : stale)
        if (!fs::remove(p, ec) && ec)
            fail_output("remove stale output file", p, ec.message());
}

SnapshotSeriesWriter::SnapshotSeriesWriter(fs::path directory, std::string case_name,
                                           const std::vector<double>& resume_times)
    : directory_(std::move(directory)), name_(std::move(case_name)) {
    if (name_.empty() || name_.find('/') != std::string::npos || name_ == "." || name_ == "..")
        throw std::invalid_argument("output: invalid case name '" + name_ +
                                    "' (must be a plain file name)");
    for (std::size_t k = 0; k < resume_times.size(); ++k) {
        char index[32];
        std::snprintf(index, sizeof index, "_%04zu.vtp", k);
        const fs::path path = directory_ / (name_ + index);
        if (!fs::exists(path))
            fail_output("resume the series in", directory_,
                        "its snapshot " + path.filename().string() + " is missing");
        files_.push_back(path);
        times_.push_back(resume_times[k]);
    }
    // What the interrupted run wrote after its checkpoint is written again: remove it, and the
    // temporaries of writes it did not finish.
    std::error_code ec;
    std::vector<fs::path> later;
    for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string file = it->path().filename().string();
        const auto index = series_index(file, name_);
        const bool temporary = file.size() > 5 && file[0] == '.' &&
                               file.compare(file.size() - 4, 4, ".tmp") == 0 &&
                               is_stale(file, name_);
        if ((index && *index >= resume_times.size()) || file == name_ + "_failed.vtp" || temporary)
            later.push_back(it->path());
    }
    if (ec)
        fail_output("list output directory", directory_, ec.message());
    for (const fs::path& p : later)
        if (!fs::remove(p, ec) && ec)
            fail_output("remove output file written after the checkpoint", p, ec.message());
    write_pvd();
}

fs::path SnapshotSeriesWriter::pvd_path() const {
    return directory_ / (name_ + ".pvd");
}

fs::path SnapshotSeriesWriter::write(const Snapshot& snapshot) {
    char index[32];
    std::snprintf(index, sizeof index, "_%04zu.vtp", files_.size());
    const fs::path path = directory_ / (name_ + index);
    write_vtp(path, snapshot);
    files_.push_back(path);
    times_.push_back(snapshot.time);
    write_pvd();
    return path;
}

fs::path SnapshotSeriesWriter::write_failure(const Snapshot& snapshot) {
    const fs::path path = directory_ / (name_ + "_failed.vtp");
    write_vtp(path, snapshot);
    return path;
}

void SnapshotSeriesWriter::write_pvd() const {
    tinyxml2::XMLPrinter xml;
    xml.PushHeader(false, true);
    xml.OpenElement("VTKFile");
    xml.PushAttribute("type", "Collection");
    xml.PushAttribute("version", "0.1");
    xml.PushAttribute("byte_order", "LittleEndian");
    xml.OpenElement("Collection");
    for (std::size_t i = 0; i < files_.size(); ++i) {
        xml.OpenElement("DataSet");
        xml.PushAttribute("timestep", number_or_null(times_[i]).c_str());
        xml.PushAttribute("group", "");
        xml.PushAttribute("part", "0");
        xml.PushAttribute("file", files_[i].filename().string().c_str());
        xml.CloseElement();
    }
    xml.CloseElement();
    xml.CloseElement();
    write_file_atomically(pvd_path(), xml.CStr());
}

} // namespace sluice
