#pragma once
/// \file bench_report.h
/// What `sluice bench` measured per module and how it is reported (app-internal, bench.cpp's):
/// the comparison of final states, the markdown table with its notes, and the CSV.

#include "app/bench.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace sluice {

/// One module's timing and final state.
struct BenchModuleResult {
    NeighbourModule module;
    double ms_per_step = 0.0;
    double stage_ms[4] = {}; ///< construction, reorder, interaction, integration
    double rest_ms = 0.0;
    double output_wait_ms = 0.0;     ///< per step: the stepping thread handing snapshots over
    std::size_t snapshots = 0;       ///< written during the timed steps
    double gauged_ms_per_step = 0.0; ///< --gauges: steps with gauges after every one
    /// CUDA: the share of the timed steps whose corrector read the predictor pass's neighbour
    /// lists (CorrectorNeighbours::lists).
    double corrector_list_share = 0.0;
    /// CUDA, kept lists: the share of the timed steps that ran on an earlier step's build.
    double kept_list_share = 0.0;
    double interleaved_ms_per_step = 0.0; ///< --gauges: the plain steps between those
    double mparticle_steps = 0.0;
    double bytes_per_particle = 0.0;
    std::uint64_t final_particles = 0; ///< binned at the end (fluid + boundary)
    double max_dx_over_dp = 0.0;
    double max_drho_over_rho0 = 0.0;
    std::size_t particles_in_one_state = 0; ///< excluded in one of the two states only
    bool agrees = true;
    std::string disagreement;
    Snapshot final_state;
};

/// What the report says about the benchmark as a whole (the case after its overrides).
struct BenchSetting {
    const Case& c;
    const BenchOptions& options;
    std::uint64_t particles = 0; ///< fluid + boundary at the start
    std::uint64_t fluid = 0, boundary = 0;
    double h = 0.0; ///< m
    bool gpu = false;
    bool developed = false;                         ///< from --end-time or --from-state
    double start_time = 0.0;                        ///< s: the state every module starts from
    std::size_t gauge_points = 0, gauge_fronts = 0; ///< --gauges: what one sample asks for
};

/// Numbers as the report prints them: `digits` after the point; 3 significant digits.
std::string bench_fixed(double v, int digits);
std::string bench_general(double v);

/// Compares r.final_state with the reference module's final state, particle by particle (both
/// in ascending id), and sets r's differences and agreement. `developed`: particles in only one
/// state are counted, not a disagreement (a splashing particle at the domain's edge may leave
/// a step earlier or later after rounding-level differences).
void compare_final_states(BenchModuleResult& r, const Snapshot& reference, double dp, double rho0,
                          double tolerance, bool developed);

/// The markdown table and its notes (what the columns mean, the agreement, the fastest).
void print_bench_table(std::ostream& out, const BenchSetting& s,
                       const std::vector<BenchModuleResult>& results, bool all_agree);

/// One row per module. \throws std::runtime_error when `path` cannot be written.
void write_bench_csv(const std::string& path, const BenchSetting& s,
                     const std::vector<BenchModuleResult>& results);

} // namespace sluice
