#pragma once
/// \file tune.h
/// Automatic choice of the neighbour module (issue 8; thesis ch. 7–8): every candidate module
/// runs a few steps of the actual case from the same state on the current backend, and the one
/// with the smallest median step time wins. `sluice tune CASE.xml` prints the ranking and the
/// spelling to put in the case; `sluice run` does it first when the case says
/// `<neighbours auto="true"/>` or the command line `--neighbours auto`, within a time limit, and
/// records the choice in summary.json.

#include "backends/simulation.h"
#include "case/case_model.h"
#include "io/summary.h"
#include "neighbours/module.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>

namespace sluice {

/// What the tuning measured: the modules themselves (not their names), fastest first.
struct TuneReport {
    struct Entry {
        NeighbourModule module;
        double ms_per_step = 0.0; ///< median over the timed steps
    };
    std::vector<Entry> ranking;             ///< fastest first
    std::vector<NeighbourModule> not_timed; ///< candidates the time limit left out
    int steps = 0;                          ///< timed steps per module
    double seconds = 0.0;                   ///< wall time of the whole tuning
    std::uint64_t particles = 0;            ///< in the state the modules were timed on

    /// The same with the modules by name (NeighbourModule::name), for summary.json.
    TuningSummary summary() const;
};

struct TuneOptions {
    std::vector<NeighbourModule> modules; ///< candidates, timed in this order
    int warmup_steps = 2;                 ///< untimed steps per module first
    int steps = 10;                       ///< timed steps per module (the median counts)
    /// s of wall time for the whole tuning; the modules not reached by then are not timed.
    std::optional<double> time_limit;
    Backend backend = Backend::cpu;
};

/// Every construction × traversal × bin width in {1/3, 0.5, 1}, the kinds that win most often
/// first (so that a time limit cuts the unlikely ones): counting-sort before radix-sort, strips
/// before chords, hybrid, moore and modular.
std::vector<NeighbourModule> tune_candidates();

/// Times the candidates on case c from `state` (a restart's) or else from its initial
/// particles. \returns the ranking, fastest first.
/// \throws what making or stepping a simulation throws (BackendUnavailable, SimulationFailure).
TuneReport tune_neighbours(const Case& c, const TuneOptions& options,
                           const std::optional<SimulationState>& state = std::nullopt);

/// The ranking as a markdown table, then the choice and how to put it in the case.
void print_tune_report(std::ostream& out, const TuneReport& report);

} // namespace sluice
