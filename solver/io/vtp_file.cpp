// The .vtp snapshot file through VTK's XML PolyData writer, the .pvtp that names the pieces of
// one snapshot, and the snapshot format's names (io/vtp_file.h).

#include "io/vtp_file.h"

#include "io/atomic_file.h"
#include "io/polydata_file.h"

#include <tinyxml2.h>
#include <vtkCellArray.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkTypeUInt32Array.h>
#include <vtkTypeUInt8Array.h>

#include <array>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sluice {
namespace fs = std::filesystem;

namespace {

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

vtkSmartPointer<vtkPolyData> to_polydata(const Snapshot& s, const VtpFormat& format) {
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
    if (format.velocity) {
        pd->AddArray(make_array<vtkFloatArray>(
            "velocity", 3, reinterpret_cast<const float*>(s.velocity.data()), n));
        pd->SetActiveVectors("velocity");
    }
    if (format.density)
        pd->AddArray(make_array<vtkFloatArray>("density", 1, s.density.data(), n));
    if (format.pressure)
        pd->AddArray(make_array<vtkFloatArray>("pressure", 1, s.pressure.data(), n));
    // Not made the active normals: ParaView would light the particles (fluid: zero) by them.
    if (!s.normal.empty())
        pd->AddArray(make_array<vtkFloatArray>("normal", 3,
                                               reinterpret_cast<const float*>(s.normal.data()), n));

    vtkNew<vtkDoubleArray> time;
    time->SetName("TimeValue");
    time->InsertNextValue(s.time);
    poly->GetFieldData()->AddArray(time);
    return poly;
}

/// The fluid particles of `s` and the moving objects' boundary particles, in the same order.
Snapshot fluid_only(const Snapshot& s, const VtpFormat& format) {
    Snapshot f;
    f.dimension = s.dimension;
    f.time = s.time;
    f.step = s.step;
    f.dt = s.dt;
    const auto moving = [&](std::uint32_t id) {
        for (const auto& range : format.moving_boundary)
            if (id - range[0] < range[1]) // unsigned: also below the first
                return true;
        return false;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.type[i] != ParticleType::fluid && !moving(s.id[i]))
            continue;
        f.id.push_back(s.id[i]);
        f.type.push_back(s.type[i]);
        f.position.push_back(s.position[i]);
        f.velocity.push_back(s.velocity[i]);
        f.density.push_back(s.density[i]);
        f.pressure.push_back(s.pressure[i]);
        if (!s.normal.empty())
            f.normal.push_back(s.normal[i]);
    }
    return f;
}

} // namespace

const char* to_string(Compressor c) {
    switch (c) {
    case Compressor::lz4:
        return "lz4";
    case Compressor::zlib:
        return "zlib";
    case Compressor::none:
        return "none";
    }
    return "?";
}

Compressor parse_compressor(const std::string& name) {
    for (Compressor c : {Compressor::lz4, Compressor::zlib, Compressor::none})
        if (name == to_string(c))
            return c;
    throw std::invalid_argument("unknown compressor '" + name + "' (valid: lz4, zlib, none)");
}

std::string fields_to_string(const VtpFormat& f) {
    std::string out;
    for (const auto& [on, name] :
         {std::pair{f.velocity, "velocity"}, std::pair{f.density, "density"},
          std::pair{f.pressure, "pressure"}})
        if (on)
            out += (out.empty() ? "" : " ") + std::string(name);
    return out;
}

void parse_fields(const std::string& text, VtpFormat& f) {
    VtpFormat parsed = f;
    parsed.velocity = parsed.density = parsed.pressure = false;
    std::string word;
    auto take = [&] {
        if (word.empty())
            return;
        bool* field = word == "velocity"   ? &parsed.velocity
                      : word == "density"  ? &parsed.density
                      : word == "pressure" ? &parsed.pressure
                                           : nullptr;
        if (field == nullptr)
            throw std::invalid_argument(
                "unknown field '" + word +
                "' (valid: velocity, density, pressure; id, type and the positions are always "
                "written)");
        if (*field)
            throw std::invalid_argument("field '" + word + "' is listed twice");
        *field = true;
        word.clear();
    };
    for (char ch : text) {
        if (ch == ' ' || ch == ',' || ch == '\t' || ch == '\n')
            take();
        else
            word += ch;
    }
    take();
    f = parsed;
}

std::uintmax_t write_vtp(const fs::path& path, const Snapshot& s, const VtpFormat& format,
                         bool boundary) {
    const std::size_t n = s.size();
    if (s.type.size() != n || s.position.size() != n || s.velocity.size() != n ||
        s.density.size() != n || s.pressure.size() != n ||
        (!s.normal.empty() && s.normal.size() != n))
        throw std::invalid_argument("output: snapshot arrays differ in length (writing " +
                                    quoted(path) + ")");

    return write_polydata(path, to_polydata(boundary ? s : fluid_only(s, format), format), format);
}

std::string pvtp_text(const std::vector<std::string>& sources, const VtpFormat& format,
                      bool normal) {
    tinyxml2::XMLPrinter xml;
    xml.PushHeader(false, true);
    xml.OpenElement("VTKFile");
    xml.PushAttribute("type", "PPolyData");
    xml.PushAttribute("version", "0.1");
    xml.PushAttribute("byte_order", "LittleEndian");
    xml.PushAttribute("header_type", "UInt64");
    xml.OpenElement("PPolyData");
    xml.PushAttribute("GhostLevel", "0");
    xml.OpenElement("PPointData");
    auto array = [&](const char* type, const char* name, int components) {
        xml.OpenElement("PDataArray");
        xml.PushAttribute("type", type);
        xml.PushAttribute("Name", name);
        xml.PushAttribute("NumberOfComponents", components);
        xml.CloseElement();
    };
    array("UInt32", "id", 1);
    array("UInt8", "type", 1);
    if (format.velocity)
        array("Float32", "velocity", 3);
    if (format.density)
        array("Float32", "density", 1);
    if (format.pressure)
        array("Float32", "pressure", 1);
    if (normal)
        array("Float32", "normal", 3);
    xml.CloseElement();
    xml.OpenElement("PPoints");
    array("Float32", "Points", 3);
    xml.CloseElement();
    for (const std::string& source : sources) {
        xml.OpenElement("Piece");
        xml.PushAttribute("Source", source.c_str());
        xml.CloseElement();
    }
    xml.CloseElement();
    xml.CloseElement();
    return xml.CStr();
}

} // namespace sluice
