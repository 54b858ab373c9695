#pragma once
/// \file stage_times.h
/// The stages a step's time is accounted to (summary.json's stage list), the same in both
/// backends.

#include "io/snapshot.h"

namespace sluice {

/// The stages both backends time in a step, in the order summary.json lists them; a backend
/// keeps one accumulated time per stage in an array indexed by this enum.
/// A run over several processes adds `halo` (sending and receiving halo copies, and refreshing
/// them), `migration` (particles that crossed a face) and `waiting` (the reductions over every
/// process: dt, checks, load balancing; mostly the wait for the slowest); they are listed only
/// in such a run. `boundary` (mDBC's BoundaryCondition pass) and `motion` (moving walls' Motion
/// pass; damping zones count in `integration`) are listed only when they took time.
enum StepStage {
    construction,
    reorder,
    interaction,
    integration,
    checks,
    halo,
    migration,
    waiting,
    boundary,
    motion,
    step_stage_count
};

/// The named stage times of a backend: its step stages, then the gauges' time.
inline StageTimes named_stage_times(const double (&seconds)[step_stage_count],
                                    double gauge_seconds) {
    StageTimes out = {{"construction", seconds[construction]},
                      {"reorder", seconds[reorder]},
                      {"interaction", seconds[interaction]},
                      {"integration", seconds[integration]},
                      {"checks", seconds[checks]},
                      {"halo", seconds[halo]},
                      {"migration", seconds[migration]},
                      {"waiting", seconds[waiting]},
                      {"gauges", gauge_seconds}};
    if (seconds[halo] == 0.0 && seconds[migration] == 0.0 && seconds[waiting] == 0.0)
        out.erase(out.begin() + halo, out.begin() + waiting + 1);
    if (seconds[motion] > 0.0) // after integration
        out.insert(out.begin() + integration + 1, {"motion", seconds[motion]});
    if (seconds[boundary] > 0.0)
        out.insert(out.begin() + interaction, {"boundary", seconds[boundary]});
    return out;
}

/// A process's own work in the step's stages so far (s): construction, reorder, boundary,
/// interaction, integration, motion and checks (not the exchanges, nor the waiting for other
/// processes), what load balancing compares (work_since_balance).
inline double step_work_seconds(const double (&seconds)[step_stage_count]) {
    return seconds[construction] + seconds[reorder] + seconds[boundary] + seconds[interaction] +
           seconds[integration] + seconds[motion] + seconds[checks];
}

} // namespace sluice
