#include "app/run.h"

#include "app/collectives.h"
#include "case/resolution_checks.h"
#include "io/newer_output.h"
#include "parallel/communicator.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <sstream>

namespace sluice {

namespace {

/// A CSV series' header: its comment lines (`intro`, "t: s", then "NAME: unit" per column) and
/// its column names.
struct CsvHeader {
    std::vector<std::string> comments, names;
};
CsvHeader csv_header(std::string intro, const std::vector<GaugeColumn>& columns) {
    CsvHeader h{{std::move(intro), "t: s"}, {}};
    for (const GaugeColumn& col : columns) {
        h.comments.push_back(col.name + ": " + col.unit);
        h.names.push_back(col.name);
    }
    return h;
}

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) {
    interrupted = true;
}

double seconds_since(Run::Clock::time_point t0) {
    return std::chrono::duration<double>(Run::Clock::now() - t0).count();
}

} // namespace

void Run::start_summary() {
    summary_.case_name = c_.name;
    summary_.case_file = o_.case_path;
    summary_.version = SLUICE_VERSION;
    summary_.command_line = o_.arguments;
    summary_.backend = sim_->backend_name();
    summary_.neighbour_module = c_.neighbours.name();
    if (tuning_)
        summary_.tuning = tuning_->summary();
    summary_.end_time = c_.run.end_time;
    summary_.initial = run_counts(*sim_, comm_);
    summary_.dp = c_.dp;
    summary_.smoothing_length = sim_->constants().h;
    summary_.speed_of_sound = sim_->constants().speed_of_sound;
    if (restart_) {
        const Checkpoint& k = restart_->checkpoint;
        summary_.restart_file = k.source.string();
        summary_.restart_time = k.state.time;
        summary_.restart_step = k.state.steps;
        summary_.restart_processes =
            restart_->regrouped_from ? restart_->regrouped_from : k.processes;
    }
    // Losses count from t = 0: a restart's checkpoint lists those reported before it
    // (collective). The fluid at t = 0 is all that is not boundary: a particle that had left at
    // the checkpoint's step, excluded by the restored state's first build, is in initial.excluded
    // but reported (and counted) by this run.
    std::array<std::uint64_t, 2> lost{0, 0};
    if (restart_)
        lost = excluded_by_type(restart_->checkpoint.state);
    if (comm_)
        comm_->sum(lost.data(), 2);
    losses_.emplace(summary_.initial.fluid + summary_.initial.excluded - lost[1], lost[0], lost[1],
                    c_.run.max_loss_percent);
    diagnostics_constants_ = {sim_->constants().mass, c_.constants.gravity,
                              summary_.initial.fluid + summary_.initial.boundary +
                                  summary_.initial.excluded};
}

void Run::print_header() {
    out_ << "sluice: " << c_.name << " (" << c_.dimension << "D), " << summary_.initial.fluid
         << " fluid + " << summary_.initial.boundary << " boundary particles, "
         << summary_.neighbour_module << " on " << summary_.backend;
    if (restart_)
        out_ << ", restarting at t = " << sim_->time() << " s (step " << sim_->steps() << ")";
    if (restart_ && restart_->regrouped_from)
        out_ << " from the checkpoint of " << restart_->regrouped_from
             << (restart_->regrouped_from == 1 ? " process" : " processes");
    out_ << ", to t = " << c_.run.end_time << " s\n";
    if (const std::string note = dp_override_note(c_); !note.empty())
        out_ << "sluice: " << note << "\n";
    if (comm_) {
        const SlabDecomposition d = *sim_->decomposition();
        out_ << "sluice: " << comm_->size() << " processes, slabs along "
             << axis_name(c_.dimension, d.axis) << " with faces at";
        for (int k = 1; k < d.ranks(); ++k)
            out_ << (k > 1 ? ", " : " ") << d.faces[static_cast<std::size_t>(k)];
        out_ << " m, halo " << d.halo_width << " m\n";
    }
}

