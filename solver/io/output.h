#pragma once
/// \file output.h
/// Run output: one VTK XML PolyData file (.vtp) per output time, a ParaView collection (.pvd)
/// listing them with their times (summary.json: summary.h).
///
/// Every file is written to a hidden temporary name in its final directory (".<file>.tmp") and
/// renamed into place, so a crash never leaves a half-written file under a final name and the
/// .pvd only ever lists complete .vtp files. (Renames are atomic; nothing is fsync'ed, so a
/// power loss may still lose recent files.)
///
/// Errors (directory cannot be created, VTK writer fails, disk full, rename fails) throw
/// std::runtime_error whose message names the path.

#include "io/snapshot.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace sluice {

/// Writes `snapshot` to `path` as a .vtp: binary, ZLib-compressed, raw appended data (the
/// layout ParaView reads fastest). Points are the positions (float32, 3 components; in 2D
/// y is whatever the snapshot holds, i.e. 0), one vertex cell per point (so both ParaView's
/// Point Gaussian and Surface representations show the particles), point arrays
/// `id` (uint32), `type` (uint8: 0 fluid, 1 boundary), `velocity` (float32 ×3),
/// `density` (float32, kg/m³), `pressure` (float32, Pa), and field data `TimeValue`
/// (float64, 1 value, s), which ParaView shows as the dataset's time.
/// Written through a temporary file and renamed; the parent directory must exist.
/// \throws std::invalid_argument when the snapshot's arrays differ in length.
/// \throws std::runtime_error naming `path` when writing or renaming fails.
void write_vtp(const std::filesystem::path& path, const Snapshot& snapshot);

/// The time series of one run in one directory: `<dir>/<name>_NNNN.vtp` (NNNN = 0, 1, …,
/// zero-padded to at least 4 digits) and `<dir>/<name>.pvd` listing them.
class SnapshotSeriesWriter {
public:
    /// Creates `directory` (with parents) and removes what a previous run of this case left
    /// there, so a re-run never mixes two series: `<name>.pvd`, `<name>_<digits>.vtp`,
    /// `<name>_failed.vtp`, `summary.json`, `gauges.csv`, `diagnostics.csv`, its checkpoints
    /// `<name>_checkpoint_<digits>.chk`, and their leftover temporaries. Other files (including
    /// other cases' series, e.g. `<name>_other_0000.vtp`) are kept. \throws std::invalid_argument
    /// when `case_name` is empty or contains '/'. \throws std::runtime_error naming the directory
    /// when it cannot be created or cleaned.
    SnapshotSeriesWriter(std::filesystem::path directory, std::string case_name);

    /// Continues the series of a restarted run: its first resume_times.size() snapshots (which
    /// must exist) stay, with these times; later-numbered snapshots, a failure snapshot and
    /// leftover temporaries (written by the interrupted run after its checkpoint) are removed,
    /// and the .pvd is rewritten to list the kept ones. Checkpoints are kept.
    /// \throws std::runtime_error naming the directory when a kept snapshot is missing.
    SnapshotSeriesWriter(std::filesystem::path directory, std::string case_name,
                         const std::vector<double>& resume_times);

    /// Writes the next `<name>_NNNN.vtp`, then rewrites `<name>.pvd` to list every snapshot so
    /// far (timestep = snapshot.time, file relative to the directory). After it returns the
    /// .pvd is complete. If the .vtp is written but the .pvd rewrite throws, the snapshot still
    /// counts and the next successful write lists it.
    /// \returns the path of the .vtp written.
    std::filesystem::path write(const Snapshot& snapshot);

    /// Writes `<name>_failed.vtp` (the state a failure was detected in), replacing an earlier
    /// one; it is not listed in the .pvd, which stays the series of good states.
    /// \returns the path written.
    std::filesystem::path write_failure(const Snapshot& snapshot);

    const std::filesystem::path& directory() const { return directory_; }
    std::filesystem::path pvd_path() const;
    /// Number of series snapshots written (the failure snapshot is not counted).
    std::size_t count() const { return files_.size(); }
    /// The series .vtp files written so far, in order (the failure snapshot is not included).
    const std::vector<std::filesystem::path>& files() const { return files_; }

private:
    void write_pvd() const;

    std::filesystem::path directory_;
    std::string name_;
    std::vector<std::filesystem::path> files_;
    std::vector<double> times_; ///< s, one per entry of files_
};

} // namespace sluice
