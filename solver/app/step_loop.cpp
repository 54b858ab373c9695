#include "app/step_loop.h"

namespace sluice {

Cadence Cadence::multiples(double interval, std::uint64_t next_index) {
    Cadence c;
    c.interval_ = interval;
    c.index_ = next_index;
    return c;
}

Cadence Cadence::running(double interval, double next_time) {
    Cadence c;
    c.interval_ = interval;
    c.by_index_ = false;
    c.time_ = next_time;
    return c;
}

double Cadence::next_time() const {
    return by_index_ ? static_cast<double>(index_) * interval_ : time_;
}

void Cadence::pass(double t) {
    while (t + 1e-6 * interval_ >= next_time()) {
        if (by_index_)
            ++index_;
        else
            time_ += interval_;
    }
}

void StepLoop::sample_gauges_if_due() {
    if (!gauges_.due(sim_.time()))
        return;
    gauges_.pass(sim_.time());
    fire_gauges_();
}

bool StepLoop::step() {
    std::future<GaugeResponse> with_step; // valid: the step ended before the gauges are due
    if (step_request_ && gauges_.on())
        with_step = sim_.step_and_sample(*step_request_, gauges_.due_from());
    else
        sim_.step();
    const bool stop = check_ && check_();
    // Before a checkpoint of this step, which then counts its row.
    if (gauges_.due(sim_.time()))
        sample_gauges_if_due();
    else if (with_step.valid())
        take_step_sample_(std::move(with_step));
    else if (fire_between_)
        fire_between_();
    if (snapshots_.due(sim_.time())) {
        snapshots_.pass(sim_.time());
        fire_snapshot_();
    }
    if (checkpoints_.due(sim_.time())) {
        checkpoints_.pass(sim_.time());
        fire_checkpoint_();
    }
    if (progress_)
        progress_->update(sim_.time(), sim_.steps());
    return stop;
}

StepLoop::Outcome StepLoop::advance_to(double end_time, double slack) {
    while (sim_.time() < end_time - slack)
        if (step())
            return Outcome::stopped;
    return Outcome::reached;
}

StepLoop::Outcome StepLoop::advance_steps(std::uint64_t steps) {
    for (std::uint64_t k = 0; k < steps; ++k)
        if (step())
            return Outcome::stopped;
    return Outcome::reached;
}

} // namespace sluice
