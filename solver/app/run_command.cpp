// `sluice run CASE.xml`: simulates a case, writes the snapshot series and summary.json.

#include "app/command_line.h"

#include "app/cli_progress.h"
#include "app/preflight.h"
#include "app/tune.h"
#include "case/gauge_plan.h"
#include "io/async_output.h"
#include "io/checkpoint.h"
#include "io/csv_series.h"
#include "io/diagnostics.h"
#include "io/gauge_rows.h"
#include "io/output.h"
#include "io/summary.h"
#include "parallel/communicator.h"
#include "parallel/slab_start.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <future>
#include <iostream>
#include <iterator>
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
    /// Written by another number of processes than this run has (0: the same): the whole
    /// state, cut afresh.
    std::uint32_t regrouped_from = 0;
};

/// Reads the newest usable checkpoint of case c in `directory` and checks that it belongs to
/// this case as configured now (same dp, integrator, dimension) and that time remains.
void check_restart(const Case& c, const Checkpoint& k) {
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
}

Restart load_restart(const Case& c, const std::string& directory) {
    std::vector<std::string> warnings;
    Restart r{read_latest_checkpoint(directory, c.name, warnings), directory};
    for (const std::string& w : warnings)
        std::cerr << "sluice: warning: " << w << "\n";
    check_restart(c, r.checkpoint);
    return r;
}

/// What the processes of a run over several send each other about the run as a whole.
/// Counts over every process (each counts the particles it owns).
ParticleCounts run_counts(const Simulation& sim, const Communicator* comm) {
    ParticleCounts c = sim.counts();
    if (!comm)
        return c;
    std::uint64_t v[3] = {c.fluid, c.boundary, c.excluded};
    comm->sum(v, 3);
    return {v[0], v[1], v[2]};
}

std::vector<std::byte> to_bytes(const std::vector<double>& values) {
    std::vector<std::byte> out;
    ByteWriter w(out);
    for (const double v : values)
        w.put(v);
    return out;
}

std::vector<double> to_doubles(const std::vector<std::byte>& bytes) {
    std::vector<double> out(bytes.size() / sizeof(double));
    ByteReader r(bytes);
    for (double& v : out)
        v = r.get<double>();
    return out;
}

/// Each process's values, on every process.
std::vector<std::vector<double>> gather_values(const Communicator& comm,
                                               const std::vector<double>& mine) {
    std::vector<std::vector<double>> out;
    for (const std::vector<std::byte>& b : comm.all_gather(to_bytes(mine)))
        out.push_back(to_doubles(b));
    return out;
}

Restart load_regrouped_restart(const Case& c, const std::string& directory,
                               const Communicator* comm);

/// A run over several processes: the newest checkpoint step that every process wrote and
/// reads, each process's own file of it (load_restart's checks), when as many processes wrote it;
/// else, or when none reads, load_regrouped_restart.
Restart load_restart_piece(const Case& c, const std::string& directory, const Communicator& comm) {
    const std::uint32_t rank = static_cast<std::uint32_t>(comm.rank());
    std::vector<double> mine;
    for (const std::uint64_t step : list_process_checkpoints(directory, c.name, rank))
        mine.push_back(static_cast<double>(step));
    const std::vector<std::vector<double>> each = gather_values(comm, mine);
    std::vector<double> common = each.front();
    for (const std::vector<double>& steps : each) {
        std::vector<double> both;
        std::set_intersection(common.begin(), common.end(), steps.begin(), steps.end(),
                              std::back_inserter(both));
        common.swap(both);
    }
    for (auto step = common.rbegin(); step != common.rend(); ++step) {
        const std::filesystem::path path =
            checkpoint_path(directory, c.name, static_cast<std::uint64_t>(*step), rank);
        std::optional<Checkpoint> k;
        std::string why;
        try {
            k = read_checkpoint(path);
        } catch (const CheckpointError& e) {
            why = e.what();
        }
        if (!why.empty())
            std::cerr << "sluice[process " << rank << "]: warning: " << why
                      << "; trying an older one\n";
        if (comm.min(k ? 1.0 : 0.0) == 0.0) // one unreadable piece spoils the step
            continue;
        if (k->processes != static_cast<std::uint32_t>(comm.size())) // an older, other run's
            return load_regrouped_restart(c, directory, &comm);
        check_restart(c, *k);
        return Restart{std::move(*k), directory};
    }
    // No step that this many processes wrote reads: any other (a newer one's pieces are damaged,
    // an older run had another number of processes), regrouped.
    return load_regrouped_restart(c, directory, &comm);
}