const std::vector<ObjectIds>& Run::object_ids() {
    if (!object_ids_) {
        object_ids_.emplace();
        (void)boundary_positions(c_, &*object_ids_);
    }
    return *object_ids_;
}

/// Output off the critical path (io/run_output.h); the cadences of the loop (step_loop.h):
/// output times are k·interval, a snapshot is written at the first step that reaches one.
void Run::open_output() {
    RunOutputSettings s;
    s.directory = output_dir_;
    s.case_name = c_.name;
    s.format = c_.output.format;
    s.boundary_only_first = c_.output.boundary_only_first;
    if (s.boundary_only_first && has_motion(c_)) { // moving and floating objects in every one
        const std::vector<ObjectIds>& objects = object_ids();
        const std::vector<BoundaryObjectRef> refs = boundary_objects(c_);
        for (std::size_t k = 0; k < refs.size() && k < objects.size(); ++k)
            if (refs[k].properties->motion || refs[k].properties->floating)
                s.format.moving_boundary.push_back({objects[k].first, objects[k].count});
    }
    s.writers = c_.output.writers ? c_.output.writers : default_writer_count();
    s.diagnostics = diagnostics_constants_;
    std::uint64_t next_output = 1;
    const std::optional<double> interval = c_.run.checkpoint_interval;
    double next_checkpoint_time = interval ? *interval : 0.0;
    if (restart_) {
        const Checkpoint& k = restart_->checkpoint;
        s.resume_times = k.output_times;
        s.regrouped = restart_->regrouped_from != 0;
        s.resume_after = k.state.time;
        next_output = k.next_output;
        output_times_ = k.output_times;
        if (interval)
            next_checkpoint_time = k.state.time < k.next_checkpoint_time
                                       ? k.next_checkpoint_time
                                       : (std::floor(k.state.time / *interval) + 1) * *interval;
    }
    output_ = std::make_unique<RunOutput>(
        s, comm_ ? std::optional<OutputGroup>(output_group(*comm_)) : std::nullopt);
    loop_.snapshots(Cadence::multiples(c_.run.output_interval, next_output), [this] {
        write_snapshot();
        report_unreported_losses();
        if (c_.run.checkpoint_interval)
            last_good_ = make_checkpoint(sim_->save_state());
    });
    if (interval)
        loop_.checkpoints(Cadence::running(*interval, next_checkpoint_time), [this] {
            store_checkpoint(make_checkpoint(sim_->save_state()), "interval");
        });
    loop_.on_step([this] { return after_step(); });
    loop_.progress(progress_);
    open_gauges();
}

