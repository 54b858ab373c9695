#pragma once
/// \file polydata_file.h
/// Writing any VTK PolyData as a .vtp the way snapshots are written (binary, raw appended
/// blocks, the chosen compressor; through a temporary file and a rename), and the text of a
/// .pvd that lists a series of such files with their times. Snapshots (vtp_file.h), free
/// surfaces and measurement planes (app/) are all written through here.

#include "io/vtp_file.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

class vtkPolyData;

namespace sluice {

/// Writes `poly` to `path` in `format`'s compressor and level (its field choices are not
/// read): to a temporary in the same folder, renamed into place.
/// \returns the bytes written. \throws std::runtime_error naming `path` when writing fails.
std::uintmax_t write_polydata(const std::filesystem::path& path, vtkPolyData* poly,
                              const VtpFormat& format);

/// The text of a ParaView collection (.pvd) listing `datasets` (time in s, file name relative
/// to the .pvd) in the given order; a non-finite time is written as "null".
std::string pvd_text(const std::vector<std::pair<double, std::string>>& datasets);

} // namespace sluice
