// The CPU backend's moving boundaries (cpu_passes.h): pass::Motion places the walls of moving
// objects where their prescribed motion has them (physics/motion.h), and pass::Damping relaxes
// the fluid's velocity in damping zones (physics/damping.h).

#include "backends/cpu/cpu_passes.h"

#include <algorithm>

namespace sluice::cpu {

template <int D>
void evaluate_motion(CpuState<D>& s, double t) {
    const std::uint32_t objects = s.motion.objects();
    s.object_state.resize(objects);
    s.object_motion.resize(objects);
    double fastest = 0.0;
    for (std::uint32_t k = 0; k < objects; ++k) {
        if (s.motion.floats[k])
            continue; // its body's state (publish_bodies)
        s.object_state[k] = object_state(s.motion, k, t);
        s.object_motion[k] = to_float(s.object_state[k]);
        fastest = std::max(fastest, s.object_state[k].speed_bound);
    }
    for (const RigidBodyData& b : s.bodies.bodies)
        fastest = std::max(fastest, s.object_state[b.object].speed_bound);
    s.motion_time = t;
    s.wall_speed = static_cast<float>(fastest);
    s.step_wall_speed = std::max(s.step_wall_speed, s.wall_speed);
}

template <int D>
void place_walls(CpuState<D>& s, bool velocity) {
    const MovingWallsView<D> walls = s.walls_view();
    const std::int64_t n = s.size();
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
    for (std::int64_t i = 0; i < n; ++i) {
        if (s.type[i] == ParticleType::fluid)
            continue;
        const std::uint16_t k = walls.object_of(s.id[i]);
        if (k == no_object)
            continue;
        s.position[i] = rigid_position(walls.states[k], walls.reference[s.id[i]]);
        if (velocity)
            s.velocity[i] = rigid_velocity(walls.states[k], s.position[i]);
    }
}

template <int D>
void move_walls(const StepPlan<D>& plan, CpuState<D>& s, IntegrationStage stage) {
    StageClock clock(s.stage_seconds[motion]);
    if (plan.floating) {
        const BodyStage body_stage = stage == IntegrationStage::predict   ? BodyStage::predict
                                     : stage == IntegrationStage::correct ? BodyStage::correct
                                     : plan.verlet_resets(s.steps)        ? BodyStage::verlet_euler
                                                                          : BodyStage::verlet;
        for (std::size_t b = 0; b < s.bodies.bodies.size(); ++b)
            advance_body(s.bodies.bodies[b], s.body_state[b], s.body_loads[b], body_stage, s.time,
                         s.dt);
        publish_bodies(s);
    }
    evaluate_motion(s, s.time + (stage == IntegrationStage::predict ? 0.5 : 1.0) * s.dt);
    place_walls(s, !plan.modified_walls());
}

template <int D>
void damp(const StepPlan<D>& plan, CpuState<D>& s) {
    StageClock clock(s.stage_seconds[integration]);
    const float dt = static_cast<float>(s.dt);
    const auto* zones = plan.damping.data();
    const auto count = static_cast<std::uint32_t>(plan.damping.size());
    const std::int64_t n = s.active;
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
    for (std::int64_t i = 0; i < n; ++i)
        if (s.type[i] == ParticleType::fluid && !s.is_halo(static_cast<std::uint32_t>(i)))
            s.velocity[i] = damping_factor(zones, count, s.position[i], dt) * s.velocity[i];
}

#define SLUICE_CPU_MOTION(D)                                                                       \
    template void evaluate_motion<D>(CpuState<D>&, double);                                        \
    template void place_walls<D>(CpuState<D>&, bool);                                              \
    template void move_walls<D>(const StepPlan<D>&, CpuState<D>&, IntegrationStage);               \
    template void damp<D>(const StepPlan<D>&, CpuState<D>&);
SLUICE_CPU_MOTION(2)
SLUICE_CPU_MOTION(3)
#undef SLUICE_CPU_MOTION

} // namespace sluice::cpu
