#pragma once
/// \file run.h
/// One `sluice run`, from its set-up simulation to summary.json: the snapshot series and
/// checkpoints on the step loop's cadences (step_loop.h), what is written as the run goes
/// (io/run_output.h), and the ways a run ends (completed, failed, interrupted). run_command
/// makes the case, the restart, the tuning and the simulation, then executes a Run.

#include "app/cli_progress.h"
#include "app/command_line.h"
#include "app/particle_losses.h"
#include "app/restart.h"
#include "app/step_loop.h"
#include "app/tune.h"
#include "case/body_plan.h"
#include "case/force_plan.h"
#include "case/gauge_plan.h"
#include "io/checkpoint.h"
#include "io/run_output.h"
#include "io/summary.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

class Communicator;

/// One run, from its set-up simulation to summary.json: the output, the cadences' actions and
/// the ways a run ends (completed, lost particles, failed, interrupted).
class Run {
public:
    using Clock = std::chrono::steady_clock;

    /// c, o and comm (null: one process; else collective) must outlive the run; sim is set up
    /// (at the restart's state when there is one); t0: when the command started (wall time).
    Run(const Case& c, const Options& o, const Communicator* comm, std::optional<Restart> restart,
        std::optional<TuneReport> tuning, std::unique_ptr<Simulation> sim, Clock::time_point t0)
        : c_(c), o_(o), comm_(comm), root_(!comm || comm->is_root()), restart_(std::move(restart)),
          tuning_(std::move(tuning)), sim_(std::move(sim)), wall_start_(t0),
          output_dir_(c.run.output_dir), out_(root_ ? std::cout : null_out_),
          progress_(root_ ? ProgressReporter(c.run.end_time)
                          : ProgressReporter(c.run.end_time, null_out_, false)),
          loop_(*sim_) {}

    /// Runs to the case's end time, or until a failure or an interrupt (SIGINT, SIGTERM).
    /// \returns exit_ok, exit_lost_particles (the end reached, but more fluid lost than
    ///          <run maxLoss> allows), exit_simulation_failure or exit_interrupted.
    int execute();

private:
    void start_summary();
    void print_header();
    void open_output();
    void open_gauges();
    Checkpoint make_checkpoint(SimulationState state) const;
    void store_checkpoint(const Checkpoint& k, const char* why);
    void write_snapshot();
    bool after_step();
    void report_unreported_losses(); ///< the exclusions counted since the last output time
    void print_loss_totals();
    void finish_summary(const std::string& status, const std::string& failure);
    int failed(const SimulationFailure& failure);
    int stopped();
    /// Each boundary object's particle ids (boundary_positions), generated once for the moving
    /// objects' snapshots and forces.csv.
    const std::vector<ObjectIds>& object_ids();

    const Case& c_;
    const Options& o_;
    const Communicator* comm_;
    const bool root_; ///< writes the run's shared files and speaks
    std::optional<Restart> restart_;
    std::optional<TuneReport> tuning_;
    std::unique_ptr<Simulation> sim_;
    Clock::time_point wall_start_;
    std::filesystem::path output_dir_;
    std::ostream null_out_{nullptr}; ///< the other processes of a run over several say nothing
    std::ostream& out_;
    RunSummary summary_;
    DiagnosticsConstants diagnostics_constants_;
    std::unique_ptr<GaugePlan> gauge_plan_;
    std::unique_ptr<SensorAverages> sensor_averages_;  ///< used by gauges.csv's writer thread
    std::unique_ptr<ForcePlan> force_plan_;            ///< named objects: forces.csv
    std::unique_ptr<BodyPlan> body_plan_;              ///< floating objects: bodies.csv
    std::optional<std::vector<ObjectIds>> object_ids_; ///< object_ids()
    std::unique_ptr<RunOutput> output_;
    std::vector<double> output_times_; ///< of every snapshot submitted, in order
    ProgressReporter progress_;
    StepLoop loop_;
    // With checkpoints on, the state at the last output time is kept in memory so that a run
    // that fails can still leave a checkpoint to continue from (e.g. with a smaller cfl).
    std::optional<Checkpoint> last_good_;
    std::optional<std::uint64_t> last_checkpoint_step_;
    std::optional<ParticleLosses> losses_; ///< from start_summary on
    double output_seconds_ = 0.0, checkpoint_seconds_ = 0.0, gauge_seconds_ = 0.0;
};

} // namespace sluice
