// The CPU backend's floating bodies (cpu_passes.h): pass::BodyLoads sums each body's loads from
// its particles (physics/body_loads.h) in particle order, deterministic for any thread count;
// publish_bodies hands the bodies' states to the Motion pass's objects.

#include "backends/cpu/cpu_passes.h"

#include <algorithm>
#include <array>
#include <variant>

namespace sluice::cpu {

template <int D>
void sum_body_loads(const StepPlan<D>& plan, CpuState<D>& s) {
    StageClock clock(s.stage_seconds[motion]);
    const auto count = static_cast<std::uint32_t>(s.bodies.bodies.size());
    auto& members = s.body_members;
    members.clear();
    for (std::uint32_t i = 0; i < s.active; ++i) {
        if (s.type[i] == ParticleType::fluid || s.is_halo(i))
            continue;
        const std::uint32_t b = body_of_id(s.bodies.contact.data(), count, s.id[i]);
        if (b < count && s.bodies.buried[s.id[i]] == 0) // a buried particle's share is zero
            members.emplace_back(i, b);
    }
    auto& share = s.body_shares; // fluid, contact
    share.resize(members.size());
    const ParticlesView<D> particles = s.particles_view();
    const MovingWallsView<D> walls = s.walls_view();
    dispatch_neighbour_query<D>(
        plan.query, current_view(plan, s), [&](auto query, const auto& view) {
            std::visit(
                [&](const auto& kernel) {
                    using KernelT = std::decay_t<decltype(kernel)>;
                    const std::int64_t n = static_cast<std::int64_t>(members.size());
#pragma omp parallel for schedule(dynamic, 64) if (n >= 1024)
                    for (std::int64_t k = 0; k < n; ++k) {
                        const auto [i, b] = members[static_cast<std::size_t>(k)];
                        const float rho = s.density[i];
                        BodyLoadVisitor<D, KernelT, ParticlesView<D>> visitor{
                            {particles, kernel, plan.fluid, s.velocity[i], rho,
                             s.pressure[i] / (rho * rho)},
                            s.id.data(),
                            s.bodies.contact.data(),
                            count,
                            b,
                            walls,
                            plan.contact,
                            s.position[i],
                            rigid_velocity(s.object_motion[s.bodies.bodies[b].object],
                                           s.position[i])};
                        for_each_neighbour<decltype(query)>(view, s.position[i], visitor);
                        share[static_cast<std::size_t>(k)] = {visitor.fluid.force(),
                                                              visitor.contact_force};
                    }
                },
                plan.kernel);
        });
    std::vector<double>& sums = s.body_sums;
    sums.assign(body_particle_sums * static_cast<std::size_t>(count), 0.0);
    for (std::size_t k = 0; k < members.size(); ++k) {
        const auto [i, b] = members[k];
        double* out = sums.data() + body_particle_sums * b;
        const double* center = s.body_state[b].center;
        body_share(s.position[i], center, share[k][0], out);
        body_share(s.position[i], center, share[k][1], out + 6);
    }
    if (s.comm)
        s.comm->sum(sums.data(), static_cast<int>(sums.size()));
    body_loads_from_sums(sums.data(), s.bodies.bodies.data(), s.body_state.data(), count,
                         s.bodies.springs.data(),
                         static_cast<std::uint32_t>(s.bodies.springs.size()), s.body_loads.data());
}

template <int D>
void publish_bodies(CpuState<D>& s) {
    for (std::size_t b = 0; b < s.bodies.bodies.size(); ++b) {
        const RigidBodyData& body = s.bodies.bodies[b];
        s.object_state[body.object] = body_rigid_state(body, s.body_state[b]);
        s.object_motion[body.object] = to_float(s.object_state[body.object]);
    }
}

#define SLUICE_CPU_BODIES(D)                                                                       \
    template void sum_body_loads<D>(const StepPlan<D>&, CpuState<D>&);                             \
    template void publish_bodies<D>(CpuState<D>&);
SLUICE_CPU_BODIES(2)
SLUICE_CPU_BODIES(3)
#undef SLUICE_CPU_BODIES

} // namespace sluice::cpu
