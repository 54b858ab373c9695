#pragma once
/// \file bench.h
/// `sluice bench CASE.xml [--steps N] [--modules all|LIST] [--dp DP] [--end-time T | --from-state
/// CHK] [--output-interval T]`: the same case from the same state with each neighbour module,
/// timed inside the solver. The state is the initial one, or a developed flow: the case run to
/// --end-time first (untimed, with the case's own module), or a checkpoint (--from-state). With
/// --output-interval the timed steps write snapshots as `sluice run` does (the case's <output>
/// format, the same writer pool), so the time includes what output costs the step.
///
/// Per module: ms per step split into construction, reorder, interaction, integration and the
/// rest (CUDA events on the GPU; the backend's stage clocks on the CPU); million particle-steps
/// per second (all particles, walls included); device memory per particle; the neighbour
/// stage's share of the step. Then a check that every module ends with the same particle count
/// and the same final state within the tolerance (max position difference relative to dp).
/// Markdown to the stream, CSV to a file.

#include "backends/backend_options.h"
#include "backends/simulation.h"
#include "case/case_model.h"
#include "neighbours/module.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

struct BenchOptions {
    std::string case_path;            ///< the case file
    int steps = 100;                  ///< timed steps per module (≥ 1)
    int warmup_steps = 5;             ///< steps before timing (≥ 0), same for every module
    std::string modules = "all";      ///< "all" or a comma-separated list, e.g.
                                      ///< "counting-sort/strips/0.5,radix-sort/moore/1"
    std::optional<double> dp;         ///< apply_dp_override
    PhysicsOverrides physics;         ///< --boundary, --shifting, --formulation, --diffusion
    std::optional<double> coef_sound; ///< CaseOverrides::coef_sound
    /// Over several processes: overrides the case's <run balanceInterval> (steps; 0: none).
    std::optional<int> balance_interval;
    std::string csv_path; ///< default: bench_<case name>.csv in the current directory
    Backend backend = Backend::cuda;
    CudaOptions cuda; ///< CUDA backend settings (interaction scheme)
    /// Modules agree when their final positions differ by at most tolerance·dp (and their
    /// particle counts are equal).
    double tolerance = 0.01;
    /// s: develop the flow to this time first (untimed), then time every module from there.
    std::optional<double> end_time;
    /// A checkpoint file, or a run folder (its newest checkpoint): time from that state.
    std::optional<std::string> from_state;
    /// s: write snapshots every this much simulated time during the timed steps.
    std::optional<double> output_interval;
    /// Where those snapshots go: kept there when given, else a temporary folder, removed after.
    std::optional<std::string> output_dir;
    /// Snapshot format overrides (as `sluice run`'s), applied to the case's <output>.
    std::optional<OutputSettings> output;
    /// Time every module a second time with the case's <gauges> sampled after every step (as
    /// `sluice run` samples them: on the backend, rows written by a thread): the gauges' cost.
    bool gauges = false;
};

/// "all": every construction × query × bin width in {1, 0.5, 1/3} (30 modules); otherwise a
/// comma-separated list of C/Q/W.
/// \throws std::invalid_argument (listing the valid names) for an unknown or empty entry.
std::vector<NeighbourModule> parse_module_list(std::string_view text);

/// Runs the benchmark, writing the report to `out` and the CSV to options.csv_path.
/// \returns 0 when every module ran and all agree, 1 when they disagree (the table says which).
/// \throws CaseError (case file), ResourceError (the case does not fit: preflight.h),
///         std::invalid_argument (module list, dp, steps),
///         BackendUnavailable, SimulationFailure (a module's run went unstable),
///         std::runtime_error (the CSV cannot be written).
int run_bench(const BenchOptions& options, std::ostream& out);

class Communicator;
struct Checkpoint;

/// The case as both benchmarks time it: --dp and --coef-sound through the reader (a tank need not
/// be a whole number of spacings inside), then --boundary, --shifting, --formulation, --diffusion.
/// \throws CaseError (case file).
Case read_bench_case(const BenchOptions& options);

/// --from-state: a checkpoint file, or a run folder's newest checkpoint of case c (written by
/// any number of processes: its pieces merged), checked to be a state of c (dimension, dp and
/// integrator); `warnings` gets a line for each newer checkpoint skipped.
/// \throws std::invalid_argument when it is not a state of c, CheckpointError when none reads.
Checkpoint read_bench_state(const Case& c, const std::string& from,
                            std::vector<std::string>& warnings);

/// The benchmark split over the processes of `comm` (`mpirun -np N sluice bench`, on CPUs or a
/// GPU each, from t = 0 or --from-state, cut afresh by estimated work as a restart under another
/// process count is; no output or gauges): per module the wall ms per step, million
/// particle-steps per second, the final positions against the first module's, and per process
/// its particles and ms per step in each stage (halo, migration and waiting included).
/// Collective; the first process writes the report to `out` and the CSV (default
/// bench_<case>_processes.csv).
/// \returns as run_bench. \throws std::invalid_argument for options it does not take.
int run_bench_processes(const BenchOptions& options, const Communicator& comm, std::ostream& out);

} // namespace sluice
