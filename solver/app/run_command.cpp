// `sluice run CASE.xml`: simulates a case, writes the snapshot series and summary.json.

#include "app/command_line.h"

#include "app/cli_progress.h"
#include "app/gauge_rows.h"
#include "app/preflight.h"
#include "app/tune.h"
#include "backends/gauges.h"
#include "io/async_output.h"
#include "io/checkpoint.h"
#include "io/csv_series.h"
#include "io/diagnostics.h"
#include "io/output.h"
#include "io/summary.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace sluice {

namespace {

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) {
    interrupted = true;
}

/// What a restart continues from: the checkpoint, and the messages about newer ones skipped.
struct Restart {
    Checkpoint checkpoint;
    std::filesystem::path directory;
};

/// Reads the newest usable checkpoint of case c in `directory` and checks that it belongs to
/// this case as configured now (same dp, integrator, dimension) and that time remains.
Restart load_restart(const Case& c, const std::string& directory) {
    std::vector<std::string> warnings;
    Restart r{read_latest_checkpoint(directory, c.name, warnings), directory};
    for (const std::string& w : warnings)
        std::cerr << "sluice: warning: " << w << "\n";
    const Checkpoint& k = r.checkpoint;
    if (std::abs(k.dp - c.dp) > 1e-12 * c.dp)
        throw UsageError("--restart: the checkpoint was written with dp = " + std::to_string(k.dp) +
                             " m, the case now has dp = " + std::to_string(c.dp) +
                             " m; a restart continues the same particles",
                         "run");
    if (k.integrator != to_string(c.physics.integrator))
        throw UsageError("--restart: the checkpoint was written by the " + k.integrator +
                             " integrator, the case now uses " + to_string(c.physics.integrator),
                         "run");
    if (k.state.dimension != c.dimension)
        throw UsageError("--restart: the checkpoint is of a " + std::to_string(k.state.dimension) +
                             "D case",
                         "run");
    if (k.state.time >= c.run.end_time - 1e-12 * c.run.end_time) {
        std::ostringstream msg;
        msg << "--restart: the checkpoint is at t = " << k.state.time
            << " s, already at the end time " << c.run.end_time
            << " s; give a later --end-time to continue";
        throw UsageError(msg.str(), "run");
    }
    return r;
}

} // namespace

