#include "io/output.h"

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
#include <stdexcept>
#include <system_error>

namespace sluice {
namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

[[noreturn]] void fail(const std::string& what, const fs::path& p, const std::string& why) {
    throw std::runtime_error("output: cannot " + what + " " + quoted(p) + ": " + why);
}

/// The hidden temporary a file is written to before it is renamed into place: same directory
/// (so the rename is atomic), ".<file>.tmp".
fs::path temp_path_for(const fs::path& path) {
    return path.parent_path() / ("." + path.filename().string() + ".tmp");
}

/// Renames `tmp` to `path`; on failure removes `tmp` and throws naming `path`.
void move_into_place(const fs::path& tmp, const fs::path& path) {
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        fail("rename temporary file to", path, ec.message());
    }
}

/// Writes `text` to `path` through a temporary file; checks every write, flush and close, so a
/// full disk is reported rather than leaving a truncated file.
void write_text_file(const fs::path& path, const std::string& text) {
    const fs::path tmp = temp_path_for(path);
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr)
        fail("write", path, std::strerror(errno));
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fflush(f) == 0 && ok;
    const int err = errno;
    ok = std::fclose(f) == 0 && ok;
    if (!ok) {
        std::error_code ec;
        fs::remove(tmp, ec);
        fail("write", path, std::strerror(err != 0 ? err : EIO));
    }
    move_into_place(tmp, path);
}

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
/// contract): `<name>.pvd`, `<name>_<digits>.vtp`, `<name>_failed.vtp`, summary.json.
bool is_run_file(const std::string& file, const std::string& name) {
    if (file == name + ".pvd" || file == "summary.json")
        return true;
    const std::string prefix = name + "_", suffix = ".vtp";
    if (file.size() <= prefix.size() + suffix.size() ||
        file.compare(0, prefix.size(), prefix) != 0 ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    const std::string middle =
        file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
    return middle == "failed" ||
           std::all_of(middle.begin(), middle.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_stale(const std::string& file, const std::string& name) {
    const std::string tmp_suffix = ".tmp";
    if (file.size() > 1 + tmp_suffix.size() && file[0] == '.' &&
        file.compare(file.size() - tmp_suffix.size(), tmp_suffix.size(), tmp_suffix) == 0)
        return is_run_file(file.substr(1, file.size() - 1 - tmp_suffix.size()), name);
    return is_run_file(file, name);
}

/// RFC 8259 string: quote, backslash and control characters escaped.
std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += ch;
            }
        }
    }
    return out + '"';
}

/// Minimal JSON emitter: nested objects, two-space indentation; member values are passed in
/// already encoded (json_string, number_or_null, std::to_string).
class JsonWriter {
public:
    void begin_object() {
        out_ += '{';
        ++depth_;
        first_ = true;
    }
    void begin_object(const std::string& key) {
        member(key);
        begin_object();
    }
    void end_object() {
        --depth_;
        if (!first_)
            newline();
        out_ += '}';
        first_ = false;
    }
    void value(const std::string& key, const std::string& encoded) {
        member(key);
        out_ += encoded;
    }
    std::string text() const { return out_ + '\n'; }

private:
    void newline() { out_ += '\n' + std::string(2 * depth_, ' '); }
    void member(const std::string& key) {
        if (!first_)
            out_ += ',';
        first_ = false;
        newline();
        out_ += json_string(key) + ": ";
    }

    std::string out_;
    int depth_ = 0;
    bool first_ = true;
};

void counts_json(JsonWriter& j, const std::string& key, const ParticleCounts& c) {
    j.begin_object(key);
    j.value("fluid", std::to_string(c.fluid));
    j.value("boundary", std::to_string(c.boundary));
    j.value("excluded", std::to_string(c.excluded));
    j.end_object();
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
        fail("write", path, vtk_error_text(code));
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
        fail("create output directory", directory_,
             ec ? ec.message() : "exists and is not a directory");

    std::vector<fs::path> stale;
    for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec))
        if (is_stale(it->path().filename().string(), name_))
            stale.push_back(it->path());
    if (ec)
        fail("list output directory", directory_, ec.message());
    for (const fs::path& p : stale)
        if (!fs::remove(p, ec) && ec)
            fail("remove stale output file", p, ec.message());
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
    write_text_file(pvd_path(), xml.CStr());
}

void write_summary_json(const fs::path& path, const RunSummary& s) {
    JsonWriter j;
    j.begin_object();
    j.value("case", json_string(s.case_name));
    j.value("case_file", json_string(s.case_file));
    j.value("backend", json_string(s.backend));
    j.value("neighbour_module", json_string(s.neighbour_module));
    j.value("status", json_string(s.status));
    j.value("failure", json_string(s.failure));
    j.begin_object("particles");
    counts_json(j, "initial", s.initial);
    counts_json(j, "final", s.final_counts);
    j.end_object();
    j.value("steps", std::to_string(s.steps));
    j.value("simulated_time_s", number_or_null(s.simulated_time));
    j.value("end_time_s", number_or_null(s.end_time));
    j.value("wall_time_s", number_or_null(s.wall_time));
    j.begin_object("stages_s");
    for (const auto& [name, seconds] : s.stages)
        j.value(name, number_or_null(seconds));
    j.end_object();
    j.value("snapshots", std::to_string(s.snapshots));
    j.value("h_m", number_or_null(s.smoothing_length));
    j.value("c0_m_per_s", number_or_null(s.speed_of_sound));
    j.value("dp_m", number_or_null(s.dp));
    j.end_object();
    write_text_file(path, j.text());
}

} // namespace sluice
