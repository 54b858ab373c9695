#pragma once
/// \file step_loop.h
/// The one step loop of `run`, `bench` and `tune`: advances a Simulation to an end time or by a
/// number of steps and, after each step, fires the cadences that are on, in this order: the
/// step's own check (exclusions, an interrupt), gauges (or, at a step where no row is due, the
/// samples between rows, if any), snapshots, checkpoints, progress. A
/// cadence fires at the first step that reaches its next time (within a millionth of its
/// interval, so rounding never skips one) and is moved past the step's time before it fires.

#include "app/cli_progress.h"
#include "backends/simulation.h"

#include <cstdint>
#include <functional>
#include <future>
#include <limits>
#include <optional>

namespace sluice {

/// Times k·interval (by index k), or a running sum of the interval (checkpoints keep theirs
/// so in the checkpoint file).
class Cadence {
public:
    Cadence() = default; ///< off
    /// Fires at next_index·interval, then the multiples after.
    static Cadence multiples(double interval, std::uint64_t next_index);
    /// Fires at next_time, then next_time + interval, + interval, ….
    static Cadence running(double interval, double next_time);

    bool on() const { return interval_ > 0.0; }
    bool due(double t) const { return on() && t + 1e-6 * interval_ >= next_time(); }
    /// The time from which due() holds (+∞ when off).
    double due_from() const {
        return on() ? next_time() - 1e-6 * interval_ : std::numeric_limits<double>::infinity();
    }
    /// Moves the next time past t.
    void pass(double t);
    double next_time() const;
    std::uint64_t next_index() const { return index_; }

private:
    double interval_ = 0.0;
    bool by_index_ = true;
    std::uint64_t index_ = 0;
    double time_ = 0.0;
};

class StepLoop {
public:
    /// After each step, before the cadences; true: stop after this step's cadences.
    using Check = std::function<bool()>;
    using Fire = std::function<void()>;

    /// sim must outlive the loop.
    explicit StepLoop(Simulation& sim) : sim_(sim) {}

    void on_step(Check check) { check_ = std::move(check); }
    /// `between`, if given, fires after every step at which the gauges are not due (averaged
    /// sensors sample every step: case/gauge_plan.h).
    void gauges(Cadence c, Fire f, Fire between = {}) {
        gauges_ = c, fire_gauges_ = std::move(f), fire_between_ = std::move(between);
    }
    using TakeSample = std::function<void(std::future<GaugeResponse>)>;
    /// Instead of `between`'s own sample, the sample of `request` (which must outlive the loop)
    /// begun with the step (Simulation::step_and_sample) where the step ends before the gauges
    /// are due, and handed to `take`; `between` fires where it could not be.
    void sample_with_step(const GaugeRequest* request, TakeSample take) {
        step_request_ = request, take_step_sample_ = std::move(take);
    }
    void snapshots(Cadence c, Fire f) { snapshots_ = c, fire_snapshot_ = std::move(f); }
    void checkpoints(Cadence c, Fire f) { checkpoints_ = c, fire_checkpoint_ = std::move(f); }
    void progress(ProgressReporter& p) { progress_ = &p; }

    /// Fires the gauges if due now (a run's first sample, before any step).
    void sample_gauges_if_due();

    enum class Outcome { reached, stopped };
    /// Steps while time < end_time − slack (s). \throws SimulationFailure (from a step).
    Outcome advance_to(double end_time, double slack = 0.0);
    /// Steps `steps` times (fewer when the check stops it).
    Outcome advance_steps(std::uint64_t steps);

    std::uint64_t next_output() const { return snapshots_.next_index(); }
    double next_checkpoint_time() const { return checkpoints_.next_time(); }

private:
    bool step(); ///< one step and what follows it; true: stop

    Simulation& sim_;
    Check check_;
    Cadence gauges_, snapshots_, checkpoints_;
    Fire fire_gauges_, fire_between_, fire_snapshot_, fire_checkpoint_;
    const GaugeRequest* step_request_ = nullptr;
    TakeSample take_step_sample_;
    ProgressReporter* progress_ = nullptr;
};

} // namespace sluice
