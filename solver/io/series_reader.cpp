// Reading a run folder back: summary.json (nlohmann/json), the .pvd and .pvtp (TinyXML-2) and the
// .vtp snapshots (VTK's XML PolyData reader), with every error named (io/series_reader.h).

#include "io/series_reader.h"

#include "io/atomic_file.h"

#include <nlohmann/json.hpp>
#include <tinyxml2.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkLogger.h>
#include <vtkNew.h>
#include <vtkObjectFactory.h>
#include <vtkOutputWindow.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLPolyDataReader.h>

#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace sluice {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& why) {
    throw SeriesError(quoted(file) + ": " + why);
}

/// The first message VTK would have printed while a reader runs (its own errors and its XML
/// parser's), kept instead of printed: installed as VTK's output window for the reader's
/// lifetime (VTK has one output window per process; the commands read one file at a time).
class CapturedOutput : public vtkOutputWindow {
public:
    static CapturedOutput* New();
    vtkTypeMacro(CapturedOutput, vtkOutputWindow);
    void DisplayText(const char* text) override {
        if (first.empty() && text != nullptr)
            first = text;
    }
    std::string first;
};
vtkStandardNewMacro(CapturedOutput);

/// Installs a CapturedOutput as VTK's output window and silences VTK's logger on stderr (which
/// prints every error besides); restores both when destroyed.
class CaptureVtkOutput {
public:
    CaptureVtkOutput()
        : previous_(vtkOutputWindow::GetInstance()),
          verbosity_(vtkLogger::GetCurrentVerbosityCutoff()) {
        vtkOutputWindow::SetInstance(captured_);
        vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_OFF);
    }
    ~CaptureVtkOutput() {
        vtkLogger::SetStderrVerbosity(verbosity_);
        vtkOutputWindow::SetInstance(previous_);
    }
    const std::string& first() const { return captured_->first; }

private:
    vtkSmartPointer<vtkOutputWindow> previous_;
    vtkLogger::Verbosity verbosity_;
    vtkNew<CapturedOutput> captured_;
};

/// VTK's message without its source location prefix ("ERROR: In …, line N\nvtkX (0x…): why").
std::string vtk_message(const std::string& text) {
    const std::size_t colon = text.rfind("): ");
    std::string why = colon == std::string::npos ? text : text.substr(colon + 3);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
        why.pop_back();
    return why;
}

/// The point array `name` as `components` floats per point, or empty when the file has none.
template <class ValueT>
void copy_array(const fs::path& file, vtkPointData* data, const char* name, int components,
                std::size_t points, std::vector<ValueT>& out) {
    vtkDataArray* a = data->GetArray(name);
    if (a == nullptr)
        return;
    if (a->GetNumberOfComponents() != components ||
        static_cast<std::size_t>(a->GetNumberOfTuples()) != points)
        fail(file, std::string("its array '") + name + "' has " +
                       std::to_string(a->GetNumberOfTuples()) + " tuples of " +
                       std::to_string(a->GetNumberOfComponents()) + " components, " +
                       std::to_string(points) + " of " + std::to_string(components) + " expected");
    const std::size_t first = out.size();
    out.resize(first + points);
    for (std::size_t i = 0; i < points; ++i) {
        if constexpr (std::is_same_v<ValueT, float>) {
            out[first + i] = static_cast<float>(a->GetComponent(static_cast<vtkIdType>(i), 0));
        } else {
            for (int k = 0; k < components; ++k)
                out[first + i][k] =
                    static_cast<float>(a->GetComponent(static_cast<vtkIdType>(i), k));
        }
    }
}

