// The CPU backend's interaction pass (cpu_passes.h, pass::Interaction): the pair sums over every
// active particle with OpenMP, deterministic for any thread count (every particle's sums run in
// its neighbour order; the only reductions are max).

#include "backends/cpu/cpu_passes.h"

#include <algorithm>
#include <cmath>
#include <variant>

namespace sluice::cpu {

namespace {

/// δ-SPH: every owned fluid particle's renormalised density gradient (physics/delta_sph.h),
/// before the pair terms that read it. Halo copies sum theirs too: the halo is R wider for it
/// (parallel/slab_start.h, ghost_node_reach), so that those an owned particle sees have their
/// whole support, and their gradients are the owners'.
template <class QueryT, int D, class ViewT, class KernelT>
void density_gradients(const FluidConstants& fluid, CpuState<D>& s, const ViewT& view,
                       const KernelT& kernel) {
    s.density_gradient.resize(s.size()); // grows with the state, then stays: no allocation
    ParticlesView<D> particles = s.particles_view();
    const std::int64_t n = s.active;
#pragma omp parallel for schedule(static, 64)
    for (std::int64_t i = 0; i < n; ++i) {
        if (s.type[i] != ParticleType::fluid) {
            s.density_gradient[i] = Vec<D>{};
            continue;
        }
        DensityGradientVisitor<D, KernelT, ParticlesView<D>> visitor{particles, kernel, fluid.mass,
                                                                     s.density[i]};
        for_each_neighbour<QueryT>(view, view.positions[i], visitor);
        s.density_gradient[i] = visitor.sums.renormalised();
    }
}

template <class QueryT, int D, class ViewT, class KernelT>
void interact_with(const StepPlan<D>& plan, const FluidConstants& fluid, CpuState<D>& s,
                   const ViewT& view, const KernelT& kernel) {
    const ParticlesView<D> particles = s.particles_view();
    const std::int64_t n = s.active;
    const std::uint32_t* halo = s.halo_slot.empty() ? nullptr : s.halo_slot.data();
    Vec<D>* acceleration = s.acceleration.data();
    float* density_rate = s.density_rate.data();
    const ParticleType* type = s.type.data();
    if (fluid.shifting.on)
        s.shift_velocity.resize(s.size());
    Vec<D>* shift_velocity = fluid.shifting.on ? s.shift_velocity.data() : nullptr;
    const bool modified_walls = plan.modified_walls();
    float acceleration_max2 = 0.0f, mu_max = 0.0f;
#pragma omp parallel for schedule(static, 64) reduction(max : acceleration_max2, mu_max)
    for (std::int64_t i = 0; i < n; ++i) {
        if ((halo && halo[i] != no_slot) ||                       // its owner computes them
            (modified_walls && type[i] != ParticleType::fluid)) { // mDBC: the wall's density
            // comes from its ghost node (BoundaryCondition), not from continuity
            acceleration[i] = Vec<D>{};
            density_rate[i] = 0.0f;
            if (shift_velocity)
                shift_velocity[i] = Vec<D>{};
            continue;
        }
        const Derivatives<D> d = interact_particle<QueryT>(view, particles, kernel, fluid,
                                                           static_cast<std::uint32_t>(i));
        acceleration[i] = d.acceleration;
        density_rate[i] = d.density_rate;
        if (shift_velocity)
            shift_velocity[i] = d.shift_velocity;
        mu_max = std::max(mu_max, d.mu_max);
        if (type[i] == ParticleType::fluid)
            acceleration_max2 = std::max(acceleration_max2, norm2(d.acceleration));
    }
    s.acceleration_max = std::sqrt(acceleration_max2);
    s.mu_max = mu_max;
}

} // namespace

template <int D>
void interact(const StepPlan<D>& plan, CpuState<D>& s, InteractionRole role) {
    StageClock clock(s.stage_seconds[interaction]);
    const std::int64_t n = s.active;
#pragma omp parallel for schedule(static) if (n >= parallel_threshold)
    for (std::int64_t i = 0; i < n; ++i)
        s.pressure[i] = tait_pressure(plan.fluid, s.density[i]);
    // Runtime choice → compiled instantiation, once per pass (DESIGN.md).
    dispatch_neighbour_query<D>(
        plan.query, current_view(plan, s), [&](auto query, const auto& view) {
            std::visit(
                [&](const auto& kernel) {
                    const FluidConstants fluid = plan.interaction_constants(role);
                    if (fluid.diffusion == DensityDiffusion::antuono2010)
                        density_gradients<decltype(query)>(fluid, s, view, kernel);
                    interact_with<decltype(query)>(plan, fluid, s, view, kernel);
                },
                plan.kernel);
        });
}

template void interact<2>(const StepPlan<2>&, CpuState<2>&, InteractionRole);
template void interact<3>(const StepPlan<3>&, CpuState<3>&, InteractionRole);

} // namespace sluice::cpu
