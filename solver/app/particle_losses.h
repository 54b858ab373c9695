#pragma once
/// \file particle_losses.h
/// The particles a run loses through the domain's faces, made visible: the first few named one
/// by one, then a count per output interval, the totals at the end, and whether the fluid lost
/// is more than the share the run allows (`--max-loss`, `<run maxLoss>`; a run over it ends
/// with exit_lost_particles and summary.json's status "lost_particles").

#include "backends/simulation.h"
#include "io/summary.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

/// The particles a saved state had already lost, by type: {fluid, boundary} (this process's,
/// as state.excluded lists them; sum over the processes for the run's).
std::array<std::uint64_t, 2> excluded_by_type(const SimulationState& state);

class ParticleLosses {
public:
    /// How many of each type are named by a line of their own before they are only counted.
    static constexpr std::uint64_t named_per_type = 5;

    /// fluid_at_start: fluid particles at t = 0 of the simulation (a restarted run: those in
    /// the domain now plus those lost before); lost_fluid / lost_boundary: lost before this
    /// run (a restart's checkpoint); max_fluid_percent: the share of the fluid a run may lose,
    /// in [0, 100] (checked by the reader and the command line).
    ParticleLosses(std::uint64_t fluid_at_start, std::uint64_t lost_fluid,
                   std::uint64_t lost_boundary, double max_fluid_percent);

    /// Counts a step's exclusions (each reported once, by the backend); returns a line for each
    /// of the first named_per_type fluid and boundary particles this run loses, with where and
    /// when it left ("t = 0.25 s (step 310): fluid particle 812 left the domain at (1.2, 0,
    /// 0.31) m and is excluded (3 in all)"); the rest are only counted.
    std::vector<std::string> add(const std::vector<Exclusion>& exclusions);

    /// The exclusions counted since the last call but not named, as a line per type ("t = 0.5
    /// s: 37 more fluid particles excluded (total 80, 1.7 % of the fluid)"); none when there
    /// are none. Called at each output time and at the end of a run.
    std::vector<std::string> unreported_lines(double time);

    /// The end of a run: the fluid lost, and what share of the fluid ("417 of 4602 fluid
    /// particles (9.1 %) left the domain and were excluded"), and the boundary particles lost
    /// if any; none when nothing was lost.
    std::vector<std::string> total_lines() const;

    /// Whether the fluid lost is more than max_fluid_percent of the fluid.
    bool exceeded() const;
    /// Why a run that exceeded() did not complete: the counts, the share and the limit.
    std::string limit_message() const;

    /// The figures for summary.json.
    LossSummary summary() const;

    /// Percent with one decimal, or two significant digits below 0.1 % ("9.1", "0.022").
    static std::string format_percent(double percent);

private:
    double fluid_percent() const;

    std::uint64_t fluid_at_start_;
    double max_fluid_percent_;
    std::uint64_t lost_[2] = {0, 0};       ///< by type (fluid, boundary), since t = 0
    std::uint64_t named_[2] = {0, 0};      ///< by type, lines of their own in this run
    std::uint64_t unreported_[2] = {0, 0}; ///< by type, counted since the last line
};

} // namespace sluice
