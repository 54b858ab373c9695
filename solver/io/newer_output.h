#pragma once
/// \file newer_output.h
/// What a run's folder holds that is newer than the state a restart would continue from: the
/// series snapshots after the checkpoint's, the CSV rows after its time and the checkpoints
/// after its step. A restart that continues from an older state writes that part of the run
/// again and drops the files first (io/output.h, io/csv_series.h); `sluice run --restart`
/// refuses to unless told to (--discard-newer), and names them either way.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sluice {

/// The output of case `name` in a folder that is newer than a checkpoint (find_newer_output).
struct NewerOutput {
    /// Snapshots of the series numbered at or after the checkpoint's count: their numbers
    /// (ascending) and every file of them (.vtp, .pvtp, pieces; sorted), and the times the .pvd
    /// lists for them (s, ascending; fewer when the .pvd does not list them all).
    std::vector<std::uint64_t> snapshot_numbers;
    std::vector<std::string> snapshot_files;
    std::vector<double> snapshot_times;
    /// Rows after the checkpoint's time in one of the run's CSV series.
    struct Rows {
        std::string file;               ///< "gauges.csv", …
        std::size_t count = 0;          ///< ≥ 1
        double first = 0.0, last = 0.0; ///< s, their times
    };
    std::vector<Rows> rows;
    /// Checkpoint files (of one process or of a piece of several) after the checkpoint's step,
    /// e.g. damaged ones a restart skips.
    std::vector<std::string> checkpoint_files;

    bool empty() const {
        return snapshot_files.empty() && rows.empty() && checkpoint_files.empty();
    }
    /// One line per kind of file, for a user: what it is, how many, which and at what times.
    std::vector<std::string> describe() const;
};

/// The CSV series a run writes beside its snapshots, whose rows a restart continues
/// (io/run_output.h).
inline const std::vector<std::string>& run_csv_files() {
    static const std::vector<std::string> files = {"diagnostics.csv", "gauges.csv", "forces.csv",
                                                   "bodies.csv"};
    return files;
}

/// What `dir` holds of case `name` newer than a checkpoint of `kept_snapshots` snapshots, at
/// `time` (s) and `step`: snapshots numbered ≥ kept_snapshots, rows of run_csv_files() with
/// t after `time` (csv_series.h: kept_on_resume), checkpoints of a later step. Temporaries of
/// unfinished writes are not counted (a restart removes them). A missing folder holds nothing.
/// \throws std::runtime_error naming the folder or file when it cannot be read.
NewerOutput find_newer_output(const std::filesystem::path& dir, const std::string& name,
                              std::size_t kept_snapshots, double time, std::uint64_t step);

/// Removes the checkpoints of case `name` in `dir` (of one process and pieces of several) of a
/// step after `step`. A file that is already gone (another process removed it) is no error.
/// \throws std::runtime_error naming the file when one cannot be removed.
void remove_checkpoints_after(const std::filesystem::path& dir, const std::string& name,
                              std::uint64_t step);

} // namespace sluice
