#pragma once
/// \file series_reader.h
/// Reading back what a run wrote (io/README.md, "The files of a run"), for the commands that work
/// on a finished run (`sluice surface`, `sluice measure`): summary.json's record of the run, the
/// .pvd series and each snapshot's .vtp (or the .pvtp of a run over several processes and its
/// pieces).

#include "io/snapshot.h"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sluice {

/// A run folder or a snapshot that cannot be read: missing, truncated, not what a run writes.
/// The message names the file and what is wrong with it.
struct SeriesError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// What RUN_DIR/summary.json says of the run that wrote the folder.
struct RunRecord {
    std::string case_name;
    std::string case_file;                 ///< as the run was given it (maybe relative)
    std::vector<std::string> command_line; ///< argv of the run
    double dp = 0.0;                       ///< m
    double smoothing_length = 0.0;         ///< h, m
    double speed_of_sound = 0.0;           ///< c0, m/s
};

/// summary.json of `folder`; none when the folder has no summary.json (a run still under way or
/// killed: it is written at the end).
/// \throws SeriesError when the file exists but is not a run's summary (names the file and the
///         key that is missing or malformed).
std::optional<RunRecord> read_run_record(const std::filesystem::path& folder);

/// One snapshot of a series: its time and its file (a .vtp, or a .pvtp naming the pieces).
struct SeriesEntry {
    double time = 0.0; ///< s
    std::filesystem::path file;
};

/// The snapshots `pvd` lists, in its order (the run's: by time), paths resolved against its
/// folder. \throws SeriesError when it cannot be read or parsed, or lists none.
std::vector<SeriesEntry> read_series(const std::filesystem::path& pvd);

/// The particles of one snapshot file as a run wrote it (io/vtp_file.h): a .vtp, or a .pvtp and
/// every piece it names, in file order (not id order). The arrays the file lacks stay empty
/// (`velocity`, `density`, `pressure` are optional in a run's format); `time` is the file's
/// TimeValue, `dimension` 3 (the caller knows the case's).
/// \throws SeriesError naming the file: missing, truncated or corrupt (VTK's reader reports an
///         error), without `type`, or with arrays whose lengths differ from the points'.
Snapshot read_snapshot(const std::filesystem::path& file);

} // namespace sluice
