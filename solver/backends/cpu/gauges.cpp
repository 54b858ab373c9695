// The CPU backend's gauge sampling (cpu_passes.h; Simulation::sample_gauges): kernel sums at
// points, wall sensors' sums at wall points and the fronts, on the view of the last build and the
// arrays in its order.

#include "backends/cpu/cpu_passes.h"

#include "case/state_conversion.h"
#include "parallel/slab_start.h"
#include "physics/gauges.h"

#include <algorithm>
#include <array>
#include <limits>
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

} // namespace

template <int D>
GaugeResponse sample_gauges(const StepPlan<D>& plan, CpuState<D>& s, const GaugeRequest& request) {
    // The view of the last build and the arrays in its order (see simulation.h).
    if (s.comm) { // the halo at the current state, and the skin that covers it
        refresh_halo(s);
        if (s.reused)
            s.skin = largest_move_since_build(s);
    }
    const ParticlesView<D> particles{s.velocity.data(), s.density.data(), s.pressure.data(),
                                     s.type.data()};
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
                },
                plan.kernel);
        });
    if (s.comm)
        combine_gauges(*s.comm, s.slabs, D, request, out);
    return out;
}

template GaugeResponse sample_gauges<2>(const StepPlan<2>&, CpuState<2>&, const GaugeRequest&);
template GaugeResponse sample_gauges<3>(const StepPlan<3>&, CpuState<3>&, const GaugeRequest&);

} // namespace sluice::cpu
