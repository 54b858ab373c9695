#pragma once
/// \file command_line.h
/// The `sluice` command line: commands, options, exit codes, and the case as the options change
/// it. Each command lives in its own file (run_command.cpp, check_command.cpp,
/// bench_command.cpp); main.cpp dispatches and maps exceptions to exit codes.

#include "backends/backend_options.h"
#include "backends/simulation.h"
#include "case/case_model.h"
#include "neighbours/module.h"

#include <optional>

namespace CLI {
class App;
}
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

/// Exit codes: 0 done, 1 internal or I/O error (e.g. output folder not writable), 2 bad input
/// (command line or case file), 3 simulation failure (instability), 4 particles lost (the run
/// reached its end time with its output complete, but more of its fluid left the domain than
/// --max-loss / <run maxLoss> allows), 130 interrupted (Ctrl-C).
constexpr int exit_ok = 0;
constexpr int exit_internal = 1;
constexpr int exit_bad_input = 2;
constexpr int exit_simulation_failure = 3;
constexpr int exit_lost_particles = 4;
constexpr int exit_interrupted = 130;

/// Thrown by parse_options for --help and --version: `text` goes to stdout and the exit code is 0.
struct HelpShown {
    std::string text;
};

/// Thrown for command-line mistakes; main prints it with a hint to the help of `command` (the
/// program's when empty) and exits 2.
struct UsageError : std::runtime_error {
    explicit UsageError(const std::string& message, std::string command_name = "")
        : std::runtime_error(message), command(std::move(command_name)) {}
    std::string command; ///< "run", "check", "bench", "tune" or empty
};

/// What `sluice surface` and `sluice measure` are given: the run folder they read back and which
/// of its snapshots (app/run_folder.h).
struct SeriesOptions {
    std::string folder;                   ///< RUN_DIR
    std::optional<std::string> case_file; ///< --case: the case file, when not where it was
    std::optional<double> time;           ///< --time T: the snapshot nearest T only
    int every = 1;                        ///< --every N: every N-th snapshot
    std::optional<std::string> out;       ///< --out DIR (default: RUN_DIR)
    // surface
    std::optional<double> spacing; ///< --spacing (m; default dp/2)
    double max_grid_points = 1e9;  ///< --max-grid-points
    // measure: the measurements as given (parsed against the run's case, app/measurements.h)
    std::vector<std::string> points, heights, lines, planes;
    std::optional<std::string> file; ///< --file: one measurement per line
    std::string name = "measure";    ///< --name: NAME.csv, NAME_PLANE.pvd
    std::string fields = "pressure velocity density fraction";
};

/// What the command line asked for.
struct Options {
    std::vector<std::string> arguments; ///< the command line as given (argv), for summary.json
    std::string command;
    std::string case_path;
    std::optional<std::string> out;
    std::optional<double> end_time;
    std::optional<NeighbourModule> neighbours;
    bool neighbours_auto = false; ///< --neighbours auto
    std::optional<double> dp;
    std::optional<double> coef_sound; ///< run, check, bench: c0 = coef·sqrt(g·H_max)
    PhysicsOverrides physics;         ///< run, check, bench, tune: --boundary, --shifting, …
    std::optional<double> checkpoint_interval; ///< run: s of simulated time
    std::optional<std::string> restart;        ///< run: the output folder to continue
    /// run --restart: drop output newer than the checkpoint (refused without it)
    bool discard_newer = false;
    std::optional<double> max_loss;        ///< run: %, overrides <run maxLoss>
    std::optional<std::string> from_state; ///< bench: a checkpoint or run folder
    /// check --write DIR: the generated particles as a snapshot there, without running
    std::optional<std::string> write_generated;
    std::optional<double> output_interval; ///< s, overrides <run outputInterval>
    // Snapshot format (run, bench): override <output>.
    std::optional<Compressor> compressor;
    std::optional<int> compression_level;
    std::optional<std::string> fields;
    std::optional<bool> boundary_only_first;
    std::optional<unsigned> writers;
    std::optional<int> balance_interval; ///< run, bench: overrides <run balanceInterval>
    /// run, bench: start this many processes through mpirun (spawn_processes); `gpus`: given as
    /// --gpus (one GPU each, the CUDA backend) rather than --processes.
    std::optional<int> processes;
    bool gpus = false;
    Backend backend = cuda_device_available() ? Backend::cuda : Backend::cpu;
    // bench
    int steps = 100;
    int warmup_steps = 5;
    std::string modules = "all";
    std::string csv;
    CudaInteraction interaction = CudaInteraction::adaptive;
    /// bench --corrector list (the default) | reuse | rebuild (CUDA backend)
    CorrectorNeighbours corrector = CorrectorNeighbours::lists;
    bool compute_dry_walls = false; ///< bench --dry-walls compute (CUDA backend)
    /// bench --list-skin F (fraction of R; 0: lists for the step's corrector only) and
    /// --list-age N (CUDA backend; CudaOptions::list_skin, list_max_age)
    float list_skin = default_list_skin;
    std::uint32_t list_max_age = default_list_max_age;
    bool bench_gauges = false;
    SeriesOptions series; ///< surface, measure
};

/// Parses argv with CLI11: one subcommand (run, check, bench) and its options.
/// \throws HelpShown for --help / -h (of the program or of a command) and --version.
/// \throws UsageError for an unknown command or option, a missing or malformed value; the
///         message names the option and what it expects.
Options parse_options(int argc, char** argv);

/// Reads the case and applies the command-line overrides (--out, --end-time, --neighbours, --dp,
/// --output-interval, --max-loss and the snapshot format's). `tank_lattice` false: a tank need
/// not be a whole number of spacings inside (CaseOverrides::tank_lattice; `sluice bench`, whose
/// refined series take any --dp).
/// \throws CaseError (case file), UsageError (an override the case cannot take).
Case load_case(const Options& o, bool tank_lattice = true);

int run_command(const Options& o);     ///< run_command.cpp
int check_command(const Options& o);   ///< check_command.cpp
int bench_command(const Options& o);   ///< bench_command.cpp
int tune_command(const Options& o);    ///< tune_command.cpp
int surface_command(const Options& o); ///< surface_command.cpp
int measure_command(const Options& o); ///< measure_command.cpp

/// Adds the `surface` and `measure` commands and their options (series_command_line.cpp);
/// --backend is bound to `backend_name` (the one every command's choice is read from).
void add_series_commands(CLI::App& app, Options& o, std::string& backend_name);

/// `--processes N` / `--gpus N` (N ≥ 2): replaces this process by `mpirun -np N --bind-to none`
/// running this program with the same arguments less that option (and with --gpus,
/// `--backend cuda`), so that its exit code is the run's; OMP_NUM_THREADS, unless set, becomes
/// each process's share of the host's cores. Checks first that this process is not
/// itself under mpirun and, for --gpus, that the host has N GPUs. Returns only by throwing.
/// \throws UsageError (under mpirun; --gpus with --backend cpu), BackendUnavailable (too few
///         GPUs; mpirun not found).
[[noreturn]] void spawn_processes(const Options& o, int argc, char** argv, bool under_mpirun);

} // namespace sluice
