// The CPU backend's end of a step (cpu_passes.h, pass::Checks): the clock advances, a
// non-physical state fails (on every process at once), a move beyond what the halo allows
// fails, and the particles that left the domain are recorded as excluded.

#include "backends/cpu/cpu_passes.h"

#include "backends/failure.h"
#include "case/state_conversion.h"
#include "parallel/slab_start.h"

#include <algorithm>
#include <optional>
#include <string>

namespace sluice::cpu {

namespace {

/// Every rank learns of a failure on any (its message gathered) and the step's largest move
/// must stay within what the halo allows (slabs.h): |Δx| ≤ dt·max(|v_n|, |v_n+1|) + dt²·|a|max
/// (with shifting, |v| + |u_s| for |v|).
/// Collective. \throws SimulationFailure
template <int D>
void check_every_process(CpuState<D>& s, std::int64_t bad_count, float speed2,
                         const std::string& message) {
    double totals[2] = {static_cast<double>(bad_count), 0.0};
    double speeds[1] = {std::sqrt(static_cast<double>(speed2))};
    s.comm->sum(totals, 1);
    s.comm->max(speeds, 1);
    if (totals[0] > 0) {
        std::string all;
        const std::vector<std::vector<std::byte>> each = s.comm->all_gather(std::vector<std::byte>(
            reinterpret_cast<const std::byte*>(message.data()),
            reinterpret_cast<const std::byte*>(message.data()) + message.size()));
        for (std::size_t r = 0; r < each.size(); ++r)
            if (!each[r].empty())
                all += (all.empty() ? "" : "\n") + std::string("[process ") + std::to_string(r) +
                       "] " +
                       std::string(reinterpret_cast<const char*>(each[r].data()), each[r].size());
        throw SimulationFailure(all);
    }
    if (const std::string why = move_beyond_halo(s.slabs, s.steps, s.time, s.dt, speeds[0],
                                                 s.largest_speed, s.acceleration_max);
        !why.empty())
        throw SimulationFailure(why);
}

/// Throws SimulationFailure (on every rank at once) when an owned particle is not finite or
/// its density is outside the plan's bounds.
template <int D>
void check(const StepPlan<D>& plan, CpuState<D>& s) {
    std::optional<StageClock> clock(std::in_place, s.stage_seconds[checks]);
    const std::int64_t n = s.size();
    auto bad = [&](std::int64_t k) {
        return !s.is_halo(static_cast<std::uint32_t>(k)) &&
               (!finite(s.position[k]) || !finite(s.velocity[k]) || !std::isfinite(s.density[k]) ||
                s.density[k] < plan.density_min || s.density[k] > plan.density_max);
    };
    std::int64_t bad_count = 0;
    float speed2 = 0.0f;
    const bool several = s.comm != nullptr;
    // With shifting the step moved a particle by at most dt·(max(|v_n|, |v_n+1|) + |u_s|)
    // (physics/shifting.h): that speed, so that the halo check holds without the step before.
    const bool shifting = plan.fluid.shifting.on && !s.shift_velocity.empty();
#pragma omp parallel for schedule(static) reduction(+ : bad_count) reduction(max : speed2) if (n >= parallel_threshold)
    for (std::int64_t k = 0; k < n; ++k) {
        bad_count += bad(k) ? 1 : 0;
        if (several && k < s.active && s.type[k] == ParticleType::fluid) {
            float speed = std::sqrt(norm2(s.velocity[k]));
            if (shifting)
                speed = std::max(speed, std::sqrt(norm2(s.previous_velocity[k]))) +
                        std::sqrt(norm2(s.shift_velocity[k]));
            speed2 = std::max(speed2, speed * speed);
        }
    }
    // Moving walls move at most their largest speed of the step (physics/motion.h's bound).
    speed2 = std::max(speed2, s.step_wall_speed * s.step_wall_speed);
    s.step_wall_speed = s.wall_speed; // the next step's starts where this one ends
    std::string message;
    if (bad_count > 0) {
        std::vector<Offender<D>> offenders;
        for (std::int64_t k = 0; k < n; ++k)
            if (bad(k))
                offenders.push_back(
                    {s.id[k], s.type[k], s.density[k], s.position[k], s.velocity[k]});
        message = failure_message(s.steps, s.time, static_cast<std::size_t>(bad_count),
                                  plan.density_min, plan.density_max, offenders);
    }
    if (!several) {
        if (bad_count > 0)
            throw SimulationFailure(message);
        return;
    }
    clock.emplace(s.stage_seconds[waiting]); // the rest waits for the other processes
    check_every_process(s, bad_count, speed2, message);
}

template <int D>
void record_exclusions(CpuState<D>& s) {
    if (!s.comm) {
        s.exclusions.record(
            s.size() - s.active, s.id.data() + s.active,
            [&](std::uint32_t k) { return to_array3(s.position[s.active + k]); },
            [&](std::uint32_t k) { return s.type[s.active + k]; }, s.steps, s.time);
        return;
    }
    std::vector<std::uint32_t> ids, index; // owned ones only: a halo copy's owner records it
    for (std::uint32_t k = s.active; k < s.size(); ++k)
        if (!s.is_halo(k)) {
            ids.push_back(s.id[k]);
            index.push_back(k);
        }
    s.exclusions.record(
        static_cast<std::uint32_t>(ids.size()), ids.data(),
        [&](std::uint32_t k) { return to_array3(s.position[index[k]]); },
        [&](std::uint32_t k) { return s.type[index[k]]; }, s.steps, s.time);
}

} // namespace

template <int D>
void finish_step(const StepPlan<D>& plan, CpuState<D>& s) {
    s.time += s.dt;
    ++s.steps;
    check(plan, s);
    record_exclusions(s);
}

template void finish_step<2>(const StepPlan<2>&, CpuState<2>&);
template void finish_step<3>(const StepPlan<3>&, CpuState<3>&);

} // namespace sluice::cpu
