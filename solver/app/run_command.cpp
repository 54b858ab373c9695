// `sluice run CASE.xml`: simulates a case, writes the snapshot series and summary.json.

#include "app/command_line.h"

#include "app/cli_progress.h"
#include "app/preflight.h"
#include "io/async_output.h"
#include "io/output.h"
#include "io/summary.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

namespace sluice {

namespace {

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) {
    interrupted = true;
}

} // namespace

int run_command(const Options& o) {
    const Case c = load_case(o);
    const auto wall_start = std::chrono::steady_clock::now();
    require_fits(preflight(c, o.backend), o.backend);
    auto sim = make_simulation(c, o.backend);

    RunSummary summary;
    summary.case_name = c.name;
    summary.case_file = o.case_path;
    summary.backend = sim->backend_name();
    summary.neighbour_module = c.neighbours.name();
    summary.end_time = c.run.end_time;
    summary.initial = sim->counts();
    summary.dp = c.dp;
    summary.smoothing_length = sim->constants().h;
    summary.speed_of_sound = sim->constants().speed_of_sound;

    SnapshotSeriesWriter writer(c.run.output_dir, c.name);
    const std::filesystem::path summary_path =
        std::filesystem::path(c.run.output_dir) / "summary.json";
    std::cout << "sluice: " << c.name << " (" << c.dimension << "D), " << summary.initial.fluid
              << " fluid + " << summary.initial.boundary << " boundary particles, "
              << summary.neighbour_module << " on " << summary.backend
              << ", to t = " << c.run.end_time << " s\n";

    // Output off the critical path: the backend starts a copy (on the GPU: to pinned memory on a
    // side stream), a writer thread finishes and writes it while the simulation steps on.
    // "output" in the summary is the time the stepping thread spends starting snapshots.
    BackgroundSnapshotWriter output([&writer](const Snapshot& s) { writer.write(s); });
    double output_seconds = 0.0;
    double last_written_time = -1.0;
    auto write_snapshot = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        output.submit(sim->begin_snapshot());
        last_written_time = sim->time();
        output_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    auto finish_summary = [&](const std::string& status, const std::string& failure) {
        output.flush();
        summary.status = status;
        summary.failure = failure;
        summary.final_counts = sim->counts();
        summary.steps = sim->steps();
        summary.simulated_time = sim->time();
        summary.stages = sim->stage_times();
        summary.stages.emplace_back("output", output_seconds);
        summary.snapshots = writer.count();
        summary.wall_time =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        write_summary_json(summary_path, summary);
    };

    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    write_snapshot();
    ProgressReporter progress(c.run.end_time);
    std::uint64_t excluded_count = summary.initial.excluded;
    // Output times are k·interval; a snapshot is written at the first step that reaches one.
    std::uint64_t next_output = 1;
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
        if (sim->time() + slack >= next_output * c.run.output_interval) {
            write_snapshot();
            while (sim->time() + slack >= next_output * c.run.output_interval)
                ++next_output;
        }
        progress.update(sim->time(), sim->steps());
        if (interrupted) {
            progress.finish();
            std::cerr << "sluice: interrupted at t = " << sim->time()
                      << " s; writing a last snapshot\n";
            write_snapshot();
            finish_summary("interrupted", "interrupted by signal");
            return exit_interrupted;
        }
    }
    progress.finish();
    if (last_written_time < sim->time())
        write_snapshot();
    finish_summary("completed", ""); // flushes the writer first
    std::cout << "sluice: done, " << sim->steps() << " steps to t = " << sim->time() << " s in "
              << summary.wall_time << " s wall; " << writer.count() << " snapshots, "
              << summary.final_counts.excluded << " particle(s) excluded\n"
              << "sluice: open "
              << (std::filesystem::path(c.run.output_dir) / (c.name + ".pvd")).string()
              << " in ParaView\n";
    return exit_ok;
}

} // namespace sluice
