#pragma once
/// \file vtp_file.h
/// One snapshot as a file: a VTK XML PolyData file (.vtp), the parallel PolyData file (.pvtp)
/// that names the pieces of one snapshot written by several processes, and the format both are
/// written in (`<output>` in a case). The series of a run's snapshots is io/output.h.
///
/// Every file is written to a hidden temporary name in its final directory (".<file>.tmp") and
/// renamed into place, so a crash never leaves a half-written file under a final name.
/// (Renames are atomic; nothing is fsync'ed, so a power loss may still lose recent files.)

#include "io/snapshot.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sluice {

/// How the binary blocks of a .vtp are compressed (VTK's vtkXMLWriterBase compressors; ParaView
/// reads all three).
enum class Compressor {
    lz4,  ///< vtkLZ4DataCompressor: fast, larger files (the default: README, "Output")
    zlib, ///< vtkZLibDataCompressor: slower, smaller files
    none, ///< raw blocks
};

/// What a snapshot file holds and how it is written (`<output>` in a case, cases/README.md).
struct VtpFormat {
    Compressor compressor = Compressor::lz4;
    /// 1 (fastest) … 9 (smallest); 0 = VTK's default (5). For lz4 VTK maps it to the
    /// acceleration (9 → 1, 1 → 9); ignored for none.
    int level = 0;
    // Point arrays besides the always written `id` and `type` (and the points themselves).
    bool velocity = true;
    bool density = true;
    bool pressure = true;
    /// Boundary particles written also where the others are left out (`boundary` false in
    /// write_vtp): the ids [first, first + count) of each moving object.
    std::vector<std::array<std::uint32_t, 2>> moving_boundary;
};

const char* to_string(Compressor c); ///< "lz4", "zlib", "none"
/// \throws std::invalid_argument listing the valid names.
Compressor parse_compressor(const std::string& name);
/// "velocity density pressure" style list of the optional arrays a format writes.
std::string fields_to_string(const VtpFormat& f);
/// Sets velocity/density/pressure from a list separated by spaces or commas ("" = none of them).
/// \throws std::invalid_argument naming an unknown or repeated field and the valid ones.
void parse_fields(const std::string& text, VtpFormat& f);

/// Writes `snapshot` to `path` as a .vtp: binary, raw appended data (the layout ParaView reads
/// fastest), compressed as `format` says. Points are the positions (float32, 3 components; in
/// 2D y is whatever the snapshot holds, i.e. 0), one vertex cell per point (so both ParaView's
/// Point Gaussian and Surface representations show the particles), point arrays
/// `id` (uint32), `type` (uint8: 0 fluid, 1 boundary), and as `format` chooses `velocity`
/// (float32 ×3), `density` (float32, kg/m³), `pressure` (float32, Pa); `normal` (float32 ×3,
/// Snapshot::normal: mDBC's wall normals) when the snapshot has them; field data `TimeValue`
/// (float64, 1 value, s), which ParaView shows as the dataset's time. Without `boundary` only
/// the fluid particles are written, and those of the moving objects (VtpFormat::moving_boundary).
/// Written through a temporary file and renamed; the parent directory must exist.
/// \returns the bytes written.
/// \throws std::invalid_argument when the snapshot's arrays differ in length (`normal`: when
///         it is neither empty nor as long as the others).
/// \throws std::runtime_error naming `path` when writing or renaming fails.
std::uintmax_t write_vtp(const std::filesystem::path& path, const Snapshot& snapshot,
                         const VtpFormat& format = {}, bool boundary = true);

/// The text of a .pvtp naming the pieces `sources` (file names relative to it) of one time, with
/// the arrays write_vtp writes in `format` (VTK's PPolyData; ParaView opens it as one data set),
/// and `normal` when the pieces' snapshots have Snapshot::normal (the first of an mDBC run).
std::string pvtp_text(const std::vector<std::string>& sources, const VtpFormat& format,
                      bool normal = false);

} // namespace sluice