/// Appends the particles of one .vtp to `s`; the optional arrays must be present in every piece
/// or in none (a later piece is checked against what the ones before it had).
void append_vtp(const fs::path& file, Snapshot& s, bool first_piece) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        fail(file, "no such snapshot file");
    const CaptureVtkOutput errors;
    vtkNew<vtkXMLPolyDataReader> reader;
    reader->SetFileName(file.c_str());
    reader->Update();
    if (!errors.first().empty())
        fail(file, "not a readable snapshot (" + vtk_message(errors.first()) + ")");
    vtkPolyData* poly = reader->GetOutput();
    if (poly == nullptr || poly->GetPoints() == nullptr)
        fail(file, "not a readable snapshot (no points)");
    const std::size_t n = static_cast<std::size_t>(poly->GetNumberOfPoints());
    vtkPointData* data = poly->GetPointData();
    if (data->GetArray("type") == nullptr)
        fail(file, "has no 'type' array (is it a sluice snapshot?)");
    const bool had_velocity = !s.velocity.empty(), had_density = !s.density.empty(),
               had_pressure = !s.pressure.empty();
    const std::size_t before = s.size();
    s.position.resize(before + n);
    for (std::size_t i = 0; i < n; ++i) {
        double p[3];
        poly->GetPoint(static_cast<vtkIdType>(i), p);
        for (int k = 0; k < 3; ++k)
            s.position[before + i][k] = static_cast<float>(p[k]);
    }
    std::vector<float> type, id;
    copy_array(file, data, "type", 1, n, type);
    copy_array(file, data, "id", 1, n, id); // checks its length; the values are read exactly below
    vtkDataArray* ids = data->GetArray("id");
    s.type.resize(before + n);
    s.id.resize(before + n);
    for (std::size_t i = 0; i < n; ++i) {
        s.type[before + i] = type[i] == 0.0f ? ParticleType::fluid : ParticleType::boundary;
        // GetTuple1 is a double: exact for every uint32 (a float is not above 2^24).
        s.id[before + i] =
            ids == nullptr ? static_cast<std::uint32_t>(before + i)
                           : static_cast<std::uint32_t>(ids->GetTuple1(static_cast<vtkIdType>(i)));
    }
    copy_array(file, data, "velocity", 3, n, s.velocity);
    copy_array(file, data, "density", 1, n, s.density);
    copy_array(file, data, "pressure", 1, n, s.pressure);
    if (!first_piece && (had_velocity != (s.velocity.size() > before) ||
                         had_density != (s.density.size() > before) ||
                         had_pressure != (s.pressure.size() > before)))
        fail(file, "its arrays differ from the other pieces' of the same snapshot");
    if (vtkDataArray* time = poly->GetFieldData()->GetArray("TimeValue"))
        if (time->GetNumberOfTuples() > 0)
            s.time = time->GetTuple1(0);
}

void parse_xml(const fs::path& file, tinyxml2::XMLDocument& doc) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        fail(file, "no such file");
    if (doc.LoadFile(file.c_str()) != tinyxml2::XML_SUCCESS)
        fail(file, std::string("not readable XML (") + doc.ErrorStr() + ")");
}

} // namespace

std::optional<RunRecord> read_run_record(const fs::path& folder) {
    const fs::path file = folder / "summary.json";
    std::error_code ec;
    if (!fs::exists(file, ec))
        return std::nullopt;
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        fail(file, "not JSON (is it a run's summary.json?)");
    RunRecord r;
    const auto get = [&](const char* key, auto& value) {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null())
            fail(file, std::string("has no '") + key + "'");
        try {
            it->get_to(value);
        } catch (const nlohmann::json::exception&) {
            fail(file, std::string("its '") + key + "' is not what a run writes");
        }
    };
    get("case", r.case_name);
    get("case_file", r.case_file);
    get("command_line", r.command_line);
    get("dp_m", r.dp);
    get("h_m", r.smoothing_length);
    get("c0_m_per_s", r.speed_of_sound);
    return r;
}

std::vector<SeriesEntry> read_series(const fs::path& pvd) {
    tinyxml2::XMLDocument doc;
    parse_xml(pvd, doc);
    const tinyxml2::XMLElement* root = doc.FirstChildElement("VTKFile");
    const tinyxml2::XMLElement* collection =
        root != nullptr ? root->FirstChildElement("Collection") : nullptr;
    if (collection == nullptr)
        fail(pvd, "not a ParaView collection (no VTKFile/Collection)");
    std::vector<SeriesEntry> out;
    for (const tinyxml2::XMLElement* e = collection->FirstChildElement("DataSet"); e != nullptr;
         e = e->NextSiblingElement("DataSet")) {
        const char* file = e->Attribute("file");
        double time = 0.0;
        if (file == nullptr || e->QueryDoubleAttribute("timestep", &time) != tinyxml2::XML_SUCCESS)
            fail(pvd, "line " + std::to_string(e->GetLineNum()) +
                          ": a DataSet without a file or a numeric timestep");
        out.push_back({time, pvd.parent_path() / file});
    }
    if (out.empty())
        fail(pvd, "lists no snapshot");
    return out;
}

Snapshot read_snapshot(const fs::path& file) {
    Snapshot s;
    s.dimension = 3;
    if (file.extension() != ".pvtp") {
        append_vtp(file, s, true);
        return s;
    }
    tinyxml2::XMLDocument doc;
    parse_xml(file, doc);
    const tinyxml2::XMLElement* root = doc.FirstChildElement("VTKFile");
    const tinyxml2::XMLElement* poly =
        root != nullptr ? root->FirstChildElement("PPolyData") : nullptr;
    if (poly == nullptr)
        fail(file, "not a parallel PolyData file (no VTKFile/PPolyData)");
    bool first = true;
    for (const tinyxml2::XMLElement* piece = poly->FirstChildElement("Piece"); piece != nullptr;
         piece = piece->NextSiblingElement("Piece")) {
        const char* source = piece->Attribute("Source");
        if (source == nullptr)
            fail(file, "line " + std::to_string(piece->GetLineNum()) + ": a Piece without Source");
        append_vtp(file.parent_path() / source, s, first);
        first = false;
    }
    if (first)
        fail(file, "names no piece");
    return s;
}

} // namespace sluice
