#pragma once
/// \file csv_series.h
/// A time series in CSV written as the run goes (gauges.csv, diagnostics.csv): '#' comment lines
/// (what each column is, with units), a header row "t,NAME,…", then one row per sample. Each row
/// is flushed when written, so a crash keeps every row before it. Values that are NaN (a gauge
/// with no reading) are written empty. Numbers are written to 9 significant digits (floats
/// exactly; time as given).

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace sluice {

/// Whether a continued series keeps its row of time t (s) when a restart resumes after
/// `resume_after` (s): t ≤ resume_after, within rounding of the time as written.
inline bool kept_on_resume(double t, double resume_after) {
    return t <= resume_after * (1.0 + 1e-12);
}

class CsvSeries {
public:
    /// Starts `path` afresh (replacing an earlier file): the comment lines, then the header.
    /// `resume_after` ≥ 0: continues an existing file instead (a restarted run): keeps its
    /// comments, header and the rows with t ≤ resume_after, drops later ones (the interrupted
    /// run wrote them after its checkpoint; they will be written again). A missing file starts
    /// afresh; a file whose header differs is an error (the case's gauges changed).
    /// \throws std::runtime_error naming the path and the cause.
    CsvSeries(std::filesystem::path path, const std::vector<std::string>& comments,
              const std::vector<std::string>& columns, double resume_after = -1.0);
    ~CsvSeries();
    CsvSeries(const CsvSeries&) = delete;
    CsvSeries& operator=(const CsvSeries&) = delete;

    /// One row: t (s) and one value per column.
    /// \throws std::invalid_argument for a wrong count, std::runtime_error when writing fails.
    void write(double t, const std::vector<double>& values);

    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
    std::size_t columns_;
    std::FILE* file_ = nullptr;
};

} // namespace sluice
