#pragma once
/// \file summary.h
/// summary.json: what a run did, machine-readable (nlohmann/json).

#include "io/snapshot.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

/// How the run's snapshots were written, and what that cost beside the simulation.
struct OutputSummary {
    std::string compressor = "lz4";
    int level = 0;                      ///< 0 = the compressor's default
    std::string fields;                 ///< "velocity density pressure"
    std::string boundary = "every";     ///< "every" or "first"
    unsigned writers = 1;               ///< writer threads
    std::uintmax_t bytes = 0;           ///< .vtp bytes written
    double writer_thread_seconds = 0.0; ///< s, summed over writer threads
};

/// What choosing the neighbour module automatically measured, as summary.json records it: the
/// modules by name (app/tune.h's TuneReport::summary()).
struct TuningSummary {
    struct Entry {
        std::string module;       ///< e.g. "counting-sort/strips/0.5"
        double ms_per_step = 0.0; ///< median over the timed steps
    };
    std::vector<Entry> ranking;         ///< fastest first
    std::vector<std::string> not_timed; ///< candidates the time limit left out
    int steps = 0;                      ///< timed steps per module
    double seconds = 0.0;               ///< wall time of the whole tuning
    std::uint64_t particles = 0;        ///< in the state the modules were timed on
};

/// How the kept neighbour lists served a run (CUDA backend, one process; CudaOptions::list_skin):
/// the steps that ran on an earlier step's build (`kept_steps`), and the steps in which an
/// interaction pass found the lists' skin used up and walked the structure instead
/// (`walked_steps`; exact either way, a walk costing about twice a list's read).
struct KeptListsSummary {
    std::uint64_t kept_steps = 0;
    std::uint64_t walked_steps = 0;
};

/// One process of a run spread over several (DESIGN.md, Scale-out).
struct ProcessSummary {
    ParticleCounts final_counts; ///< the particles it owns at the end
    double slab_lower = 0.0;     ///< m, its slab along the axis at the end (domain ends: ±inf)
    double slab_upper = 0.0;
    StageTimes stages; ///< s per stage, its own
};

/// The decomposition of a run over several processes.
struct DecompositionSummary {
    std::string axis;                      ///< "x", "y" or "z"
    double halo_width = 0.0;               ///< m
    std::vector<ProcessSummary> processes; ///< by rank
    std::vector<double> faces;             ///< m, at the end: domain start, interior, end
    /// Load balancing: the interior faces (m) after each move, with the step it happened at.
    std::vector<std::pair<std::uint64_t, std::vector<double>>> balance_history;
};

/// The particles that left the domain since t = 0 (a restarted run's included) and the share
/// of the fluid a run may lose (app/particle_losses.h).
struct LossSummary {
    std::uint64_t fluid = 0;          ///< fluid particles excluded
    std::uint64_t fluid_at_start = 0; ///< fluid particles at t = 0
    double fluid_percent = 0.0;       ///< 100 · fluid / fluid_at_start
    std::uint64_t boundary = 0;       ///< boundary particles excluded (with an object that left)
    double max_fluid_percent = 1.0;   ///< --max-loss, <run maxLoss>
    bool exceeded = false;            ///< fluid_percent > max_fluid_percent
};

/// Everything summary.json records about one run.
struct RunSummary {
    std::string version;                   ///< sluice's (SLUICE_VERSION)
    std::vector<std::string> command_line; ///< as given, every override included
    std::string case_name;
    std::string case_file;
    std::string backend;          ///< "cpu" or "cuda"
    std::string neighbour_module; ///< e.g. "counting-sort/strips/0.5"
    /// "completed", "lost_particles" (completed, but lost more fluid than allowed), "failed"
    /// or "interrupted"
    std::string status;
    std::string failure;         ///< why, when not completed; else empty
    ParticleCounts initial;      ///< at t = 0
    ParticleCounts final_counts; ///< at the end (excluded > 0 if particles left the domain)
    LossSummary losses;          ///< the particles lost since t = 0
    std::uint64_t steps = 0;
    double simulated_time = 0.0;   ///< s
    double end_time = 0.0;         ///< s, requested
    double wall_time = 0.0;        ///< s, whole run
    StageTimes stages;             ///< s per stage
    std::uint64_t snapshots = 0;   ///< .vtp files written (not counting a failure snapshot)
    double smoothing_length = 0.0; ///< h (m)
    double speed_of_sound = 0.0;   ///< c0 (m/s)
    double dp = 0.0;               ///< m
    std::uint64_t checkpoints = 0; ///< checkpoint files written
    std::string restart_file;      ///< the checkpoint a restarted run continued from, else ""
    double restart_time = 0.0;     ///< s, its time
    std::uint64_t restart_step = 0;
    std::uint32_t restart_processes = 1; ///< how many processes wrote it
    OutputSummary output;
    std::optional<TuningSummary> tuning; ///< the module was chosen automatically
    /// Kept neighbour lists' use; none where no step ran on them (the CPU backend, several
    /// processes, --list-skin 0).
    std::optional<KeptListsSummary> kept_lists;
    /// Particles × steps taken by this run (the particles of the initial state, excluded ones
    /// included: they cost a step too).
    double particle_steps = 0.0;
    /// Several processes: how the domain was cut and what each process did (nothing with one).
    std::optional<DecompositionSummary> decomposition;
};

/// Names of the stages that make up the time step itself (the rest are gauges, output,
/// checkpoints): construction, reorder, interaction, integration, checks.
bool is_step_stage(const std::string& name);

/// Two lines for the end of a run: particle-steps per second over the wall time and over the
/// step's stages alone, and each stage's share of the wall time ("output" is shown as
/// "output wait": the stepping thread's time spent handing snapshots over).
std::string performance_lines(const RunSummary& summary);

/// A run over several processes: a line per process (its particles, slab, step time and the
/// share of it spent on the halo, migration and waiting for the others); "" otherwise.
std::string decomposition_lines(const RunSummary& summary);

/// Writes `summary` as JSON to `path` (atomic_file.h). Keys, in this order: case, case_file,
/// backend, neighbour_module, status, failure, particles {initial, final: {fluid, boundary,
/// excluded}}, lost_particles {fluid, fluid_at_start, fluid_percent, boundary,
/// max_fluid_percent, exceeded}, steps, simulated_time_s, end_time_s, wall_time_s, stages_s {name:
/// s, …, in order}, snapshots, h_m, c0_m_per_s, dp_m, checkpoints, restart (null, or {file, time_s,
/// step, processes} for a restarted run), output {compressor, level, fields, boundary, writers,
/// bytes, writer_thread_s}, performance {particle_steps, million_particle_steps_per_s (over the
/// wall time), step_million_particle_steps_per_s (over the step's stages), wall_share {stage:
/// fraction of the wall time, …, other}}, neighbour_tuning (null, or {chosen, seconds, steps,
/// ranking [{module, ms_per_step}], not_timed [...]} when the module was chosen automatically),
/// decomposition (null, or for a run over several processes {processes, axis, halo_width_m,
/// faces_m, balance_history [{step, faces_m}], per_process [{rank, particles {fluid, boundary,
/// excluded}, slab_m [lower, upper], stages_s {...}}]}), version, command_line [arguments].
/// Non-finite numbers are written as null.
/// \throws std::runtime_error naming `path` when writing or renaming fails.
void write_summary_json(const std::filesystem::path& path, const RunSummary& summary);

} // namespace sluice