int run_command(const Options& o) {
    Case c = load_case(o);
    if (o.restart) {
        if (o.out && *o.out != *o.restart)
            throw UsageError("--restart DIR continues the run in DIR; give no other --out", "run");
        c.run.output_dir = *o.restart;
    }
    if (o.checkpoint_interval)
        c.run.checkpoint_interval = *o.checkpoint_interval;
    const auto wall_start = std::chrono::steady_clock::now();
    std::optional<Restart> restart;
    if (o.restart)
        restart = load_restart(c, *o.restart);
    else
        require_fits(preflight(c, o.backend), o.backend);
    // --neighbours auto / <neighbours auto="true"/>: time the modules first (tune.h), within
    // about 10 s, and run with the fastest.
    std::optional<TuneReport> tuning;
    if (c.neighbours_auto) {
        TuneOptions t;
        t.modules = tune_candidates();
        t.steps = 5;
        t.time_limit = 10.0;
        t.backend = o.backend;
        std::cout << "sluice: choosing the neighbour module (auto): " << t.modules.size()
                  << " modules, " << t.warmup_steps << " + " << t.steps
                  << " steps each, at most about " << *t.time_limit << " s\n"
                  << std::flush;
        tuning = restart ? tune_neighbours(c, t, restart->checkpoint.state) : tune_neighbours(c, t);
        c.neighbours = parse_neighbour_module(tuning->ranking.front().module);
        std::cout << "sluice: fastest of " << tuning->ranking.size() << ": "
                  << tuning->ranking.front().module << " (" << tuning->ranking.front().ms_per_step
                  << " ms/step";
        if (tuning->ranking.size() > 1)
            std::cout << "; next " << tuning->ranking[1].module << ", "
                      << tuning->ranking[1].ms_per_step << " ms/step";
        std::cout << "), chosen in " << tuning->seconds << " s\n";
    }
    auto sim = restart ? make_simulation(c, o.backend, restart->checkpoint.state)
                       : make_simulation(c, o.backend);

    RunSummary summary;
    summary.case_name = c.name;
    summary.case_file = o.case_path;
    summary.backend = sim->backend_name();
    summary.neighbour_module = c.neighbours.name();
    summary.tuning = tuning;
    summary.end_time = c.run.end_time;
    summary.initial = sim->counts();
    summary.dp = c.dp;
    summary.smoothing_length = sim->constants().h;
    summary.speed_of_sound = sim->constants().speed_of_sound;

    const std::filesystem::path output_dir = c.run.output_dir;
    // Output times are k·interval; a snapshot is written at the first step that reaches one.
    std::uint64_t next_output = 1;
    std::vector<double> output_times; ///< of every snapshot submitted, in order
    const std::optional<double> checkpoint_interval = c.run.checkpoint_interval;
    double next_checkpoint_time = checkpoint_interval ? *checkpoint_interval : 0.0;
    std::unique_ptr<SnapshotSeriesWriter> series;
    if (restart) {
        const Checkpoint& k = restart->checkpoint;
        series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name, k.output_times);
        next_output = k.next_output;
        output_times = k.output_times;
        if (checkpoint_interval)
            next_checkpoint_time =
                k.state.time < k.next_checkpoint_time
                    ? k.next_checkpoint_time
                    : (std::floor(k.state.time / *checkpoint_interval) + 1) * *checkpoint_interval;
        summary.restart_file = k.source.string();
        summary.restart_time = k.state.time;
        summary.restart_step = k.state.steps;
    } else {
        series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name);
    }
    SnapshotSeriesWriter& writer = *series;
    const std::filesystem::path summary_path = output_dir / "summary.json";
    std::cout << "sluice: " << c.name << " (" << c.dimension << "D), " << summary.initial.fluid
              << " fluid + " << summary.initial.boundary << " boundary particles, "
              << summary.neighbour_module << " on " << summary.backend;
    if (restart)
        std::cout << ", restarting at t = " << sim->time() << " s (step " << sim->steps() << ")";
    std::cout << ", to t = " << c.run.end_time << " s\n";

    // Output off the critical path: the backend starts a copy (on the GPU: to pinned memory on a
    // side stream), a writer thread finishes and writes it while the simulation steps on.
    // "output" in the summary is the time the stepping thread spends starting snapshots.
    // diagnostics.csv: one row per snapshot, computed on the output thread.
    const double resume_after = restart ? restart->checkpoint.state.time : -1.0;
    const DiagnosticsConstants diagnostics_constants{
        sim->constants().mass, c.constants.gravity,
        summary.initial.fluid + summary.initial.boundary + summary.initial.excluded};
    CsvSeries diagnostics(output_dir / "diagnostics.csv", diagnostics_comments(),
                          diagnostics_columns(), resume_after);
    // The collector thread finishes each copy and writes its diagnostics row in time order; a
    // pool of writer threads compresses and writes the .vtp files, several at once.
    writer.set_format(c.output.format, c.output.boundary_only_first);
    BackgroundSnapshotWriter::Settings output_settings;
    output_settings.writers = c.output.writers ? c.output.writers : default_writer_count();
    output_settings.in_order = [&](const Snapshot& s) {
        diagnostics.write(s.time, diagnostics_row(s, diagnostics_constants));
    };
    std::atomic<std::uintmax_t> snapshot_bytes{0};
    BackgroundSnapshotWriter output(
        [&](const Snapshot& s, std::size_t index) { snapshot_bytes += writer.write(index, s); },
        output_settings);
    // gauges.csv: sampled every <gauges interval> on the backend, written as the run goes.
    std::unique_ptr<GaugePlan> gauge_plan;
    std::unique_ptr<CsvSeries> gauge_csv;
    std::unique_ptr<GaugeRowWriter> gauge_rows; // after what it writes to: destroyed first
    double gauge_seconds = 0.0;
    std::uint64_t next_gauge = 0;
    if (c.gauges.interval > 0.0) {
        gauge_plan = std::make_unique<GaugePlan>(c, sim->constants().support);
        std::vector<std::string> comments = {
            "sluice gauges of case " + c.name + ", every " + std::to_string(c.gauges.interval) +
                " s (cases/README.md: height = 1/2-level of the fluid fraction, probe = "
                "Shepard interpolation, front = farthest fluid particle with a fluid neighbour "
                "within 2 dp); empty = no fluid there",
            "t: s"};
        std::vector<std::string> names;
        for (const GaugeColumn& col : gauge_plan->columns()) {
            comments.push_back(col.name + ": " + col.unit);
            names.push_back(col.name);
        }
        gauge_csv =
            std::make_unique<CsvSeries>(output_dir / "gauges.csv", comments, names, resume_after);
        gauge_rows = std::make_unique<GaugeRowWriter>(*gauge_plan, *gauge_csv);
        next_gauge = restart ? static_cast<std::uint64_t>(
                                   std::floor(sim->time() / c.gauges.interval * (1.0 + 1e-12))) +
                                   1
                             : 0;
    }
    // A gauge sample is begun after the step that reaches its time; gauge_rows' thread waits
    // for it and writes its row while the simulation steps on.
    auto finish_gauges = [&] { // every row so far on disk (before a checkpoint, at the end)
        if (gauge_rows)
            gauge_rows->flush();
    };
    auto sample_gauges = [&] {
        if (!gauge_plan)
            return;
        const double slack_g = 1e-6 * c.gauges.interval;
        if (sim->time() + slack_g < static_cast<double>(next_gauge) * c.gauges.interval)
            return;
        const auto t0 = std::chrono::steady_clock::now();
        gauge_rows->submit(sim->time(), sim->begin_gauges(gauge_plan->request()));
        while (sim->time() + slack_g >= static_cast<double>(next_gauge) * c.gauges.interval)
            ++next_gauge;
        gauge_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    double output_seconds = 0.0, checkpoint_seconds = 0.0;
    ProgressReporter progress(c.run.end_time);
    progress.start_from(sim->time(), sim->steps());
    // With checkpoints on, the state at the last output time is kept in memory so that a run
    // that fails can still leave a checkpoint to continue from (e.g. with a smaller cfl).
    std::optional<Checkpoint> last_good;
    std::optional<std::uint64_t> last_checkpoint_step;
    auto make_checkpoint = [&](SimulationState state) {
        Checkpoint k;
        k.case_name = c.name;
        k.dp = c.dp;
        k.integrator = to_string(c.physics.integrator);
        k.state = std::move(state);
        k.next_output = next_output;
        k.output_times = output_times;
        k.next_checkpoint_time = next_checkpoint_time;
        return k;
    };
    auto store_checkpoint = [&](const Checkpoint& k, const char* why) {
        const auto t0 = std::chrono::steady_clock::now();
        finish_gauges(); // and every gauge row up to its time
        output.flush();  // every snapshot the checkpoint lists is on disk before it is
        const std::filesystem::path path = write_checkpoint(output_dir, k);
        ++summary.checkpoints;
        last_checkpoint_step = k.state.steps;
        checkpoint_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::ostringstream line;
        line << "checkpoint (" << why << ") at t = " << k.state.time << " s, step " << k.state.steps
             << ": " << path.string();
        progress.log_line(line.str());
    };
    auto write_snapshot = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        std::future<Snapshot> snapshot = sim->begin_snapshot();
        output.submit(std::move(snapshot), writer.reserve());
        output_times.push_back(sim->time());
        output_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    auto finish_summary = [&](const std::string& status, const std::string& failure) {
        finish_gauges();
        output.flush();
        summary.status = status;
        summary.failure = failure;
        summary.final_counts = sim->counts();
        summary.steps = sim->steps();
        summary.simulated_time = sim->time();
        summary.stages = sim->stage_times();
        summary.stages.emplace_back("output", output_seconds);
        summary.stages.emplace_back("gauges_host", gauge_seconds);
        summary.stages.emplace_back("checkpoints", checkpoint_seconds);
        if (tuning)
            summary.stages.emplace_back("neighbour_tuning", tuning->seconds);
        summary.snapshots = writer.count();
        summary.output = {to_string(c.output.format.compressor),
                          c.output.format.level,
                          fields_to_string(c.output.format),
                          c.output.boundary_only_first ? "first" : "every",
                          output.writers(),
                          snapshot_bytes.load(),
                          output.write_seconds()};
        summary.wall_time =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        summary.particle_steps =
            static_cast<double>(summary.initial.fluid + summary.initial.boundary +
                                summary.initial.excluded) *
            static_cast<double>(sim->steps() - summary.restart_step);
        write_summary_json(summary_path, summary);
    };

    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    if (!restart)
        write_snapshot();
    sample_gauges();
    std::uint64_t excluded_count = summary.initial.excluded;
    // A tolerance of a millionth of the interval keeps rounding from skipping an output time.
    const double slack = 1e-6 * c.run.output_interval;
    while (sim->time() < c.run.end_time - 1e-12 * c.run.end_time) {
        try {
            sim->step();
        } catch (const SimulationFailure& failure) {
            progress.finish();
            std::cerr << "sluice: " << failure.what() << "\n";
            output.flush();
            const std::filesystem::path failed = writer.write_failure(sim->snapshot());
            std::cerr << "sluice: failing state written to " << failed.string()
                      << "; the last good output is kept in " << c.run.output_dir << "\n";
            if (last_good) {
                store_checkpoint(*last_good, "last output before the failure");
                std::cerr << "sluice: continue from t = " << last_good->state.time
                          << " s with --restart " << output_dir.string() << "\n";
            }
            finish_summary("failed", failure.what());
            return exit_simulation_failure;
        }
        for (const Exclusion& e : sim->take_exclusions()) {
            ++excluded_count;
            std::ostringstream line;
            line << "t = " << e.time << " s (step " << e.step << "): fluid particle " << e.id
                 << " left the domain at (" << e.position[0] << ", " << e.position[1] << ", "
                 << e.position[2] << ") m and is excluded (" << excluded_count << " in all)";
            progress.log_line(line.str());
        }
        sample_gauges(); // before a checkpoint of this step, which then counts its row
        if (sim->time() + slack >= next_output * c.run.output_interval) {
            write_snapshot();
            while (sim->time() + slack >= next_output * c.run.output_interval)
                ++next_output;
            if (checkpoint_interval)
                last_good = make_checkpoint(sim->save_state());
        }
        if (checkpoint_interval &&
            sim->time() + 1e-6 * *checkpoint_interval >= next_checkpoint_time) {
            while (sim->time() + 1e-6 * *checkpoint_interval >= next_checkpoint_time)
                next_checkpoint_time += *checkpoint_interval;
            store_checkpoint(make_checkpoint(sim->save_state()), "interval");
        }
        progress.update(sim->time(), sim->steps());
        if (interrupted) {
            progress.finish();
            std::cerr << "sluice: interrupted at t = " << sim->time()
                      << " s; writing a last snapshot and a checkpoint\n";
            write_snapshot();
            store_checkpoint(make_checkpoint(sim->save_state()), "interrupted");
            std::cerr << "sluice: continue with --restart " << output_dir.string() << "\n";
            finish_summary("interrupted", "interrupted by signal");
            return exit_interrupted;
        }
    }
    progress.finish();
    if (output_times.empty() || output_times.back() < sim->time())
        write_snapshot();
    // So that the run can be continued to a later end time (unless the interval just did).
    if (checkpoint_interval && last_checkpoint_step != sim->steps())
        store_checkpoint(make_checkpoint(sim->save_state()), "end of run");
    finish_summary("completed", ""); // flushes the writer first
    std::cout << "sluice: done, " << sim->steps() << " steps to t = " << sim->time() << " s in "
              << summary.wall_time << " s wall; " << writer.count() << " snapshots, "
              << summary.final_counts.excluded << " particle(s) excluded\n"
              << performance_lines(summary) << "sluice: open "
              << (output_dir / (c.name + ".pvd")).string() << " in ParaView\n";
    return exit_ok;
}

} // namespace sluice
