// The CPU backend's time step and integration passes (cpu_passes.h): pass::TimeStep (dt from
// the interaction's maxima) and pass::Integration (the symplectic predictor and corrector,
// Verlet's update; integrators.h).

#include "backends/cpu/cpu_passes.h"

namespace sluice::cpu {

template <int D>
void set_time_step(const StepPlan<D>& plan, CpuState<D>& s) {
    double maxima[2] = {s.acceleration_max, s.mu_max};
    if (s.comm) {
        StageClock clock(s.stage_seconds[waiting]);
        s.comm->max(maxima, 2);
    }
    s.acceleration_max = static_cast<float>(maxima[0]);
    s.mu_max = static_cast<float>(maxima[1]);
    s.dt = time_step(plan.fluid, plan.cfl, maxima[0], maxima[1], s.wall_speed);
}

template <int D>
void integrate(const StepPlan<D>& plan, CpuState<D>& s, IntegrationStage stage) {
    StageClock clock(s.stage_seconds[integration]);
    const float rho0 = plan.fluid.rho0;
    const float dt = static_cast<float>(s.dt);
    IntegratorArrays<D> a = s.integrator_arrays();
    // Shifting moves the particles once per step, with its final positions (the predictor's
    // pass computed a shift too: unused).
    if (plan.fluid.shifting.on && stage != IntegrationStage::predict)
        a.shift_velocity = s.shift_velocity.data();
    const std::int64_t n = s.active;
    switch (stage) {
    case IntegrationStage::predict:
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
        for (std::int64_t i = 0; i < n; ++i)
            symplectic_predict(a, static_cast<std::uint32_t>(i), dt, rho0);
        break;
    case IntegrationStage::correct:
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
        for (std::int64_t i = 0; i < n; ++i)
            symplectic_correct(a, static_cast<std::uint32_t>(i), dt, rho0);
        if (s.reused) // gauges after the step query the state through it
            s.skin = largest_move_since_build(s);
        break;
    case IntegrationStage::verlet: {
        const bool euler = plan.verlet_resets(s.steps);
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
        for (std::int64_t i = 0; i < n; ++i)
            verlet_update(a, static_cast<std::uint32_t>(i), dt, euler, rho0);
        break;
    }
    }
}

template void set_time_step<2>(const StepPlan<2>&, CpuState<2>&);
template void set_time_step<3>(const StepPlan<3>&, CpuState<3>&);
template void integrate<2>(const StepPlan<2>&, CpuState<2>&, IntegrationStage);
template void integrate<3>(const StepPlan<3>&, CpuState<3>&, IntegrationStage);

} // namespace sluice::cpu