/// gauges.csv: sampled every <gauges interval> on the backend, written as the run goes. A
/// sample is begun after the step that reaches its time; the row writer's thread waits for it
/// and writes its row while the simulation steps on. forces.csv (named objects): at the same
/// times, or every output interval in a case without gauges; bodies.csv (floating objects) too.
void Run::open_gauges() {
    const bool gauges = c_.gauges.interval > 0.0;
    bool named = false;
    for (const BoundaryObjectRef& o : boundary_objects(c_))
        named = named || !o.properties->name.empty();
    if (named) {
        force_plan_ = std::make_unique<ForcePlan>(c_, object_ids());
        const CsvHeader h = csv_header(
            "sluice forces of case " + c_.name +
                " (cases/README.md: the force of the fluid on each named object, from the "
                "step's pair terms, and its moment about the object's momentPoint, which moves "
                "with it; 2D: per unit width)",
            force_plan_->columns());
        output_->open_forces(h.comments, h.names,
                             [this](const GaugeResponse& r) { return force_plan_->evaluate(r); });
    }
    if (has_floating(c_)) {
        body_plan_ = std::make_unique<BodyPlan>(c_);
        const CsvHeader h = csv_header(
            "sluice floating bodies of case " + c_.name +
                " (cases/README.md, bodies.csv: each body's centre of mass, orientation from its "
                "pose at t = 0, velocities, and the loads of the step's last BodyLoads pass: the "
                "fluid's force and moment about the centre, the springs' and contacts' forces; "
                "2D: per unit width)",
            body_plan_->columns());
        output_->open_bodies(h.comments, h.names,
                             [this](const GaugeResponse& r) { return body_plan_->evaluate(r); });
    }
    if (!gauges && !force_plan_ && !body_plan_)
        return;
    const double interval = gauges ? c_.gauges.interval : c_.run.output_interval;
    StepLoop::Fire between;
    if (gauges) {
        gauge_plan_ = std::make_unique<GaugePlan>(c_, sim_->constants().support);
        sensor_averages_ = std::make_unique<SensorAverages>(*gauge_plan_);
        const CsvHeader h = csv_header(
            "sluice gauges of case " + c_.name + ", every " + std::to_string(c_.gauges.interval) +
                " s (cases/README.md: height = where the fluid fraction falls below 1/2 above "
                "the thickest stretch of water on the line, probe = "
                "Shepard interpolation, front = farthest fluid particle with a fluid neighbour "
                "within 2 dp, sensor = the wall's pressure on its face, corrected interpolation "
                "of the wall particles, averaged ones the mean over the steps since the previous "
                "row); empty = no fluid there",
            gauge_plan_->columns());
        output_->open_gauges(
            h.comments, h.names,
            [this](const GaugeResponse& r) { return sensor_averages_->row(r); },
            [this](const GaugeResponse& r) { sensor_averages_->add_step(r); });
        // Averaged sensors: their points sampled after every step between rows as well (the
        // sample is begun on the device and read by the row writer's thread, as a row's).
        // Begun with the step where it can be (Simulation::step_and_sample, whose host time is
        // then the step's), else after it.
        if (!gauge_plan_->step_request().wall_points.empty()) {
            const auto accumulate = [this](std::future<GaugeResponse> sample) {
                const auto t0 = Clock::now();
                output_->accumulate_gauges(std::move(sample));
                gauge_seconds_ += seconds_since(t0);
            };
            between = [this, accumulate] {
                const auto t0 = Clock::now();
                std::future<GaugeResponse> sample = sim_->begin_gauges(gauge_plan_->step_request());
                gauge_seconds_ += seconds_since(t0);
                accumulate(std::move(sample));
            };
            loop_.sample_with_step(&gauge_plan_->step_request(), accumulate);
        }
    }
    const std::uint64_t next_gauge =
        restart_
            ? static_cast<std::uint64_t>(std::floor(sim_->time() / interval * (1.0 + 1e-12))) + 1
            : 0;
    loop_.gauges(
        Cadence::multiples(interval, next_gauge),
        [this] {
            const auto t0 = Clock::now();
            // Several processes: every one takes part in the sample, the first writes the row.
            if (gauge_plan_)
                output_->submit_gauges(sim_->time(), sim_->begin_gauges(gauge_plan_->request()));
            if (force_plan_)
                output_->submit_forces(sim_->time(), sim_->begin_gauges(force_plan_->request()));
            if (body_plan_)
                output_->submit_bodies(sim_->time(), sim_->begin_gauges(body_plan_->request()));
            gauge_seconds_ += seconds_since(t0);
        },
        between);
}

Checkpoint Run::make_checkpoint(SimulationState state) const {
    Checkpoint k;
    k.case_name = c_.name;
    k.dp = c_.dp;
    k.integrator = to_string(c_.physics.integrator);
    k.state = std::move(state);
    k.next_output = loop_.next_output();
    k.output_times = output_times_;
    k.next_checkpoint_time = c_.run.checkpoint_interval ? loop_.next_checkpoint_time() : 0.0;
    if (comm_) {
        const SlabDecomposition d = *sim_->decomposition();
        k.process = static_cast<std::uint32_t>(comm_->rank());
        k.processes = static_cast<std::uint32_t>(comm_->size());
        k.total_particles = diagnostics_constants_.particles;
        k.slab_axis = d.axis;
        k.slab_faces = d.faces;
    }
    return k;
}

