// estimate_cuda_memory (backend_options.h): plain arithmetic over what CudaSimulation, its
// CudaNeighbourBuilder and its snapshot slots allocate (cuda_simulation.cu, cuda_builder.cu,
// snapshot_pool.cuh), so a pre-flight check can run before any of it exists, in any build.

#include "backends/backend_options.h"

#include "case/constants.h"
#include "neighbours/query.h"
#include "neighbours/vec.h"

#include <algorithm>
#include <cmath>
#include <variant>

namespace sluice {

namespace {

template <int D>
double device_bytes_per_particle(const Case& c) {
    constexpr double vec = sizeof(Vec<D>), float4 = 4 * sizeof(float), word = 4;
    const bool symplectic = c.physics.integrator == IntegratorKind::symplectic;
    const bool radix = c.neighbours.construction == Construction::radix_sort;
    const Construction construction = c.neighbours.construction;
    const bool index = c.neighbours.layout == Layout::index; // a linked list's too (module.h)
    // State: position (double-buffered in an index layout), motion and id (double-buffered),
    // derivatives; the integrator's previous state (symplectic: position, velocity, density;
    // Verlet: velocity, density, twice).
    double bytes = (index ? 2 : 1) * vec + 2 * float4 + 2 * word + float4;
    bytes += symplectic ? vec + vec + word : 2 * (vec + word);
    // Builder: sorted positions, permutation, keys; radix sort: sorted keys, indices, and CUB's
    // temporary storage (about the key and value arrays again); a linked list: next only; a
    // packed one: its 16-byte nodes; a tight one: 4^D next slots (list_views.h).
    if (construction == Construction::linked_list)
        bytes += word;
    else if (construction == Construction::linked_list_packed)
        bytes += sizeof(PackedListNode);
    else if (construction == Construction::linked_list_tight)
        bytes += word * TightLinkedListView<D>::slots_per_particle;
    else
        bytes += vec + 2 * word + (radix ? 4 * word : 0);
    // Two snapshot slots: staging copies of position, motion and id.
    bytes += 2 * (vec + float4 + word);
    // Dry wall particles (CudaOptions::skip_dry_walls, the default physics, symplectic,
    // reorder): the travel until each must be computed again, double-buffered.
    if (symplectic && !index && c.physics.viscosity == ViscosityKind::artificial &&
        c.physics.diffusion == DensityDiffusionKind::molteni)
        bytes += 2 * word;
    // Shifting: a shifting velocity per particle.
    if (c.physics.shifting == ShiftingKind::fickian)
        bytes += vec;
    // δ-SPH: a density gradient per particle.
    if (c.physics.diffusion == DensityDiffusionKind::antuono)
        bytes += vec;
    // mDBC: a ghost offset per wall particle (counted per particle: an upper bound).
    if (c.physics.boundary == BoundaryKind::mdbc)
        bytes += vec + word; // and the pass's list of wall particles
    // The neighbour lists (CorrectorNeighbours::lists, the default; symplectic, reorder, a
    // traversal in bin order), kept over steps with the default skin: the entries and a count.
    const bool label_order =
        std::visit([](auto q) { return detail::in_label_order<decltype(q)>; }, c.neighbours.query);
    if (symplectic && !index && !label_order)
        bytes += word * (corrector_list_capacity(c, default_list_skin) + 1);
    return bytes;
}

} // namespace

std::uint32_t corrector_list_capacity(const Case& c, float list_skin) {
    constexpr double pi = 3.14159265358979323846;
    const double skin = std::max(1.0 / 32.0, static_cast<double>(list_skin));
    const double reach = 2.0 * smoothing_length(c) * (1.0 + skin) / c.dp; // in dp
    const double ball =
        c.dimension == 3 ? 4.0 / 3.0 * pi * reach * reach * reach : pi * reach * reach;
    const auto entries = static_cast<std::uint32_t>(std::ceil(1.25 * ball));
    return (entries + 7) / 8 * 8;
}

CudaMemoryEstimate estimate_cuda_memory(const Case& c, double particles, double bins) {
    CudaMemoryEstimate m;
    m.bytes_per_particle =
        c.dimension == 2 ? device_bytes_per_particle<2>(c) : device_bytes_per_particle<3>(c);
    const bool counting = c.neighbours.construction == Construction::counting_sort;
    // PBM or list heads (+ counting sort's bin counters); CUB's scan: a few KB
    m.grid_bytes = (bins + 2) * (counting ? 8.0 : 4.0);
    m.device_bytes = m.bytes_per_particle * particles + m.grid_bytes;
    m.host_bytes_per_particle = 16 + 16 + 16 + 4 + 2.0 * (16 + 16 + 4);
    return m;
}

} // namespace sluice
