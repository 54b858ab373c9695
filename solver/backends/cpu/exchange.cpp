// The CPU backend's passes over several processes (cpu_passes.h; DESIGN.md, Scale-out):
// pass::Exchange (migration and a new halo), pass::HaloRefresh (the halo at n+½),
// pass::Balance (slab faces towards equal work), and the message packing they share.

#include "backends/cpu/cpu_passes.h"

#include "parallel/slab_rules.h"
#include "parallel/slab_start.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace sluice::cpu {

namespace {

/// One particle of a migration or halo message: what append_particles reads back.
template <int D>
void pack(const CpuState<D>& s, std::uint32_t i, ByteWriter& out) {
    out.put(s.position[i]);
    out.put(s.velocity[i]);
    out.put(s.density[i]);
    out.put(s.type[i]);
    out.put(s.id[i]);
    out.put(s.previous_velocity[i]);
    out.put(s.previous_density[i]);
}

/// Appends the particles of a migration or halo message (pack()'s order); halo copies get
/// the slots first_slot, first_slot + 1, …
template <int D>
void append_particles(CpuState<D>& s, const std::vector<std::byte>& message, bool halo,
                      std::uint32_t first_slot) {
    ByteReader in(message);
    std::uint32_t slot = first_slot;
    while (!in.done()) {
        const Vec<D> x = in.get<Vec<D>>();
        s.position.push_back(x);
        s.velocity.push_back(in.get<Vec<D>>());
        s.density.push_back(in.get<float>());
        s.type.push_back(in.get<ParticleType>());
        s.id.push_back(in.get<std::uint32_t>());
        s.previous_velocity.push_back(in.get<Vec<D>>());
        s.previous_density.push_back(in.get<float>());
        if (!s.previous_position.empty())
            s.previous_position.push_back(x); // the predictor sets it before it is read
        s.halo_slot.push_back(halo ? slot++ : no_slot);
        s.send_slot.push_back(no_slot);
    }
    s.pressure.resize(s.size());
    s.density_rate.resize(s.size());
    s.acceleration.resize(s.size());
}

/// Moves the particles [from, size()) to just after the active ones, before the excluded.
template <int D>
void insert_before_excluded(CpuState<D>& s, std::uint32_t from) {
    const std::uint32_t added = s.size() - from;
    s.for_each_array([&](auto& a) {
        if (!a.empty())
            std::rotate(a.begin() + s.active, a.begin() + from, a.end());
    });
    s.active += added;
}

/// The halo: owned particles within halo_width of a face, to the neighbour beyond it (slabs
/// are at least two halo widths wide, so none goes both ways).
template <int D>
void send_halo(const StepPlan<D>& plan, CpuState<D>& s) {
    const int rank = s.comm->rank();
    const double lower = s.slabs.lower(rank), upper = s.slabs.upper(rank);
    const int axis = s.slabs.axis;
    std::vector<std::byte> to_below, to_above, from_below, from_above;
    ByteWriter below(to_below), above(to_above);
    std::fill(s.send_slot.begin(), s.send_slot.end(), no_slot);
    const double width = s.slabs.halo_width;
    s.sent_below = s.sent_above = 0;
    const bool has_below = rank > 0, has_above = rank + 1 < s.comm->size();
    auto side = [&](std::uint32_t i) {
        return plan.grid.contains(s.position[i])
                   ? halo_side(s.position[i][axis], lower, upper, width, has_below, has_above)
                   : SlabSide::none;
    };
    // Those for below first, then those for above: the order of their slots.
    for (std::uint32_t i = 0; i < s.active; ++i)
        if (side(i) == SlabSide::below) {
            s.send_slot[i] = s.sent_below++;
            pack(s, i, below);
        }
    for (std::uint32_t i = 0; i < s.active; ++i)
        if (side(i) == SlabSide::above) {
            s.send_slot[i] = s.sent_below + s.sent_above++;
            pack(s, i, above);
        }
    s.comm->exchange_with_neighbours(to_below, to_above, from_below, from_above);
    const std::uint32_t first = s.size();
    append_particles(s, from_below, true, 0);
    s.received_below = s.size() - first;
    append_particles(s, from_above, true, s.received_below);
    s.received_above = s.size() - first - s.received_below;
    insert_before_excluded(s, first);
}

} // namespace

