// A VTK PolyData as a .vtp through VTK's XML writer, and the .pvd text of a series
// (io/polydata_file.h).

#include "io/polydata_file.h"

#include "io/atomic_file.h"

#include <tinyxml2.h>
#include <vtkErrorCode.h>
#include <vtkNew.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataWriter.h>

#include <charconv>
#include <cmath>
#include <cstring>
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

} // namespace

std::uintmax_t write_polydata(const fs::path& path, vtkPolyData* poly, const VtpFormat& format) {
    const fs::path tmp = temp_path_for(path);
    vtkNew<vtkXMLPolyDataWriter> writer;
    writer->SetFileName(tmp.c_str());
    writer->SetInputData(poly);
    writer->SetDataModeToAppended(); // raw appended blocks: no base64, fastest to read
    writer->EncodeAppendedDataOff();
    switch (format.compressor) {
    case Compressor::lz4:
        writer->SetCompressorTypeToLZ4();
        break;
    case Compressor::zlib:
        writer->SetCompressorTypeToZLib();
        break;
    case Compressor::none:
        writer->SetCompressorTypeToNone();
        break;
    }
    if (format.level > 0 && format.compressor != Compressor::none)
        writer->SetCompressionLevel(format.level); // after the type: it goes to the compressor
    writer->SetHeaderTypeToUInt64();
    if (writer->Write() == 0 || writer->GetErrorCode() != vtkErrorCode::NoError) {
        const unsigned long code = writer->GetErrorCode();
        std::error_code ec;
        fs::remove(tmp, ec);
        fail_output("write", path, vtk_error_text(code));
    }
    std::error_code ec;
    const std::uintmax_t bytes = fs::file_size(tmp, ec);
    move_into_place(tmp, path);
    return ec ? 0 : bytes;
}

std::string pvd_text(const std::vector<std::pair<double, std::string>>& datasets) {
    tinyxml2::XMLPrinter xml;
    xml.PushHeader(false, true);
    xml.OpenElement("VTKFile");
    xml.PushAttribute("type", "Collection");
    xml.PushAttribute("version", "0.1");
    xml.PushAttribute("byte_order", "LittleEndian");
    xml.OpenElement("Collection");
    for (const auto& [time, file] : datasets) {
        xml.OpenElement("DataSet");
        xml.PushAttribute("timestep", number_or_null(time).c_str());
        xml.PushAttribute("group", "");
        xml.PushAttribute("part", "0");
        xml.PushAttribute("file", file.c_str());
        xml.CloseElement();
    }
    xml.CloseElement();
    xml.CloseElement();
    return xml.CStr();
}

} // namespace sluice
