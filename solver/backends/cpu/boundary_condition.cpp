// The CPU backend's mDBC pass (cpu_passes.h, pass::BoundaryCondition; physics/mdbc.h): every
// owned wall particle with a ghost node takes its density and velocity from the fluid around
// the node. The queries read fluid particles only and the pass writes wall particles only, so
// the result does not depend on the order or the thread count.

#include "backends/cpu/cpu_passes.h"
#include "physics/mdbc.h"

#include <variant>

namespace sluice::cpu {

namespace {

template <class QueryT, int D, class ViewT, class KernelT>
void walls_from_ghosts(const StepPlan<D>& plan, CpuState<D>& s, const ViewT& view,
                       const KernelT& kernel) {
    const ParticlesView<D> particles = s.particles_view();
    const MovingWallsView<D> walls = s.walls_view();
    const std::int64_t n = s.active;
    const std::uint32_t wall_ids = static_cast<std::uint32_t>(s.ghost_offset.size());
#pragma omp parallel for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < n; ++i) {
        if (s.type[i] == ParticleType::fluid || s.is_halo(static_cast<std::uint32_t>(i)))
            continue;
        const std::uint32_t id = s.id[i];
        if (id >= wall_ids)
            continue;
        Vec<D> to_ghost = s.ghost_offset[id];
        if (norm2(to_ghost) == 0.0f) // no ghost node: never within reach of the fluid
            continue;
        Vec<D> wall_velocity{}, wall_acceleration{};
        if (const std::uint16_t k = walls.object_of(id); k != no_object) {
            // the node turns and moves with its object (physics/motion.h)
            to_ghost = rigid_rotate(walls.states[k], to_ghost);
            wall_velocity = rigid_velocity(walls.states[k], s.position[i]);
            wall_acceleration = rigid_acceleration(walls.states[k], s.position[i]);
        }
        const WallState<D> w =
            mdbc_particle<QueryT>(view, particles, kernel, plan.fluid, s.position[i], to_ghost,
                                  plan.slip, wall_velocity, wall_acceleration);
        s.density[i] = w.density;
        s.velocity[i] = w.velocity;
    }
}

} // namespace

template <int D>
void apply_boundary_condition(const StepPlan<D>& plan, CpuState<D>& s) {
    StageClock clock(s.stage_seconds[boundary]);
    dispatch_neighbour_query<D>(
        plan.query, current_view(plan, s), [&](auto query, const auto& view) {
            std::visit(
                [&](const auto& kernel) {
                    walls_from_ghosts<decltype(query)>(plan, s, view, kernel);
                },
                plan.kernel);
        });
}

template void apply_boundary_condition<2>(const StepPlan<2>&, CpuState<2>&);
template void apply_boundary_condition<3>(const StepPlan<3>&, CpuState<3>&);

} // namespace sluice::cpu