template <int D>
void distribute(const StepPlan<D>& plan, CpuState<D>& s) {
    std::optional<StageClock> clock(std::in_place, s.stage_seconds[migration]);
    const int rank = s.comm->rank();
    const double lower = s.slabs.lower(rank), upper = s.slabs.upper(rank);
    const int axis = s.slabs.axis;
    // The halo goes; the owned particles that left the slab (and not the domain) go to the
    // neighbour whose slab they entered (a move per step is far below a slab's width).
    std::vector<std::byte> to_below, to_above, from_below, from_above;
    ByteWriter below(to_below), above(to_above);
    std::vector<std::uint32_t> kept;
    kept.reserve(s.size());
    std::uint32_t kept_active = 0;
    for (std::uint32_t i = 0; i < s.size(); ++i) {
        if (s.is_halo(i))
            continue;
        if (i < s.active && plan.grid.contains(s.position[i])) {
            const SlabSide side = migration_side(s.position[i][axis], lower, upper);
            if (side != SlabSide::none) {
                pack(s, i, side == SlabSide::below ? below : above);
                continue;
            }
        }
        kept.push_back(i);
        kept_active += i < s.active ? 1 : 0;
    }
    gather(s.position, s.scratch_vec, kept);
    gather_state(s, kept, true);
    s.pressure.resize(s.size());
    s.density_rate.resize(s.size());
    s.acceleration.resize(s.size());
    s.active = kept_active;
    s.comm->exchange_with_neighbours(to_below, to_above, from_below, from_above);
    const std::uint32_t first = s.size();
    append_particles(s, from_below, false, 0);
    append_particles(s, from_above, false, 0);
    insert_before_excluded(s, first);

    clock.emplace(s.stage_seconds[halo]);
    send_halo(plan, s);
}

template <int D>
void index_slots(CpuState<D>& s) {
    s.halo_index.assign(s.received_below + s.received_above, no_slot);
    s.send_index.assign(s.sent_below + s.sent_above, no_slot);
    for (std::uint32_t i = 0; i < s.size(); ++i) {
        if (s.halo_slot[i] != no_slot)
            s.halo_index[s.halo_slot[i]] = i;
        if (s.send_slot[i] != no_slot)
            s.send_index[s.send_slot[i]] = i;
    }
}

template <int D>
void refresh_halo(CpuState<D>& s) {
    StageClock clock(s.stage_seconds[halo]);
    std::vector<std::byte> to_below, to_above, from_below, from_above;
    ByteWriter below(to_below), above(to_above);
    for (std::uint32_t slot = 0; slot < s.send_index.size(); ++slot) {
        const std::uint32_t i = s.send_index[slot];
        ByteWriter& out = slot < s.sent_below ? below : above;
        out.put(s.position[i]);
        out.put(s.velocity[i]);
        out.put(s.density[i]);
    }
    s.comm->exchange_with_neighbours(to_below, to_above, from_below, from_above);
    ByteReader from[2] = {ByteReader(from_below), ByteReader(from_above)};
    for (std::uint32_t slot = 0; slot < s.halo_index.size(); ++slot) {
        const std::uint32_t i = s.halo_index[slot];
        ByteReader& in = from[slot < s.received_below ? 0 : 1];
        s.position[i] = in.get<Vec<D>>();
        s.velocity[i] = in.get<Vec<D>>();
        s.density[i] = in.get<float>();
    }
    if (!from[0].done() || !from[1].done())
        throw std::logic_error("halo refresh: a neighbour sent more particles than its halo");
}

template <int D>
void balance(const StepPlan<D>& plan, CpuState<D>& s) {
    if (!plan.balances_after(s.steps))
        return;
    StageClock clock(s.stage_seconds[waiting]);
    const std::vector<double> seconds =
        work_since_balance(*s.comm, step_work_seconds(s.stage_seconds), s.balanced_seconds);
    // The estimated work per bin column along the axis (interaction_weights of the particles
    // each process owns; its halo completes their neighbourhoods), over every process.
    std::vector<double> work_per_bin(static_cast<std::size_t>(bin_columns(s.slabs)), 0.0);
    const std::vector<Vec<D>> active(s.position.begin(), s.position.begin() + s.active);
    const std::vector<float> weight = interaction_weights<D>(active, s.work_grid);
    for (std::uint32_t i = 0; i < s.active; ++i) {
        if (s.is_halo(i))
            continue;
        const double c =
            std::floor((s.position[i][s.slabs.axis] - s.slabs.faces.front()) / s.slabs.bin);
        work_per_bin[static_cast<std::size_t>(
            std::clamp(c, 0.0, double(work_per_bin.size() - 1)))] += weight[i];
    }
    s.comm->sum(work_per_bin.data(), static_cast<int>(work_per_bin.size()));
    SlabDecomposition moved = rebalanced_slabs(s.slabs, seconds, work_per_bin, balance_tolerance);
    if (moved.faces == s.slabs.faces)
        return;
    moved.history.emplace_back(s.steps, moved.faces);
    s.slabs = std::move(moved);
}

#define SLUICE_CPU_EXCHANGE(D)                                                                     \
    template void distribute<D>(const StepPlan<D>&, CpuState<D>&);                                 \
    template void index_slots<D>(CpuState<D>&);                                                    \
    template void refresh_halo<D>(CpuState<D>&);                                                   \
    template void balance<D>(const StepPlan<D>&, CpuState<D>&);
SLUICE_CPU_EXCHANGE(2)
SLUICE_CPU_EXCHANGE(3)
#undef SLUICE_CPU_EXCHANGE

} // namespace sluice::cpu
