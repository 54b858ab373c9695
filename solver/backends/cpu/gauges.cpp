// The CPU backend's gauge sampling (cpu_passes.h; Simulation::sample_gauges): kernel sums at
// points, wall sensors' sums at wall points and the fronts, on the view of the last build and the
// arrays in its order.

#include "backends/cpu/cpu_passes.h"

#include "case/state_conversion.h"
#include "parallel/slab_start.h"
#include "physics/forces.h"
#include "physics/gauges.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

namespace sluice::cpu {

namespace {

/// Fronts: fluid particles by decreasing coordinate (a heap: usually only the first one or two
/// are taken), the first with a fluid neighbour within the distance wins; NaN when none.
template <class QueryT, int D, class ViewT>
float front_of(const CpuState<D>& s, const ViewT& view, const ParticlesView<D>& particles,
               const GaugeRequest::Front& f, float neighbour_distance) {
    const int k = D == 2 ? (f.axis == 2 ? 1 : 0) : f.axis;
    std::vector<std::pair<float, std::uint32_t>> order;
    for (std::uint32_t i = 0; i < s.active; ++i)
        if (s.type[i] == ParticleType::fluid && !s.is_halo(i))
            order.emplace_back(static_cast<float>(f.sign) * view.positions[i][k], i);
    std::make_heap(order.begin(), order.end());
    for (auto end = order.end(); end != order.begin(); --end) {
        std::pop_heap(order.begin(), end);
        const auto [key, i] = *(end - 1);
        FluidNeighbourVisitor<D, ParticlesView<D>> test{particles, i,
                                                        neighbour_distance * neighbour_distance};
        for_each_neighbour<QueryT>(view, view.positions[i], test);
        if (test.found)
            return static_cast<float>(f.sign) * key;
    }
    return std::numeric_limits<float>::quiet_NaN();
}

/// The force and moment of the fluid on each body of the request (physics/forces.h), this
/// process's owned wall particles' share, summed in particle order.
template <class QueryT, int D, class ViewT, class KernelT>
std::vector<std::array<double, 6>>
body_forces(const StepPlan<D>& plan, const CpuState<D>& s, const ViewT& view, const KernelT& kernel,
            const ParticlesView<D>& particles, const GaugeRequest& request) {
    std::vector<std::array<double, 6>> out(request.bodies.size(), std::array<double, 6>{});
    if (request.bodies.empty())
        return out;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> walls; // (particle, body)
    for (std::uint32_t i = 0; i < s.active; ++i) {
        if (s.type[i] == ParticleType::fluid || s.is_halo(i))
            continue;
        for (std::uint32_t b = 0; b < request.bodies.size(); ++b) {
            const GaugeRequest::Body& body = request.bodies[b];
            if (s.id[i] - body.first_id < body.id_count) // unsigned: also below first_id
                walls.emplace_back(i, b);
        }
    }
    std::vector<Vec<D>> force(walls.size());
    const std::int64_t n = static_cast<std::int64_t>(walls.size());
#pragma omp parallel for schedule(dynamic, 64) if (n >= 1024)
    for (std::int64_t k = 0; k < n; ++k) {
        const std::uint32_t i = walls[k].first;
        const float rho = s.density[i];
        WallForceVisitor<D, KernelT, ParticlesView<D>> visitor{
            particles, kernel, plan.fluid, s.velocity[i], rho, s.pressure[i] / (rho * rho)};
        for_each_neighbour<QueryT>(view, s.position[i], visitor);
        force[k] = visitor.force();
    }
    for (std::size_t k = 0; k < walls.size(); ++k) {
        const auto [i, b] = walls[k];
        const GaugeRequest::Body& body = request.bodies[b];
        Vec<D> point = from_array3<D>(body.moment_point);
        if (body.object < s.object_motion.size() && s.motion.moves[body.object])
            point = rigid_position(s.object_motion[body.object], point);
        double moment[3];
        moment_about(s.position[i], point, force[k], moment);
        const std::array<float, 3> f = to_array3(force[k]);
        for (int a = 0; a < 3; ++a) {
            out[b][a] += f[a];
            out[b][3 + a] += moment[a];
        }
    }
    return out;
}

} // namespace

template <int D>
GaugeResponse sample_gauges(const StepPlan<D>& plan, CpuState<D>& s, const GaugeRequest& request) {
    // The view of the last build and the arrays in its order (see simulation.h).
    if (s.comm) { // the halo at the current state, and the skin that covers it
        refresh_halo(s);
        if (s.reused)
            s.skin = largest_move_since_build(s);
    }
    // The pressures of the current densities (the interaction pass computed them from the
    // densities before the last integration), which the packed GPU layout carries too.
    for (std::uint32_t i = 0; i < s.size(); ++i)
        s.pressure[i] = tait_pressure(plan.fluid, s.density[i]);
    const ParticlesView<D> particles = s.particles_view();
    StageClock clock(s.gauge_seconds);
    GaugeResponse out;
    out.sums.resize(request.points.size());
    dispatch_neighbour_query<D>(
        plan.query, current_view(plan, s), [&](auto query, const auto& view) {
            std::visit(
                [&](const auto& kernel) {
                    using QueryT = decltype(query);
                    using KernelT = std::decay_t<decltype(kernel)>;
                    // The sums of a fresh `prototype` visitor at each point, to store(k, sums).
                    const auto at_points = [&](const std::vector<std::array<float, 3>>& points,
                                               const auto& prototype, const auto& store) {
                        const std::int64_t n = static_cast<std::int64_t>(points.size());
#pragma omp parallel for schedule(dynamic, 16) if (n >= 256)
                        for (std::int64_t k = 0; k < n; ++k) {
                            auto visitor = prototype;
                            for_each_neighbour<QueryT>(view, from_array3<D>(points[k]), visitor);
                            store(k, visitor.sums);
                        }
                    };
                    at_points(
                        request.points,
                        GaugeVisitor<D, KernelT, ParticlesView<D>>{particles, kernel, plan.fluid},
                        [&](std::int64_t k, const GaugeSums<D>& g) {
                            const std::array<float, 3> v = to_array3(g.w_velocity);
                            out.sums[k] = {g.w, g.w_density, g.w_pressure, v[0], v[1], v[2]};
                        });
                    out.wall.assign(request.wall_points.size(), WallSums{});
                    at_points(request.wall_points,
                              WallSensorVisitor<D, KernelT, ParticlesView<D>>{particles, kernel,
                                                                              plan.fluid},
                              [&](std::int64_t k, const WallSensorSums<D>& w) {
                                  flatten(w, out.wall[k]);
                              });
                    for (const GaugeRequest::Front& f : request.fronts)
                        out.fronts.push_back(front_of<QueryT>(s, view, particles, f,
                                                              request.front_neighbour_distance));
                    out.forces = body_forces<QueryT>(plan, s, view, kernel, particles, request);
                },
                plan.kernel);
        });
    if (s.comm) {
        combine_gauges(*s.comm, s.slabs, D, request, out);
        if (!out.forces.empty())
            s.comm->sum(out.forces.front().data(), static_cast<int>(6 * out.forces.size()));
    }
    if (request.floating)
        out.floating = floating_samples(s.body_state, s.body_loads);
    return out;
}

template <int D>
std::vector<float> sample_fraction_grid(const StepPlan<D>& plan, CpuState<D>& s,
                                        const FractionGrid& grid) {
    if (s.comm)
        throw std::logic_error("sample_fraction_grid: one process only");
    // φ reads the neighbours' densities only: no pressures to refresh (sample_gauges does).
    const ParticlesView<D> particles = s.particles_view();
    StageClock clock(s.gauge_seconds);
    std::vector<float> phi(grid.points);
    dispatch_neighbour_query<D>(
        plan.query, current_view(plan, s), [&](auto query, const auto& view) {
            std::visit(
                [&](const auto& kernel) {
                    using QueryT = decltype(query);
                    using KernelT = std::decay_t<decltype(kernel)>;
                    const std::int64_t n = static_cast<std::int64_t>(grid.points);
#pragma omp parallel for schedule(dynamic, 1024)
                    for (std::int64_t k = 0; k < n; ++k) {
                        GaugeVisitor<D, KernelT, ParticlesView<D>> visitor{particles, kernel,
                                                                           plan.fluid};
                        for_each_neighbour<QueryT>(
                            view, grid_point<D>(grid, grid.first + static_cast<std::uint64_t>(k)),
                            visitor);
                        phi[k] = visitor.sums.w;
                    }
                },
                plan.kernel);
        });
    return phi;
}

template GaugeResponse sample_gauges<2>(const StepPlan<2>&, CpuState<2>&, const GaugeRequest&);
template GaugeResponse sample_gauges<3>(const StepPlan<3>&, CpuState<3>&, const GaugeRequest&);
template std::vector<float> sample_fraction_grid<2>(const StepPlan<2>&, CpuState<2>&,
                                                    const FractionGrid&);
template std::vector<float> sample_fraction_grid<3>(const StepPlan<3>&, CpuState<3>&,
                                                    const FractionGrid&);

} // namespace sluice::cpu
