// The CPU backend's outputs (cpu_passes.h): the snapshot (Simulation::snapshot, in id order),
// the saved state (save_state, a checkpoint) and the particle counts, each of this process's
// own particles only (halo copies are their owners').

#include "backends/cpu/cpu_passes.h"

#include "case/ghost_offsets.h"
#include "case/state_conversion.h"

namespace sluice::cpu {

template <int D>
Snapshot snapshot(const StepPlan<D>& plan, const CpuState<D>& s) {
    // Bin-order index of each id among the active particles (excluded ones left out).
    constexpr std::uint32_t none = ~0u;
    std::vector<std::uint32_t> slot(s.total_particles, none);
    for (std::uint32_t k = 0; k < s.active; ++k)
        if (!s.is_halo(k))
            slot[s.id[k]] = k;
    Snapshot out;
    out.dimension = D;
    out.time = s.time;
    out.step = s.steps;
    out.dt = s.dt;
    out.id.reserve(s.active);
    for (std::uint32_t id = 0; id < s.total_particles; ++id) {
        const std::uint32_t k = slot[id];
        if (k == none)
            continue;
        out.id.push_back(id);
        out.type.push_back(s.type[k]);
        out.position.push_back(to_array3(s.position[k]));
        out.velocity.push_back(to_array3(s.velocity[k]));
        out.density.push_back(s.density[k]);
        out.pressure.push_back(tait_pressure(plan.fluid, s.density[k]));
    }
    if (plan.modified_walls() && s.steps == 0) // the run's first snapshot shows the wall normals
        out.normal = wall_normals_of<D>(s.ghost_offset, out.id);
    return out;
}

template <int D>
SimulationState save_state(const StepPlan<D>& plan, const CpuState<D>& s) {
    SimulationState out;
    out.dimension = D;
    out.time = s.time;
    out.last_dt = s.dt;
    out.steps = s.steps;
    out.fluid_height = s.fluid_height;
    const bool verlet = plan.integrator == IntegratorKind::verlet;
    for (std::uint32_t k = 0; k < s.size(); ++k) {
        if (s.is_halo(k)) // with several processes: its owner saves it
            continue;
        out.id.push_back(s.id[k]);
        out.type.push_back(s.type[k]);
        out.density.push_back(s.density[k]);
        out.position.push_back(to_array3(s.position[k]));
        out.velocity.push_back(to_array3(s.velocity[k]));
        if (verlet) {
            out.previous_velocity.push_back(to_array3(s.previous_velocity[k]));
            out.previous_density.push_back(s.previous_density[k]);
        }
    }
    out.excluded = s.exclusions.reported();
    out.body_states = saved_body_states(s.body_state);
    return out;
}

template <int D>
ParticleCounts counts(const CpuState<D>& s) {
    ParticleCounts out;
    if (s.comm) { // this rank's own particles
        for (std::uint32_t k = 0; k < s.size(); ++k) {
            if (s.is_halo(k))
                continue;
            if (k >= s.active)
                ++out.excluded;
            else if (s.type[k] == ParticleType::fluid)
                ++out.fluid;
            else
                ++out.boundary;
        }
        return out;
    }
    out.boundary = s.boundary_count;
    out.fluid = s.active - s.boundary_count; // boundary particles never leave the domain
    out.excluded = s.size() - s.active;
    return out;
}

template Snapshot snapshot<2>(const StepPlan<2>&, const CpuState<2>&);
template Snapshot snapshot<3>(const StepPlan<3>&, const CpuState<3>&);
template SimulationState save_state<2>(const StepPlan<2>&, const CpuState<2>&);
template SimulationState save_state<3>(const StepPlan<3>&, const CpuState<3>&);
template ParticleCounts counts<2>(const CpuState<2>&);
template ParticleCounts counts<3>(const CpuState<3>&);

} // namespace sluice::cpu