void Run::store_checkpoint(const Checkpoint& k, const char* why) {
    const auto t0 = Clock::now();
    output_->flush(); // every gauge row and snapshot the checkpoint lists is on disk before it is
    output_->publish_complete_pieces(); // ... and listed in the .pvd
    const std::filesystem::path path = write_checkpoint(output_dir_, k);
    ++summary_.checkpoints;
    last_checkpoint_step_ = k.state.steps;
    checkpoint_seconds_ += seconds_since(t0);
    std::ostringstream line;
    line << "checkpoint (" << why << ") at t = " << k.state.time << " s, step " << k.state.steps
         << ": " << path.string();
    progress_.log_line(line.str());
}

void Run::write_snapshot() {
    const auto t0 = Clock::now();
    if (comm_)
        output_->submit_piece(sim_->begin_snapshot());
    else
        output_->submit(sim_->begin_snapshot());
    output_times_.push_back(sim_->time());
    output_seconds_ += seconds_since(t0);
}

/// The exclusions of the step, counted (the first few named); whether the run was interrupted.
/// Several processes: every one counts them all, so that all agree on the run's end. They ask
/// each other (a host collective: on the GPUs a pause of the step) only after a step with
/// exclusions anywhere, where the backend knows that without asking (the CUDA backend's own
/// reductions), and every interrupt_check_steps steps for an interrupt, which they then agree
/// on (a Ctrl-C stops a run over several processes within that many steps).
bool Run::after_step() {
    constexpr std::uint64_t interrupt_check_steps = 50;
    std::vector<Exclusion> exclusions = sim_->take_exclusions();
    bool stop = interrupted;
    if (comm_) {
        const bool ask =
            sim_->exclusions_possible_anywhere() || sim_->steps() % interrupt_check_steps == 0;
        stop = ask && combine_step_flags(*comm_, stop, exclusions);
    }
    for (const std::string& line : losses_->add(exclusions))
        progress_.log_line(line);
    return stop;
}

void Run::report_unreported_losses() {
    for (const std::string& line : losses_->unreported_lines(sim_->time()))
        progress_.log_line(line);
}

void Run::print_loss_totals() {
    report_unreported_losses();
    for (const std::string& line : losses_->total_lines())
        out_ << "sluice: " << line << "\n";
}

void Run::finish_summary(const std::string& status, const std::string& failure) {
    output_->flush();
    summary_.status = status;
    summary_.failure = failure;
    summary_.final_counts = run_counts(*sim_, comm_);
    summary_.losses = losses_->summary();
    summary_.steps = sim_->steps();
    summary_.simulated_time = sim_->time();
    summary_.stages = sim_->stage_times();
    summary_.stages.emplace_back("output", output_seconds_);
    summary_.stages.emplace_back("gauges_host", gauge_seconds_);
    summary_.stages.emplace_back("checkpoints", checkpoint_seconds_);
    if (tuning_)
        summary_.stages.emplace_back("neighbour_tuning", tuning_->seconds);
    if (const BackendCounters k = sim_->counters(); k.kept_list_steps > 0 || k.list_walks > 0)
        summary_.kept_lists = KeptListsSummary{k.kept_list_steps, k.list_walks};
    summary_.snapshots = output_->snapshots();
    output_->publish_complete_pieces(); // every piece is on disk (flushed above): list them all
    const auto [bytes, writer_seconds] = output_->summed_totals();
    summary_.output = {to_string(c_.output.format.compressor),
                       c_.output.format.level,
                       fields_to_string(c_.output.format),
                       c_.output.boundary_only_first ? "first" : "every",
                       output_->writers(),
                       bytes,
                       writer_seconds};
    if (comm_)
        summary_.decomposition = decomposition_summary(c_, *sim_, *comm_);
    summary_.wall_time = seconds_since(wall_start_);
    summary_.particle_steps =
        static_cast<double>(summary_.initial.fluid + summary_.initial.boundary +
                            summary_.initial.excluded) *
        static_cast<double>(sim_->steps() - summary_.restart_step);
    if (root_)
        write_summary_json(output_dir_ / "summary.json", summary_);
}

