#include "io/run_output.h"

#include <future>
#include <utility>

namespace sluice {

namespace {

/// The series as the run starts it: fresh or continued, the first process first where the
/// processes share a folder (it clears what the others must not find).
std::unique_ptr<SnapshotSeriesWriter> open_series(const RunOutputSettings& s,
                                                  const std::optional<OutputGroup>& group) {
    const bool first = !group || group->rank == 0;
    auto barrier = [&] {
        if (group)
            group->barrier();
    };
    std::unique_ptr<SnapshotSeriesWriter> series;
    if (s.resume_times && s.regrouped) { // the first process clears what the last run wrote later
        using Regrouped = SnapshotSeriesWriter::RegroupedSeries;
        const int piece = group ? group->rank : 0, pieces = group ? group->size : 0;
        auto open = [&] {
            return std::make_unique<SnapshotSeriesWriter>(s.directory, s.case_name, *s.resume_times,
                                                          piece, pieces, Regrouped{});
        };
        if (first)
            series = open();
        barrier();
        if (!first)
            series = open();
    } else if (s.resume_times && group) {
        series = std::make_unique<SnapshotSeriesWriter>(s.directory, s.case_name, *s.resume_times,
                                                        group->rank, group->size);
        group->barrier(); // every process has cleared what it wrote after the checkpoint
    } else if (s.resume_times) {
        series = std::make_unique<SnapshotSeriesWriter>(s.directory, s.case_name, *s.resume_times);
    } else if (group) { // the first process clears the directory before any writes to it
        if (first)
            series = std::make_unique<SnapshotSeriesWriter>(s.directory, s.case_name);
        group->barrier();
        if (!first)
            series = std::make_unique<SnapshotSeriesWriter>(s.directory, s.case_name);
        group->barrier();
        series->set_pieces(group->rank, group->size);
    } else {
        series = std::make_unique<SnapshotSeriesWriter>(s.directory, s.case_name);
    }
    return series;
}

} // namespace

RunOutput::RunOutput(const RunOutputSettings& settings, std::optional<OutputGroup> group)
    : group_(std::move(group)), diagnostics_constants_(settings.diagnostics),
      resume_after_(settings.resume_after), directory_(settings.directory) {
    series_ = open_series(settings, group_);
    // diagnostics.csv: one row per snapshot, computed on the output thread (one process) or
    // with the snapshot (several: submit).
    if (writes_shared())
        diagnostics_.emplace(directory_ / "diagnostics.csv", diagnostics_comments(),
                             diagnostics_columns(), resume_after_);
    // The collector thread finishes each copy and writes its diagnostics row in time order; a
    // pool of writer threads compresses and writes the .vtp files, several at once.
    series_->set_format(settings.format, settings.boundary_only_first);
    BackgroundSnapshotWriter::Settings output_settings;
    output_settings.writers = settings.writers;
    if (!group_)
        output_settings.in_order = [this](const Snapshot& s) {
            diagnostics_->write(s.time, diagnostics_row(s, diagnostics_constants_));
        };
    background_ = std::make_unique<BackgroundSnapshotWriter>(
        [this](const Snapshot& s, std::size_t index) { bytes_ += series_->write(index, s); },
        output_settings);
}

RunOutput::~RunOutput() {
    background_.reset(); // it writes to the series and diagnostics.csv: stopped first
    gauge_rows_.reset();
    force_rows_.reset();
    body_rows_.reset();
}

void RunOutput::open_gauges(const std::vector<std::string>& comments,
                            const std::vector<std::string>& columns,
                            GaugeRowWriter::Evaluate evaluate,
                            GaugeRowWriter::Accumulate accumulate) {
    if (!writes_shared())
        return;
    gauge_csv_ =
        std::make_unique<CsvSeries>(directory_ / "gauges.csv", comments, columns, resume_after_);
    gauge_rows_ =
        std::make_unique<GaugeRowWriter>(std::move(evaluate), *gauge_csv_, std::move(accumulate));
}

void RunOutput::open_forces(const std::vector<std::string>& comments,
                            const std::vector<std::string>& columns,
                            GaugeRowWriter::Evaluate evaluate) {
    if (!writes_shared())
        return;
    force_csv_ =
        std::make_unique<CsvSeries>(directory_ / "forces.csv", comments, columns, resume_after_);
    force_rows_ = std::make_unique<GaugeRowWriter>(std::move(evaluate), *force_csv_);
}

void RunOutput::open_bodies(const std::vector<std::string>& comments,
                            const std::vector<std::string>& columns,
                            GaugeRowWriter::Evaluate evaluate) {
    if (!writes_shared())
        return;
    body_csv_ =
        std::make_unique<CsvSeries>(directory_ / "bodies.csv", comments, columns, resume_after_);
    body_rows_ = std::make_unique<GaugeRowWriter>(std::move(evaluate), *body_csv_);
}

void RunOutput::submit_bodies(double t, std::future<GaugeResponse> sample) {
    if (body_rows_)
        body_rows_->submit(t, std::move(sample));
}

void RunOutput::submit_forces(double t, std::future<GaugeResponse> sample) {
    if (force_rows_)
        force_rows_->submit(t, std::move(sample));
}

void RunOutput::submit_gauges(double t, std::future<GaugeResponse> sample) {
    if (gauge_rows_)
        gauge_rows_->submit(t, std::move(sample));
}

void RunOutput::accumulate_gauges(std::future<GaugeResponse> sample) {
    if (gauge_rows_)
        gauge_rows_->accumulate(std::move(sample));
}

void RunOutput::submit(std::future<Snapshot> snapshot) {
    background_->submit(std::move(snapshot), series_->reserve());
}

void RunOutput::submit_piece(std::future<Snapshot> piece) {
    take_pending_piece();
    pending_piece_ = std::async(std::launch::async,
                                [started = std::move(piece)]() mutable { return started.get(); });
}

void RunOutput::take_pending_piece() {
    if (!pending_piece_.valid())
        return;
    Snapshot piece = pending_piece_.get();
    // Each process writes its piece; the diagnostics row is the sum of theirs; the first
    // process lists in the .pvd the times whose pieces are all complete.
    const std::vector<double> row = combine_diagnostics_rows(
        group_->gather(diagnostics_row(piece, diagnostics_constants_)), diagnostics_constants_);
    if (diagnostics_)
        diagnostics_->write(piece.time, row);
    std::promise<Snapshot> ready;
    ready.set_value(std::move(piece));
    background_->submit(ready.get_future(), series_->reserve());
    publish_complete_pieces();
}

void RunOutput::flush() {
    take_pending_piece();
    if (gauge_rows_)
        gauge_rows_->flush();
    if (force_rows_)
        force_rows_->flush();
    if (body_rows_)
        body_rows_->flush();
    background_->flush();
}

void RunOutput::publish_complete_pieces() {
    if (!group_)
        return;
    const double complete = group_->min(static_cast<double>(series_->complete_prefix()));
    if (writes_shared())
        series_->publish(static_cast<std::size_t>(complete));
}

std::filesystem::path RunOutput::write_failure(const Snapshot& snapshot) {
    take_pending_piece();
    background_->flush();
    std::filesystem::path failed = series_->write_failure(snapshot);
    if (group_) {
        group_->barrier();
        if (writes_shared())
            failed = series_->publish_failure();
    }
    return failed;
}

std::pair<std::uintmax_t, double> RunOutput::summed_totals() const {
    double totals[2] = {static_cast<double>(bytes_.load()), background_->write_seconds()};
    if (group_)
        group_->sum(totals, 2);
    return {static_cast<std::uintmax_t>(totals[0]), totals[1]};
}

} // namespace sluice