/// A restart under another number of processes than wrote the newest checkpoint (one process
/// among them): every process reads the whole run's state, each piece merged
/// (read_latest_whole_checkpoint), and over several processes keeps its slab of a fresh cut by
/// estimated work (split_state), as a run's start does.
Restart load_regrouped_restart(const Case& c, const std::string& directory,
                               const Communicator* comm) {
    std::vector<std::string> warnings;
    Restart r{read_latest_whole_checkpoint(directory, c.name, warnings), directory};
    if (!comm || comm->is_root())
        for (const std::string& w : warnings)
            std::cerr << "sluice: warning: " << w << "\n";
    check_restart(c, r.checkpoint);
    Checkpoint& k = r.checkpoint;
    r.regrouped_from = k.processes;
    if (comm) {
        SlabStart piece = split_state(c, k.state, *comm);
        k.state = std::move(piece.state);
        k.slab_axis = piece.slabs.axis;
        k.slab_faces = piece.slabs.faces;
        k.total_particles = piece.total_particles;
        k.process = static_cast<std::uint32_t>(comm->rank());
        k.processes = static_cast<std::uint32_t>(comm->size());
    } else {
        k.process = 0;
        k.processes = 1;
        k.slab_faces.clear();
    }
    return r;
}

/// The restart `--restart DIR` asks for: from the newest checkpoint's own pieces when as many
/// processes wrote it as this run has, else regrouped.
Restart load_any_restart(const Case& c, const std::string& directory, const Communicator* comm) {
    const std::uint32_t wrote = newest_checkpoint_processes(directory, c.name);
    const std::uint32_t here = comm ? static_cast<std::uint32_t>(comm->size()) : 1;
    if (wrote != 0 && wrote != here)
        return load_regrouped_restart(c, directory, comm);
    return comm ? load_restart_piece(c, directory, *comm) : load_restart(c, directory);
}

} // namespace

