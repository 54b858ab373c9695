#pragma once
/// \file run_output.h
/// What a run writes as it goes, in one object: the snapshot series (SnapshotSeriesWriter) fed
/// by the background writer pool (BackgroundSnapshotWriter), diagnostics.csv (a row per
/// snapshot), gauges.csv, forces.csv and bodies.csv (rows finished by GaugeRowWriter), and, over
/// several processes, the pieces: the first process clears the folder before the others write to it
/// and lists in the .pvd the times whose pieces every process has written. Output never holds the
/// step back (DESIGN.md, Output): the stepping thread only starts snapshot copies and hands them
/// over.
///
/// io/ sees nothing of parallel/: a run over several processes passes its collectives as an
/// OutputGroup.

#include "io/async_output.h"
#include "io/csv_series.h"
#include "io/diagnostics.h"
#include "io/gauge_rows.h"
#include "io/output.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

/// The processes of a run over several, as its output needs them. Every function is collective.
struct OutputGroup {
    int rank = 0; ///< 0 writes the run's shared files (.pvd, diagnostics.csv, gauges.csv)
    int size = 1;
    std::function<void()> barrier;
    std::function<double(double)> min; ///< the smallest of every process's value
    std::function<void(double*, int)> sum;
    /// Each process's values, on every process, in rank order.
    std::function<std::vector<std::vector<double>>(const std::vector<double>&)> gather;
};

struct RunOutputSettings {
    std::filesystem::path directory;
    std::string case_name;
    VtpFormat format;
    bool boundary_only_first = false;
    unsigned writers = 1; ///< writer threads (≥ 1)
    DiagnosticsConstants diagnostics;
    /// A restart: the times of the snapshots to keep (the checkpoint's); none: a fresh series.
    std::optional<std::vector<double>> resume_times;
    /// The restart's checkpoint was written by another number of processes (its series is
    /// continued as SnapshotSeriesWriter::RegroupedSeries).
    bool regrouped = false;
    /// s: CSV rows after this time are dropped (a restart's); negative: none.
    double resume_after = -1.0;
};

class RunOutput {
public:
    /// Opens the series (clearing or continuing it, see SnapshotSeriesWriter) and
    /// diagnostics.csv, the first process before the others. \throws std::runtime_error (the
    /// folder cannot be made or a kept snapshot is missing).
    RunOutput(const RunOutputSettings& settings, std::optional<OutputGroup> group);
    ~RunOutput();
    RunOutput(const RunOutput&) = delete;
    RunOutput& operator=(const RunOutput&) = delete;

    /// Opens gauges.csv (first process; the others only take part in the samples): comment
    /// lines, then the columns after t; `evaluate` turns a sample into the row, `accumulate`
    /// takes the samples between rows (GaugeRowWriter).
    void open_gauges(const std::vector<std::string>& comments,
                     const std::vector<std::string>& columns, GaugeRowWriter::Evaluate evaluate,
                     GaugeRowWriter::Accumulate accumulate = {});
    /// Opens forces.csv as open_gauges does gauges.csv (the force and moment on each named
    /// body; case/force_plan.h).
    void open_forces(const std::vector<std::string>& comments,
                     const std::vector<std::string>& columns, GaugeRowWriter::Evaluate evaluate);
    /// Queues the forces row of time t (s), as submit_gauges.
    void submit_forces(double t, std::future<GaugeResponse> sample);
    /// Opens bodies.csv as open_forces does forces.csv (the floating bodies' motions and loads;
    /// case/body_plan.h).
    void open_bodies(const std::vector<std::string>& comments,
                     const std::vector<std::string>& columns, GaugeRowWriter::Evaluate evaluate);
    /// Queues the bodies row of time t (s), as submit_gauges.
    void submit_bodies(double t, std::future<GaugeResponse> sample);
    /// Queues the gauges row of time t (s); nothing on a process that does not write it.
    void submit_gauges(double t, std::future<GaugeResponse> sample);
    /// Queues a sample between rows (averaged sensors); as submit_gauges.
    void accumulate_gauges(std::future<GaugeResponse> sample);

    /// One process: hands a started snapshot (Simulation::begin_snapshot) to the writers; its
    /// diagnostics row is written in time order on the collector thread.
    void submit(std::future<Snapshot> snapshot);
    /// Several processes: this process's piece, started (Simulation::begin_snapshot). It is
    /// taken when the next piece comes or at flush() (its copy long arrived, and converted on a
    /// thread of its own meanwhile), so that the step does not wait for it; then its
    /// diagnostics row is combined over the processes and the complete pieces are published
    /// (collective).
    void submit_piece(std::future<Snapshot> piece);

    /// Every snapshot and gauges row so far on disk (and, several processes, listed: collective).
    /// \throws what a writer threw.
    void flush();
    /// Several processes: the first lists in the .pvd the times whose pieces every process has
    /// written completely (collective). One process: nothing.
    void publish_complete_pieces();
    /// Writes the failing state (each process its piece; collective) and returns the file the
    /// first process names to the user.
    std::filesystem::path write_failure(const Snapshot& snapshot);

    std::size_t snapshots() const { return series_->count(); }
    unsigned writers() const { return background_->writers(); }
    /// .vtp bytes and writer-thread seconds, of this process (summed_totals: of all).
    std::uintmax_t bytes() const { return bytes_.load(); }
    double write_seconds() const { return background_->write_seconds(); }
    /// {bytes, writer-thread seconds} summed over the processes (collective when several).
    std::pair<std::uintmax_t, double> summed_totals() const;

private:
    bool writes_shared() const { return !group_ || group_->rank == 0; }
    /// Several processes: the piece submitted last, handed to the writers (collective).
    void take_pending_piece();

    std::optional<OutputGroup> group_;
    DiagnosticsConstants diagnostics_constants_;
    double resume_after_;
    std::filesystem::path directory_;
    std::unique_ptr<SnapshotSeriesWriter> series_;
    std::optional<CsvSeries> diagnostics_;
    std::unique_ptr<CsvSeries> gauge_csv_;
    std::unique_ptr<GaugeRowWriter> gauge_rows_; ///< after what it writes to: destroyed first
    std::unique_ptr<CsvSeries> force_csv_;
    std::unique_ptr<GaugeRowWriter> force_rows_;
    std::unique_ptr<CsvSeries> body_csv_;
    std::unique_ptr<GaugeRowWriter> body_rows_;
    std::atomic<std::uintmax_t> bytes_{0};
    std::unique_ptr<BackgroundSnapshotWriter> background_; ///< stopped after the pending piece
    std::future<Snapshot> pending_piece_;                  ///< last: its thread joined first
};

} // namespace sluice
