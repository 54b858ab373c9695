// The CPU backend's construction passes (cpu_passes.h): pass::Construction (the neighbour build,
// the reorder gather, the index layout's excluded particles moved last) and
// pass::ReuseStructure (the predictor's structure with a skin), and the view queries take.

#include "backends/cpu/cpu_passes.h"

#include <algorithm>
#include <cmath>
#include <variant>

namespace sluice::cpu {

namespace {

/// Index layout: moves the particles the last build excluded to the end of every array
/// (stable), as the reorder layout's sort does.
template <int D>
void move_excluded_last(const StepPlan<D>& plan, CpuState<D>& s, bool with_previous) {
    std::vector<std::uint32_t> order;
    order.reserve(s.size());
    for (std::uint32_t i = 0; i < s.size(); ++i)
        if (plan.grid.contains(s.build_positions[i]))
            order.push_back(i);
    for (std::uint32_t i = 0; i < s.size(); ++i)
        if (!plan.grid.contains(s.build_positions[i]))
            order.push_back(i);
    gather(s.position, s.scratch_vec, order);
    gather_state(s, order, with_previous);
}

} // namespace

template <int D>
void gather_state(CpuState<D>& s, const std::vector<std::uint32_t>& order, bool with_previous) {
    gather(s.velocity, s.scratch_vec, order);
    gather(s.density, s.scratch_float, order);
    gather(s.type, s.scratch_type, order);
    gather(s.id, s.scratch_id, order);
    gather(s.halo_slot, s.scratch_slot, order);
    gather(s.send_slot, s.scratch_slot, order);
    if (with_previous) {
        gather(s.previous_position, s.scratch_vec, order);
        gather(s.previous_velocity, s.scratch_vec, order);
        gather(s.previous_density, s.scratch_float, order);
    }
}

template <int D>
void construct(const StepPlan<D>& plan, CpuState<D>& s, bool with_previous) {
    s.reused = false;
    if (plan.layout == Layout::index) {
        StageClock clock(s.stage_seconds[construction]);
        s.build_positions = s.position;
        s.builder.build(s.build_positions.data(), s.size(), plan.grid, plan.radius,
                        OutsidePolicy::exclude);
        if (s.builder.binned_count() != s.active || s.active == 0) {
            // Someone left the domain (or the first build): excluded particles go last, the
            // structure is built again on that order.
            move_excluded_last(plan, s, with_previous);
            s.build_positions = s.position;
            s.builder.build(s.build_positions.data(), s.size(), plan.grid, plan.radius,
                            OutsidePolicy::exclude);
        }
        s.active = s.builder.binned_count();
        if (s.comm)
            index_slots(s);
        return;
    }
    {
        StageClock clock(s.stage_seconds[construction]);
        s.builder.build(s.position.data(), s.size(), plan.grid, plan.radius,
                        OutsidePolicy::exclude);
    }
    StageClock clock(s.stage_seconds[reorder]);
    s.position = s.builder.sorted_positions();
    gather_state(s, s.builder.permutation(), with_previous);
    s.active = s.builder.binned_count();
    if (s.comm)
        index_slots(s);
}

template <int D>
float largest_move_since_build(const CpuState<D>& s) {
    const std::vector<Vec<D>>& built = s.builder.sorted_positions(); // reorder: the same order
    float moved = 0.0f;
    const std::int64_t n = s.active;
#pragma omp parallel for schedule(static) reduction(max : moved) if (n >= parallel_threshold)
    for (std::int64_t i = 0; i < n; ++i)
        for (int k = 0; k < D; ++k)
            moved = std::max(moved, std::fabs(s.position[i][k] - built[i][k]));
    return moved;
}

template <int D>
void reuse_structure(CpuState<D>& s) {
    s.skin = largest_move_since_build(s);
    s.reused = true;
}

template <int D>
AnyNeighbourView<D> current_view(const StepPlan<D>& plan, const CpuState<D>& s) {
    AnyNeighbourView<D> view = s.builder.view(plan.layout);
    if (s.reused) {
        NeighbourView<D>& v = std::get<NeighbourView<D>>(view); // reorder layout only
        v.positions = s.position.data();
        v.skin = &s.skin;
    }
    return view;
}

#define SLUICE_CPU_CONSTRUCTION(D)                                                                 \
    template void construct<D>(const StepPlan<D>&, CpuState<D>&, bool);                            \
    template void reuse_structure<D>(CpuState<D>&);                                                \
    template AnyNeighbourView<D> current_view<D>(const StepPlan<D>&, const CpuState<D>&);          \
    template float largest_move_since_build<D>(const CpuState<D>&);                                \
    template void gather_state<D>(CpuState<D>&, const std::vector<std::uint32_t>&, bool);
SLUICE_CPU_CONSTRUCTION(2)
SLUICE_CPU_CONSTRUCTION(3)
#undef SLUICE_CPU_CONSTRUCTION

} // namespace sluice::cpu