/// Several processes: every one meets the failure at the same step (the check is collective)
/// and writes its piece of the failing state.
int Run::failed(const SimulationFailure& failure) {
    progress_.finish();
    print_loss_totals();
    if (root_)
        std::cerr << "sluice: " << failure.what() << "\n";
    const std::filesystem::path path = output_->write_failure(sim_->snapshot());
    if (root_)
        std::cerr << "sluice: failing state written to " << path.string()
                  << "; the last good output is kept in " << c_.run.output_dir << "\n";
    if (last_good_) {
        store_checkpoint(*last_good_, "last output before the failure");
        if (root_) {
            // Gauge rows (and pieces) written after it are dropped only when asked for.
            const Checkpoint& k = *last_good_;
            const bool newer = !find_newer_output(output_dir_, c_.name, k.output_times.size(),
                                                  k.state.time, k.state.steps)
                                    .empty();
            std::cerr << "sluice: continue from t = " << k.state.time << " s with --restart "
                      << output_dir_.string()
                      << (newer ? " --discard-newer (it drops what was written after it)" : "")
                      << "\n";
        }
    }
    finish_summary("failed", failure.what());
    return exit_simulation_failure;
}

int Run::stopped() {
    progress_.finish();
    print_loss_totals();
    if (root_)
        std::cerr << "sluice: interrupted at t = " << sim_->time() << " s; writing a checkpoint\n";
    // The state goes to the checkpoint only: a snapshot here would be a frame that an
    // uninterrupted run has not, numbered where the restart puts its next output time.
    store_checkpoint(make_checkpoint(sim_->save_state()), "interrupted");
    if (root_)
        std::cerr << "sluice: continue with --restart " << output_dir_.string() << "\n";
    finish_summary("interrupted", "interrupted by signal");
    return exit_interrupted;
}

int Run::execute() {
    start_summary();
    print_header();
    open_output();
    progress_.start_from(sim_->time(), sim_->steps());
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    if (!restart_)
        write_snapshot();
    loop_.sample_gauges_if_due();
    try {
        if (loop_.advance_to(c_.run.end_time, 1e-12 * c_.run.end_time) ==
            StepLoop::Outcome::stopped)
            return stopped();
    } catch (const SimulationFailure& failure) {
        return failed(failure);
    }
    progress_.finish();
    if (output_times_.empty() || output_times_.back() < sim_->time())
        write_snapshot();
    report_unreported_losses();
    // So that --restart continues from here to a later end time (unless the interval just did),
    // never from an older checkpoint that would drop this run's newer output.
    if (last_checkpoint_step_ != sim_->steps())
        store_checkpoint(make_checkpoint(sim_->save_state()), "end of run");
    // More fluid lost than allowed: the output is complete, but the run says so and fails.
    const bool lost = losses_->exceeded();
    finish_summary(lost ? "lost_particles" : "completed",
                   lost ? losses_->limit_message() : ""); // flushes the writer first
    out_ << "sluice: done, " << sim_->steps() << " steps to t = " << sim_->time() << " s in "
         << summary_.wall_time << " s wall; " << output_->snapshots() << " snapshots, "
         << summary_.final_counts.excluded << " particle(s) excluded\n";
    print_loss_totals();
    out_ << performance_lines(summary_) << decomposition_lines(summary_) << "sluice: open "
         << (output_dir_ / (c_.name + ".pvd")).string() << " in ParaView\n";
    if (!lost)
        return exit_ok;
    if (root_)
        std::cerr << "sluice: error: " << losses_->limit_message()
                  << "; the output is complete, but the run ends with exit code "
                  << exit_lost_particles << "\n";
    return exit_lost_particles;
}

} // namespace sluice
