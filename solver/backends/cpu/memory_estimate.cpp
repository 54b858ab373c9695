// The CPU backend's memory estimate (backend_options.h, estimate_cpu_memory): the bytes per
// particle of CpuState and its neighbour builder, and the grid's.

#include "backends/backend_options.h"
#include "backends/step_plan.h"
#include "case/constants.h"

#include <type_traits>

namespace sluice {

MemoryEstimate estimate_cpu_memory(const Case& c, std::uint64_t particles) {
    const bool symplectic = c.physics.integrator == IntegratorKind::symplectic;
    const double radius = 2.0 * smoothing_length(c);
    auto per_particle = [&](auto dim) -> std::uint64_t {
        constexpr int D = decltype(dim)::value;
        // CpuState: position, velocity, previous velocity, acceleration, gather scratch,
        // previous position (symplectic), the shifting velocity (shifting), the density
        // gradient (δ-SPH); the builder's sorted positions.
        const std::uint64_t vectors =
            (symplectic ? 6 : 5) + (c.physics.shifting == ShiftingKind::fickian ? 1 : 0) +
            (c.physics.diffusion == DensityDiffusionKind::antuono ? 1 : 0) + 1;
        // density, previous density, pressure, density rate, scratch.
        const std::uint64_t floats = 5;
        // id, id scratch; the builder's key, offset and permutation.
        const std::uint64_t words = 5;
        return vectors * sizeof(Vec<D>) + floats * sizeof(float) + words * sizeof(std::uint32_t) +
               2 * sizeof(ParticleType);
    };
    MemoryEstimate m;
    if (c.dimension == 2) {
        m.bytes_per_particle = per_particle(std::integral_constant<int, 2>{});
        m.bins = domain_grid<2>(c, radius).bin_count();
    } else {
        m.bytes_per_particle = per_particle(std::integral_constant<int, 3>{});
        m.bins = domain_grid<3>(c, radius).bin_count();
    }
    m.particle_bytes = m.bytes_per_particle * particles;
    m.grid_bytes = (m.bins + 2) * sizeof(std::uint32_t);
    return m;
}

} // namespace sluice