int run_command(const Options& o) {
    Case c = load_case(o);
    // Several processes (mpirun): each owns a slab of the domain (DESIGN.md, Scale-out).
    const std::unique_ptr<Communicator> comm = Communicator::world();
    const bool root = !comm || comm->is_root(); // writes the run's shared files and speaks
    const Backend backend = o.backend;
    if (comm) {
        const char* why = nullptr;
        if (c.neighbours_auto)
            why = "--neighbours auto";
        if (why)
            throw UsageError(std::string(why) +
                                 " is not available in a run over several processes yet; "
                                 "run it in one process, or leave it out",
                             "run");
    }
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
        restart = load_any_restart(c, *o.restart, comm.get());
    else
        require_fits(preflight(c, backend), backend);
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
        c.neighbours = tuning->ranking.front().module;
        std::cout << "sluice: fastest of " << tuning->ranking.size() << ": "
                  << tuning->ranking.front().module.name() << " ("
                  << tuning->ranking.front().ms_per_step << " ms/step";
        if (tuning->ranking.size() > 1)
            std::cout << "; next " << tuning->ranking[1].module.name() << ", "
                      << tuning->ranking[1].ms_per_step << " ms/step";
        std::cout << "), chosen in " << tuning->seconds << " s\n";
    }
    auto sim = comm && restart
                   ? make_simulation(c, backend, *comm, restart->checkpoint.state,
                                     slabs_with_faces(restart->checkpoint.slab_axis,
                                                      restart->checkpoint.slab_faces, 0.0, 0.0),
                                     restart->checkpoint.total_particles)
               : comm    ? make_simulation(c, backend, *comm)
               : restart ? make_simulation(c, o.backend, restart->checkpoint.state)
                         : make_simulation(c, o.backend);

    RunSummary summary;
    summary.case_name = c.name;
    summary.case_file = o.case_path;
    summary.backend = sim->backend_name();
    summary.neighbour_module = c.neighbours.name();
    if (tuning)
        summary.tuning = tuning->summary();
    summary.end_time = c.run.end_time;
    summary.initial = run_counts(*sim, comm.get());
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
        if (restart->regrouped_from) { // the first process clears what the last run wrote later
            using Regrouped = SnapshotSeriesWriter::RegroupedSeries;
            const int piece = comm ? comm->rank() : 0, pieces = comm ? comm->size() : 0;
            if (root)
                series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name, k.output_times,
                                                                piece, pieces, Regrouped{});
            if (comm)
                comm->barrier();
            if (!root)
                series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name, k.output_times,
                                                                piece, pieces, Regrouped{});
        } else if (comm) {
            series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name, k.output_times,
                                                            comm->rank(), comm->size());
            comm->barrier(); // every process has cleared what it wrote after the checkpoint
        } else {
            series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name, k.output_times);
        }
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
        summary.restart_processes = restart->regrouped_from ? restart->regrouped_from : k.processes;
    } else if (comm) { // the first process clears the directory before any writes to it
        if (root)
            series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name);
        comm->barrier();
        if (!root)
            series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name);
        comm->barrier();
        series->set_pieces(comm->rank(), comm->size());
    } else {
        series = std::make_unique<SnapshotSeriesWriter>(output_dir, c.name);
    }
    SnapshotSeriesWriter& writer = *series;
    // Several processes: the first one lists in the .pvd the times whose pieces every process
    // has written completely (collective).
    auto publish_complete_pieces = [&] {
        const double complete = comm->min(static_cast<double>(writer.complete_prefix()));
        if (root)
            writer.publish(static_cast<std::size_t>(complete));
    };
    const std::filesystem::path summary_path = output_dir / "summary.json";
    std::ostream null_out(nullptr); // the other processes of a run over several say nothing
    std::ostream& out = root ? std::cout : null_out;
    out << "sluice: " << c.name << " (" << c.dimension << "D), " << summary.initial.fluid
        << " fluid + " << summary.initial.boundary << " boundary particles, "
        << summary.neighbour_module << " on " << summary.backend;
    if (restart)
        out << ", restarting at t = " << sim->time() << " s (step " << sim->steps() << ")";
    if (restart && restart->regrouped_from)
        out << " from the checkpoint of " << restart->regrouped_from
            << (restart->regrouped_from == 1 ? " process" : " processes");
    out << ", to t = " << c.run.end_time << " s\n";
    if (comm) {
        const SlabDecomposition d = *sim->decomposition();
        out << "sluice: " << comm->size() << " processes, slabs along "
            << axis_name(c.dimension, d.axis) << " with faces at";
        for (int k = 1; k < d.ranks(); ++k)
            out << (k > 1 ? ", " : " ") << d.faces[static_cast<std::size_t>(k)];
        out << " m, halo " << d.halo_width << " m\n";
    }

    // Output off the critical path: the backend starts a copy (on the GPU: to pinned memory on a
    // side stream), a writer thread finishes and writes it while the simulation steps on.
    // "output" in the summary is the time the stepping thread spends starting snapshots.
    // diagnostics.csv: one row per snapshot, computed on the output thread.
    const double resume_after = restart ? restart->checkpoint.state.time : -1.0;
    const DiagnosticsConstants diagnostics_constants{
        sim->constants().mass, c.constants.gravity,
        summary.initial.fluid + summary.initial.boundary + summary.initial.excluded};
    std::optional<CsvSeries> diagnostics;
    if (root)
        diagnostics.emplace(output_dir / "diagnostics.csv", diagnostics_comments(),
                            diagnostics_columns(), resume_after);
    // The collector thread finishes each copy and writes its diagnostics row in time order; a
    // pool of writer threads compresses and writes the .vtp files, several at once.
    writer.set_format(c.output.format, c.output.boundary_only_first);
    BackgroundSnapshotWriter::Settings output_settings;
    output_settings.writers = c.output.writers ? c.output.writers : default_writer_count();
    if (!comm) // several processes: computed with the snapshot (write_snapshot)
        output_settings.in_order = [&](const Snapshot& s) {
            diagnostics->write(s.time, diagnostics_row(s, diagnostics_constants));
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
        if (root) {
            gauge_csv = std::make_unique<CsvSeries>(output_dir / "gauges.csv", comments, names,
                                                    resume_after);
            gauge_rows = std::make_unique<GaugeRowWriter>(gauge_plan->evaluator(), *gauge_csv);
        }
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
        // Several processes: every one takes part in the sample, the first writes the row.
        std::future<GaugeResponse> sample = sim->begin_gauges(gauge_plan->request());
        if (gauge_rows)
            gauge_rows->submit(sim->time(), std::move(sample));
        while (sim->time() + slack_g >= static_cast<double>(next_gauge) * c.gauges.interval)
            ++next_gauge;
        gauge_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    double output_seconds = 0.0, checkpoint_seconds = 0.0;
    ProgressReporter progress =
        root ? ProgressReporter(c.run.end_time) : ProgressReporter(c.run.end_time, null_out, false);
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
        if (comm) {
            const SlabDecomposition d = *sim->decomposition();
            k.process = static_cast<std::uint32_t>(comm->rank());
            k.processes = static_cast<std::uint32_t>(comm->size());
            k.total_particles = diagnostics_constants.particles;
            k.slab_axis = d.axis;
            k.slab_faces = d.faces;
        }
        return k;
    };
    auto store_checkpoint = [&](const Checkpoint& k, const char* why) {
        const auto t0 = std::chrono::steady_clock::now();
        finish_gauges(); // and every gauge row up to its time
        output.flush();  // every snapshot the checkpoint lists is on disk before it is
        if (comm) {      // ... and listed in the .pvd
            publish_complete_pieces();
        }
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
        if (comm) {
            // Each process writes its piece; the diagnostics row is the sum of theirs; the
            // first process lists in the .pvd the times whose pieces are all complete.
            Snapshot piece = sim->snapshot();
            const std::vector<double> row = combine_diagnostics_rows(
                gather_values(*comm, diagnostics_row(piece, diagnostics_constants)),
                diagnostics_constants);
            if (root)
                diagnostics->write(piece.time, row);
            std::promise<Snapshot> ready;
            ready.set_value(std::move(piece));
            output.submit(ready.get_future(), writer.reserve());
            publish_complete_pieces();
        } else {
            output.submit(sim->begin_snapshot(), writer.reserve());
        }
        output_times.push_back(sim->time());
        output_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    auto finish_summary = [&](const std::string& status, const std::string& failure) {
        finish_gauges();
        output.flush();
        summary.status = status;
        summary.failure = failure;
        summary.final_counts = run_counts(*sim, comm.get());
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
        if (comm) {
            // Every piece is on disk (flushed above): list them all; per-process figures.
            publish_complete_pieces();
            double totals[2] = {static_cast<double>(snapshot_bytes.load()), output.write_seconds()};
            comm->sum(totals, 2);
            summary.output.bytes = static_cast<std::uintmax_t>(totals[0]);
            summary.output.writer_thread_seconds = totals[1];
            const SlabDecomposition d = *sim->decomposition();
            const ParticleCounts own = sim->counts();
            std::vector<double> mine = {static_cast<double>(own.fluid),
                                        static_cast<double>(own.boundary),
                                        static_cast<double>(own.excluded)};
            const StageTimes stages = sim->stage_times();
            for (const auto& [name, seconds] : stages)
                mine.push_back(seconds);
            DecompositionSummary ds;
            ds.axis = axis_name(c.dimension, d.axis);
            ds.halo_width = d.halo_width;
            ds.faces = d.faces;
            ds.balance_history = d.history;
            const std::vector<std::vector<double>> each = gather_values(*comm, mine);
            for (int r = 0; r < comm->size(); ++r) {
                const std::vector<double>& v = each[static_cast<std::size_t>(r)];
                ProcessSummary p;
                p.final_counts = {static_cast<std::uint64_t>(v[0]),
                                  static_cast<std::uint64_t>(v[1]),
                                  static_cast<std::uint64_t>(v[2])};
                p.slab_lower = d.faces[static_cast<std::size_t>(r)];
                p.slab_upper = d.faces[static_cast<std::size_t>(r) + 1];
                for (std::size_t k = 0; k < stages.size(); ++k)
                    p.stages.emplace_back(stages[k].first, v[3 + k]);
                ds.processes.push_back(std::move(p));
            }
            summary.decomposition = std::move(ds);
        }
        summary.wall_time =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        summary.particle_steps =
            static_cast<double>(summary.initial.fluid + summary.initial.boundary +
                                summary.initial.excluded) *
            static_cast<double>(sim->steps() - summary.restart_step);
        if (root)
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
            // Several processes: every one meets the failure at the same step (the check is
            // collective) and writes its piece of the failing state.
            progress.finish();
            if (root)
                std::cerr << "sluice: " << failure.what() << "\n";
            output.flush();
            std::filesystem::path failed = writer.write_failure(sim->snapshot());
            if (comm) {
                comm->barrier();
                if (root)
                    failed = writer.publish_failure();
            }
            if (root)
                std::cerr << "sluice: failing state written to " << failed.string()
                          << "; the last good output is kept in " << c.run.output_dir << "\n";
            if (last_good) {
                store_checkpoint(*last_good, "last output before the failure");
                if (root)
                    std::cerr << "sluice: continue from t = " << last_good->state.time
                              << " s with --restart " << output_dir.string() << "\n";
            }
            finish_summary("failed", failure.what());
            return exit_simulation_failure;
        }
        std::vector<Exclusion> exclusions = sim->take_exclusions();
        bool stop = interrupted;
        if (comm) {
            // One small reduction a step: whether any process was interrupted or excluded
            // particles (then the first gathers them to report).
            double flags[2] = {stop ? 1.0 : 0.0, static_cast<double>(exclusions.size())};
            comm->sum(flags, 2);
            stop = flags[0] > 0.0;
            if (flags[1] > 0.0) {
                std::vector<double> mine;
                for (const Exclusion& e : exclusions)
                    mine.insert(mine.end(),
                                {double(e.id), double(e.step), e.time, double(e.position[0]),
                                 double(e.position[1]), double(e.position[2])});
                exclusions.clear();
                for (const std::vector<double>& v : gather_values(*comm, mine))
                    for (std::size_t k = 0; k + 6 <= v.size(); k += 6)
                        exclusions.push_back(
                            {static_cast<std::uint32_t>(v[k]),
                             static_cast<std::uint64_t>(v[k + 1]),
                             v[k + 2],
                             {static_cast<float>(v[k + 3]), static_cast<float>(v[k + 4]),
                              static_cast<float>(v[k + 5])}});
                std::sort(exclusions.begin(), exclusions.end(),
                          [](const Exclusion& a, const Exclusion& b) { return a.id < b.id; });
            }
        }
        for (const Exclusion& e : exclusions) {
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
        if (stop) {
            progress.finish();
            if (root)
                std::cerr << "sluice: interrupted at t = " << sim->time()
                          << " s; writing a last snapshot and a checkpoint\n";
            write_snapshot();
            store_checkpoint(make_checkpoint(sim->save_state()), "interrupted");
            if (root)
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
    out << "sluice: done, " << sim->steps() << " steps to t = " << sim->time() << " s in "
        << summary.wall_time << " s wall; " << writer.count() << " snapshots, "
        << summary.final_counts.excluded << " particle(s) excluded\n"
        << performance_lines(summary) << decomposition_lines(summary) << "sluice: open "
        << (output_dir / (c.name + ".pvd")).string() << " in ParaView\n";
    return exit_ok;
}

} // namespace sluice
